// Jobs of the payment process manager (payments.ts): request-nacha (an approved approval asks for its
// file) and generate-nacha (a request is worked on: services/approvals/payments/nacha-generate.ts).
// Each is idempotent and reports back with a command whose id is the job id.
import { DelayedError } from 'bullmq';
import { approvalDecider, approvalStreamId } from '../../services/approvals/approval-decider.js';
import { generatePaymentFile } from '../../services/approvals/payments/nacha-generate.js';
import { QbThrottledError } from '../../services/quickbooks/client.js';
import { type JobHandler, jobContext } from '../process-manager.js';

export const nachaJobHandlers: Record<string, JobHandler> = {
  async 'request-nacha'(app, job) {
    const { approvalId } = job.data as { approvalId: string };
    const r = await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      { type: 'RequestNacha', reason: 'approved', byUserId: null, now: new Date().toISOString() },
      jobContext(job),
    );
    return r.events.length > 0 ? 'requested' : 'already';
  },
  /** The file that waited on the day's file limit is asked for again, its banking day come. */
  async 'deferred-nacha'(app, job) {
    const { approvalId, version } = job.data as { approvalId: string; version: number };
    const r = await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      { type: 'RequestDeferredNacha', version, now: new Date().toISOString() },
      jobContext(job),
    );
    return r.events.length > 0 ? 'requested' : 'no longer waiting';
  },
  async 'generate-nacha'(app, job, token) {
    const { approvalId, version } = job.data as { approvalId: string; version: number };
    try {
      return await generatePaymentFile(app, approvalId, version, jobContext(job));
    } catch (err) {
      // QuickBooks throttled the balances' read: wait out its window (no attempt spent), run again.
      if (err instanceof QbThrottledError && token) {
        await job.moveToDelayed(Date.now() + err.retryAfterMs, token);
        throw new DelayedError();
      }
      throw err;
    }
  },
};
