// The vendors process manager (queue `vendors`): a requested sync becomes one job, whose id derives
// from the request event; the job pages through QuickBooks and completes the sync by a command of
// its own (services/vendors/vendors.ts runVendorSync), once however often it runs.
import { DelayedError, type Job } from 'bullmq';
import { decodeEvent } from '../../schema/shared/events.js';
import type { VendorEvent, VendorSyncEvent } from '../../schema/vendors/events.js';
import { refreshBillCopyIfKept } from '../../services/approvals/bill-copy.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { QbThrottledError } from '../../services/quickbooks/client.js';
import { runVendorSync, type VendorSyncResume } from '../../services/vendors/vendors.js';
import { type JobHandler, type ProcessManager, type ReactionJob, reactionJobId } from '../process-manager.js';

const NAME = 'vendors';
export const VENDORS_QUEUE = 'vendors';

export const vendorsProcessManager: ProcessManager = {
  name: NAME,
  handles: ['VendorSyncRequested', 'VendorForgotten'],
  // A sync asked for before a deployment added this still runs (it completes once, by its id).
  startAt: 'beginning',
  react(stored: StoredEvent): ReactionJob[] {
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
  async 'sync-vendors'(app, job: Job, token?: string) {
    const d = job.data as {
      syncId: string;
      companyId: number;
      limit: number;
      offset: number;
      correlationId: string | null;
      causationEventId: string;
      userId: string | null;
    };
    const ctx = {
      causationId: d.causationEventId,
      correlationId: d.correlationId ?? undefined,
      // The vendors' events say who asked for the sync.
      userId: d.userId,
    };
    const resume = (job.data as { resume?: VendorSyncResume }).resume;
    let delayUntil: number | null = null;
    try {
      const result = await runVendorSync(app, d, ctx, {
        resume,
        // QuickBooks throttled: the job waits out the window (BullMQ's delay, no attempt spent) and
        // goes on from the page it stopped at. Time-outs and 5xx: BullMQ's retry with backoff, while
        // tries are left. Either way the progress so far is kept in the job's data.
        async pause(at, err) {
          const attempts = job.opts.attempts ?? 1;
          if (!(err instanceof QbThrottledError) && job.attemptsMade + 1 >= attempts) return null;
          await job.updateData({ ...job.data, resume: at });
          if (err instanceof QbThrottledError) {
            delayUntil = Date.now() + err.retryAfterMs;
            return new Date(delayUntil);
          }
          const backoff = job.opts.backoff;
          const base = typeof backoff === 'number' ? backoff : (backoff?.delay ?? 0);
          return new Date(Date.now() + base * 2 ** job.attemptsMade);
        },
      });
      // The company's copy of its open bills follows (issue 37 item 7); best effort: a view refreshes it too.
      if (result.error === null)
        await refreshBillCopyIfKept(app, d.companyId, ctx).catch((err) =>
          app.log.warn(
            { companyId: d.companyId, error: String(err) },
            'bill copy refresh after a sync failed',
          ),
        );
      return result;
    } catch (err) {
      if (delayUntil !== null && token) {
        app.log.info(
          { syncId: d.syncId, until: new Date(delayUntil).toISOString() },
          'vendor sync waits for QuickBooks',
        );
        await job.moveToDelayed(delayUntil, token);
        throw new DelayedError();
      }
      throw err;
    }
  },
};
