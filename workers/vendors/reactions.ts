// The vendors process manager (queue `vendors`): a requested sync becomes one job, whose id derives
// from the request event (the job: sync-job.ts); a forgotten vendor's key is erased again; the bank's
// returns and notifications of change reach the vendor's banking (bank-answers.ts).
import type { Job } from 'bullmq';
import { decodeEvent } from '../../schema/shared/events.js';
import type { VendorEvent, VendorSyncEvent } from '../../schema/vendors/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { type JobHandler, type ProcessManager, type ReactionJob, reactionJobId } from '../process-manager.js';
import { BANK_ANSWER_EVENTS, bankAnswerJobHandlers, bankAnswerJobs } from './bank-answers.js';
import { syncVendorsJob } from './sync-job.js';

const NAME = 'vendors';
export const VENDORS_QUEUE = 'vendors';

export const vendorsProcessManager: ProcessManager = {
  name: NAME,
  handles: ['VendorSyncRequested', 'VendorForgotten', ...BANK_ANSWER_EVENTS],
  // A sync asked for before a deployment added this still runs (it completes once, by its id).
  startAt: 'beginning',
  react(stored: StoredEvent): ReactionJob[] {
    if ((BANK_ANSWER_EVENTS as readonly string[]).includes(stored.type))
      return bankAnswerJobs(NAME, VENDORS_QUEUE, stored);
    const event = decodeEvent(stored) as VendorSyncEvent | VendorEvent;
    if (event.type === 'VendorForgotten')
      // The request deletes the key at once; this makes sure of it after a crash in between.
      return [
        {
          queue: VENDORS_QUEUE,
          name: 'erase-vendor-key',
          data: { subject: event.data.subject },
          jobId: reactionJobId(NAME, stored),
        },
      ];
    if (event.type !== 'VendorSyncRequested') return [];
    return [
      {
        queue: VENDORS_QUEUE,
        name: 'sync-vendors',
        data: {
          ...event.data,
          correlationId: stored.metadata.correlationId ?? null,
          causationEventId: stored.id,
          userId: stored.metadata.userId ?? null,
        },
        jobId: reactionJobId(NAME, stored),
      },
    ];
  },
};

export const vendorsJobHandlers: Record<string, JobHandler> = {
  async 'erase-vendor-key'(app, job: Job) {
    await app.subjectKeys.forget((job.data as { subject: string }).subject);
  },
  'sync-vendors': syncVendorsJob,
  ...bankAnswerJobHandlers,
};
