// The payment process managers (docs/ARCHITECTURE.md "Payments"):
// - `payments` (queue `payments`, from the beginning of the log): an approved approval asks for its
//   file (request-nacha), a request is generated (generate-nacha), a completed payment starts the
//   QuickBooks bill payments (start-qb-sync), and each run pays its bills (pay-bills); for an entry
//   the bank returned (the payments module's PaymentEntryReturned, never recorded on the approval's
//   stream: decision 0041) its vendor's bills are let go (record-return) and their QuickBooks payments
//   voided (void-returned-payments).
// - `payment-mail` (queue `payment-mail`, from the moment it is first deployed: e-mails must not fire
//   for years of history): the manager hears of a new approval (notify-manager), a file ready sends
//   the bank-upload links (none for a file the system uploads over SFTP), a bank upload the payment-completed links (send-links), staff asking to
//   send the current step's link again fresh links for it (send-links), a payment tells the
//   stakeholders (notify-completed), a returned payment the manager and the creator (notify-returned).
// Job ids derive from the event and the process manager's own name, so they never collide with the
// approvals' reactions and a replayed event enqueues nothing twice. Each job reports back with a
// command whose id is the job id (appended once however often it runs).

import { approvalEvents } from '../../schema/approvals/events.js';
import { paymentEvents } from '../../schema/approvals/payment-events.js';
import { paymentsEvents } from '../../schema/payments/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import { type JobHandler, type ProcessManager, type ReactionJob, reactionJobId } from '../process-manager.js';
import { deliveryJobHandlers } from './delivery-jobs.js';
import { linkJobHandlers } from './link-jobs.js';
import { nachaJobHandlers } from './nacha-jobs.js';
import { MAIL_ENDED_JOB, mailEndedHandler, reportingFailures } from './payment-failures.js';
import { qbPaymentJobHandlers } from './qb-payment-jobs.js';
import { returnJobHandlers } from './return-jobs.js';

export const PAYMENTS_QUEUE = 'payments';
export const PAYMENT_MAIL_QUEUE = 'payment-mail';

const decode = eventDecoder({ ...approvalEvents, ...paymentEvents, ...paymentsEvents });

function jobOf(pm: string, queue: string, stored: StoredEvent) {
  // `n`: the job's place among those one event starts (each its own id).
  return (name: string, data: Record<string, unknown>, delayMs = 0, n = 0): ReactionJob => ({
    queue,
    name,
    data: { ...data, correlationId: stored.metadata.correlationId ?? null, causationEventId: stored.id },
    jobId: reactionJobId(pm, stored, n),
    ...(delayMs > 0 ? { delayMs } : {}),
  });
}

/** 00:05 in New York on a calendar day ('YYYY-MM-DD'), as an instant: when that banking day's files may start. */
export function newYorkDayStart(day: string): number {
  const [y, m, d] = day.split('-').map(Number);
  // 04:05 UTC is 00:05 in New York under daylight saving time (UTC-4), else 05:05 UTC is (UTC-5).
  const edt = Date.UTC(y, m - 1, d, 4, 5);
  const hour = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York',
    hour: 'numeric',
    hourCycle: 'h23',
  }).format(new Date(edt));
  return Number(hour) === 0 ? edt : Date.UTC(y, m - 1, d, 5, 5);
}

