// The vendor's reactions to what the bank sends back about a payment (the payments module's events,
// read from schema/): a return that says the account cannot take payments, or that someone must look,
// blocks the vendor's banking (block-vendor-banking); a notification of change proposes the
// corrected bank details as a held change for an ADMIN (propose-noc-change). Jobs carry ids and codes
// only: the corrected numbers stay sealed in the entry's event, which the job reads opened.
import { createHash } from 'node:crypto';
import type { Job } from 'bullmq';
import { type PaymentsEvent, paymentsEvents } from '../../schema/payments/events.js';
import type { AppServices } from '../../services/app/context.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import { DomainError } from '../../services/shared/domain-errors.js';
import { type VendorCommand, vendorDecider, vendorStreamId } from '../../services/vendors/vendor-decider.js';
import { type JobHandler, jobContext, type ReactionJob, reactionJobId } from '../process-manager.js';

const decodePayment = eventDecoder(paymentsEvents);

/** The returns that stop payments to the vendor: the account's, and those a person must look into. */
const BLOCKING = new Set(['block-account', 'investigate']);

export const BANK_ANSWER_EVENTS = ['PaymentEntryReturned', 'PaymentEntryCorrectionReceived'] as const;

/** The job a payments event calls for on `queue`, or none. */
export function bankAnswerJobs(pm: string, queue: string, stored: StoredEvent): ReactionJob[] {
  // Codes and ids are plain; the corrected numbers stay sealed until the job opens them.
  const event = decodePayment(stored, { sealed: 'absent' }) as PaymentsEvent;
  const base = {
    vendorStreamId: '',
    correlationId: stored.metadata.correlationId ?? null,
    causationEventId: stored.id,
  };
  if (event.type === 'PaymentEntryReturned') {
    const d = event.data;
    if (!BLOCKING.has(d.action)) return [];
    return [
      {
        queue,
        name: 'block-vendor-banking',
        data: {
          ...base,
          vendorStreamId: vendorStreamId(d.companyId, d.qbVendorId),
          traceNumber: d.traceNumber,
          inboundFileId: d.inboundFileId,
          returnCode: d.returnCode,
          description: d.description,
          action: d.action,
          accountLast4: d.accountLast4,
        },
        jobId: reactionJobId(pm, stored),
      },
    ];
  }
  if (event.type === 'PaymentEntryCorrectionReceived') {
    const d = event.data;
    return [
      {
        queue,
        name: 'propose-noc-change',
        data: {
          ...base,
          vendorStreamId: vendorStreamId(d.companyId, d.qbVendorId),
          entryStreamId: stored.streamId,
        },
        jobId: reactionJobId(pm, stored),
      },
    ];
  }
  return [];
}

/**
 * One change per entry and bank file, the same however often the job runs: a name-based UUID
 * (version 5 layout over sha256), as every change id is a UUID.
 */
export function nocChangeId(traceNumber: string, inboundFileId: string): string {
  const h = createHash('sha256').update(`noc:${traceNumber}:${inboundFileId}`).digest('hex').slice(0, 32);
  const variant = ((Number.parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface JobData {
  vendorStreamId: string;
  correlationId: string | null;
  causationEventId: string;
}

/** The vendor's command, once (the job's id is the command's); a vendor not synced or forgotten is left. */
async function onVendor(app: AppServices, job: Job, command: VendorCommand) {
  try {
    const r = await app.commands.handle(
      vendorDecider,
      (job.data as JobData).vendorStreamId,
      command,
      jobContext(job),
    );
    return { recorded: r.events.map((e) => e.type) };
  } catch (err) {
    // Nothing of the vendor to act on: the entry's own record keeps the bank's answer.
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return { recorded: [], vendor: 'not found' };
    throw err;
  }
}

export const bankAnswerJobHandlers: Record<string, JobHandler> = {
  async 'block-vendor-banking'(app, job) {
    const d = job.data as JobData & {
      traceNumber: string;
      inboundFileId: string;
      returnCode: string;
      description: string;
      action: 'block-account' | 'investigate';
      accountLast4: string;
    };
    return onVendor(app, job, {
      type: 'BlockBanking',
      traceNumber: d.traceNumber,
      inboundFileId: d.inboundFileId,
      returnCode: d.returnCode,
      description: d.description,
      action: d.action,
      accountLast4: d.accountLast4,
      now: new Date().toISOString(),
    });
  },
  async 'propose-noc-change'(app, job) {
    const d = job.data as JobData & { entryStreamId: string };
    const { events } = await app.store.readStream(d.entryStreamId);
    const stored = events.find((e) => e.id === d.causationEventId);
    if (!stored)
      throw new Error(`The notification of change ${d.causationEventId} is not on its entry's stream`);
    const event = decodePayment(stored) as PaymentsEvent;
    if (event.type !== 'PaymentEntryCorrectionReceived')
      throw new Error(`${d.causationEventId} is not a notification of change`);
    const c = event.data;
    return onVendor(app, job, {
      type: 'ProposeBankCorrection',
      traceNumber: c.traceNumber,
      inboundFileId: c.inboundFileId,
      changeCode: c.changeCode,
      description: c.description,
      dueBy: c.dueBy,
      corrected: {
        routingNumber: c.correctedRoutingNumber,
        accountNumber: c.correctedAccountNumber,
        accountType: c.correctedAccountType,
      },
      changeId: nocChangeId(c.traceNumber, c.inboundFileId),
      now: new Date().toISOString(),
    });
  },
};
