// The vendor sync job (queue `vendors`, job `sync-vendors`): runs the sync (services/vendors/sync-run.ts)
// with the request's context, and keeps its place when QuickBooks throttles or fails for a while, so
// the job goes on from the page it stopped at. The sync completes by a command of its own, once
// however often the job runs.
import { DelayedError, type Job } from 'bullmq';
import type { AppServices } from '../../services/app/context.js';
import { QbThrottledError } from '../../services/quickbooks/client.js';
import { runVendorSync, type VendorSyncResume } from '../../services/vendors/sync-run.js';

export async function syncVendorsJob(app: AppServices, job: Job, token?: string) {
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
    // The company's copy of its open bills follows from VendorSyncCompleted, in the approvals module
    // (workers/approvals/bill-copy-reactions.ts).
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
}