export const paymentsProcessManager: ProcessManager = {
  name: 'payments',
  handles: [
    'ApprovalApproved',
    'NachaGenerationRequested',
    'NachaGenerationFailed',
    'PaymentCompleted',
    'QbPaymentSyncStarted',
    'PaymentEntryReturned',
    'AchFileDelivered',
    'AchFileRejectedByBank',
    'AchDeliveryFailed',
  ],
  startAt: 'beginning',
  react(stored) {
    const event = decode(stored);
    const job = jobOf('payments', PAYMENTS_QUEUE, stored);
    switch (event.type) {
      case 'ApprovalApproved':
        return [job('request-nacha', { approvalId: event.data.approvalId })];
      case 'NachaGenerationRequested':
        return [job('generate-nacha', { approvalId: event.data.approvalId, version: event.data.version })];
      case 'NachaGenerationFailed': {
        // The day's files were all used: asked again on the banking day the problem names.
        const waitUntil = event.data.problems.find((p) => p.kind === 'file-limit')?.waitUntil;
        if (!waitUntil) return [];
        return [
          job(
            'deferred-nacha',
            { approvalId: event.data.approvalId, version: event.data.version },
            newYorkDayStart(waitUntil) - Date.now(),
          ),
        ];
      }
      case 'PaymentCompleted':
        return [job('start-qb-sync', { approvalId: event.data.approvalId })];
      case 'QbPaymentSyncStarted':
        return [job('pay-bills', { approvalId: event.data.approvalId, attempt: event.data.attempt })];
      case 'PaymentEntryReturned': {
        const entry = { approvalId: event.data.approvalId, traceNumber: event.data.traceNumber };
        return [job('record-return', entry), job('void-returned-payments', entry, 0, 1)];
      }
      case 'AchFileDelivered':
        return [
          job('bank-delivery', {
            kind: 'delivered',
            approvalId: event.data.approvalId,
            fileVersion: event.data.version,
            fileName: event.data.fileName,
            size: event.data.size,
            sha256: event.data.sha256,
          }),
        ];
      case 'AchFileRejectedByBank':
        return [
          job('bank-delivery', {
            kind: 'refused',
            approvalId: event.data.approvalId,
            reason: event.data.bankText,
          }),
        ];
      case 'AchDeliveryFailed':
        return [
          job('bank-delivery', {
            kind: 'failed',
            approvalId: event.data.approvalId,
            reason: event.data.reason,
          }),
        ];
      default:
        return [];
    }
  },
};

export const paymentMailProcessManager: ProcessManager = {
  name: 'payment-mail',
  handles: [
    'ApprovalCreated',
    'NachaFileGenerated',
    'BankUploadConfirmed',
    'PaymentLinkResendRequested',
    'PaymentCompleted',
    'PaymentJobFailed',
    'PaymentEntryReturned',
  ],
  startAt: 'now',
  react(stored) {
    const event = decode(stored);
    const job = jobOf('payment-mail', PAYMENT_MAIL_QUEUE, stored);
    switch (event.type) {
      case 'ApprovalCreated':
        return [job('notify-manager', { approvalId: event.data.approvalId })];
      case 'NachaFileGenerated':
        // A file the system uploads over SFTP at its window asks no one to upload it: a person who did
        // would send it twice. Its payment-completed links go once it is at the bank.
        if (event.data.window?.via === 'sftp') return [];
        return [
          job('send-links', {
            approvalId: event.data.approvalId,
            action: 'bank-uploaded',
            fileVersion: event.data.version,
          }),
        ];
      case 'BankUploadConfirmed':
        return [job('send-links', { approvalId: event.data.approvalId, action: 'payment-completed' })];
      case 'PaymentLinkResendRequested':
        // The job id derives from this event: its links' ids and its mails' keys are new (a fresh link
        // for each person), and the same for every run of this one request (each mailed once).
        return [
          job('send-links', {
            approvalId: event.data.approvalId,
            action: event.data.action,
            fileVersion: event.data.fileVersion,
          }),
        ];
      case 'PaymentCompleted':
        return [job('notify-completed', { approvalId: event.data.approvalId })];
      case 'PaymentEntryReturned':
        return [
          job('notify-returned', { approvalId: event.data.approvalId, traceNumber: event.data.traceNumber }),
        ];
      case 'PaymentJobFailed':
        // The manager hears of a failed payment job; a failed notice of one tells nobody again.
        if (event.data.job === 'notify-payment-problem') return [];
        return [
          job('notify-payment-problem', { approvalId: event.data.approvalId, failedJobId: event.data.jobId }),
        ];
      default:
        return [];
    }
  },
};

export const paymentsJobHandlers: Record<string, JobHandler> = reportingFailures({
  ...nachaJobHandlers,
  ...qbPaymentJobHandlers,
  ...returnJobHandlers,
  ...deliveryJobHandlers,
});
export const paymentMailJobHandlers: Record<string, JobHandler> = {
  ...reportingFailures(linkJobHandlers),
  [MAIL_ENDED_JOB]: mailEndedHandler,
};
