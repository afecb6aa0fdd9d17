// The `approvals-bill-copy` process manager (queue `approvals`, from the moment it is first
// deployed: a refresh for a sync long past would only repeat what a view does): after a company's
// vendor sync completes (asked for by a person or by Intuit's webhook), a company whose copy of its
// open bills exists has it brought up to date by CDC too (one request), so a view within the
// freshness window shows what the webhook announced. The vendors module only records the sync; the
// approvals module, which keeps the copy, reacts to that event.
import { decodeEvent } from '../../schema/shared/events.js';
import type { VendorSyncEvent } from '../../schema/vendors/events.js';
import { refreshBillCopyIfKept } from '../../services/approvals/bill-copy.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import {
  type JobHandler,
  jobContext,
  type ProcessManager,
  type ReactionJob,
  reactionJobId,
} from '../process-manager.js';
import { APPROVALS_QUEUE } from './reactions.js';

const NAME = 'approvals-bill-copy';
export const REFRESH_BILL_COPY_JOB = 'refresh-bill-copy';

export const billCopyProcessManager: ProcessManager = {
  name: NAME,
  handles: ['VendorSyncCompleted'],
  startAt: 'now',
  react(stored: StoredEvent): ReactionJob[] {
    const event = decodeEvent(stored) as VendorSyncEvent;
    // A sync that failed as a whole (not connected, QuickBooks down) says nothing new of the bills.
    if (event.type !== 'VendorSyncCompleted' || event.data.error !== null) return [];
    return [
      {
        queue: APPROVALS_QUEUE,
        name: REFRESH_BILL_COPY_JOB,
        data: {
          companyId: event.data.companyId,
          correlationId: stored.metadata.correlationId ?? null,
          causationEventId: stored.id,
        },
        jobId: reactionJobId(NAME, stored),
      },
    ];
  },
};

export const billCopyJobHandlers: Record<string, JobHandler> = {
  async [REFRESH_BILL_COPY_JOB](app, job) {
    const { companyId } = job.data as { companyId: number };
    // Best effort: a view within the window refreshes the copy too, so a failure is logged, not retried.
    try {
      return { refreshed: await refreshBillCopyIfKept(app, companyId, jobContext(job)) };
    } catch (err) {
      app.log.warn({ companyId, error: String(err) }, 'bill copy refresh after a vendor sync failed');
      return { refreshed: false };
    }
  },
};
