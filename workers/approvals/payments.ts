// The payment process managers (issue 39; docs/ARCHITECTURE.md "Payments"):
// - `payments` (queue `payments`, from the beginning of the log): an approved approval asks for its
//   file (request-nacha), a request is generated (generate-nacha), a completed payment starts the
//   QuickBooks bill payments (start-qb-sync), and each run pays its bills (pay-bills).
// - `payment-mail` (queue `payment-mail`, from the moment it is first deployed: e-mails must not fire
//   for years of history): the manager hears of a new approval (notify-manager), a file ready sends
//   the bank-upload links, a bank upload the payment-completed links (send-links), a payment tells
//   the stakeholders (notify-completed).
// Job ids derive from the event and the process manager's own name, so they never collide with the
// approvals' reactions and a replayed event enqueues nothing twice. Each job reports back with a
// command whose id is the job id (appended once however often it runs).

import { approvalEvents } from '../../schema/approvals/events.js';
import { paymentEvents } from '../../schema/approvals/payment-events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import { type JobHandler, type ProcessManager, type ReactionJob, reactionJobId } from '../process-manager.js';
import { linkJobHandlers } from './link-jobs.js';
import { nachaJobHandlers } from './nacha-jobs.js';
import { qbPaymentJobHandlers } from './qb-payment-jobs.js';

export const PAYMENTS_QUEUE = 'payments';
export const PAYMENT_MAIL_QUEUE = 'payment-mail';

const decode = eventDecoder({ ...approvalEvents, ...paymentEvents });

function jobOf(pm: string, queue: string, stored: StoredEvent) {
  return (name: string, data: Record<string, unknown>): ReactionJob => ({
    queue,
    name,
    data: { ...data, correlationId: stored.metadata.correlationId ?? null, causationEventId: stored.id },
    jobId: reactionJobId(pm, stored),
  });
}

export const paymentsProcessManager: ProcessManager = {
  name: 'payments',
  handles: ['ApprovalApproved', 'NachaGenerationRequested', 'PaymentCompleted', 'QbPaymentSyncStarted'],
  startAt: 'beginning',
  react(stored) {
    const event = decode(stored);
    const job = jobOf('payments', PAYMENTS_QUEUE, stored);
    switch (event.type) {
      case 'ApprovalApproved':
        return [job('request-nacha', { approvalId: event.data.approvalId })];
      case 'NachaGenerationRequested':
        return [job('generate-nacha', { approvalId: event.data.approvalId, version: event.data.version })];
      case 'PaymentCompleted':
        return [job('start-qb-sync', { approvalId: event.data.approvalId })];
      case 'QbPaymentSyncStarted':
        return [job('pay-bills', { approvalId: event.data.approvalId, attempt: event.data.attempt })];
      default:
        return [];
    }
  },
};

export const paymentMailProcessManager: ProcessManager = {
  name: 'payment-mail',
  handles: ['ApprovalCreated', 'NachaFileGenerated', 'BankUploadConfirmed', 'PaymentCompleted'],
  startAt: 'now',
  react(stored) {
    const event = decode(stored);
    const job = jobOf('payment-mail', PAYMENT_MAIL_QUEUE, stored);
    switch (event.type) {
      case 'ApprovalCreated':
        return [job('notify-manager', { approvalId: event.data.approvalId })];
      case 'NachaFileGenerated':
        return [
          job('send-links', {
            approvalId: event.data.approvalId,
            action: 'bank-uploaded',
            fileVersion: event.data.version,
          }),
        ];
      case 'BankUploadConfirmed':
        return [job('send-links', { approvalId: event.data.approvalId, action: 'payment-completed' })];
      case 'PaymentCompleted':
        return [job('notify-completed', { approvalId: event.data.approvalId })];
      default:
        return [];
    }
  },
};

export const paymentsJobHandlers: Record<string, JobHandler> = {
  ...nachaJobHandlers,
  ...qbPaymentJobHandlers,
};
export const paymentMailJobHandlers: Record<string, JobHandler> = linkJobHandlers;
