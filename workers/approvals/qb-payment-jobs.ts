// Jobs of the payment process managers (payments.ts): start-qb-sync, pay-bills. Each is idempotent and reports back
// with a command whose id is the job id (pay-bills: the job id and the bill, one per result, and 'finish').
import { DelayedError } from 'bullmq';
import { payApprovalBills, startQbSync } from '../../services/approvals/payments/qb-payments.js';
import { QbThrottledError } from '../../services/quickbooks/client.js';
import { type JobHandler, jobContext } from '../process-manager.js';

export const qbPaymentJobHandlers: Record<string, JobHandler> = {
  async 'start-qb-sync'(app, job) {
    const { approvalId } = job.data as { approvalId: string };
    const r = await startQbSync(app, approvalId, jobContext(job));
    return r.events.length > 0 ? 'started' : 'unchanged';
  },
  async 'pay-bills'(app, job, token) {
    const { approvalId, attempt } = job.data as { approvalId: string; attempt: number };
    try {
      return await payApprovalBills(app, {
        approvalId,
        attempt,
        commandId: (part) => `${job.id}-${part}`,
        ctx: jobContext(job),
      });
    } catch (err) {
      // QuickBooks throttled: wait out its window (BullMQ's delay, no attempt spent) and run again;
      // the bills recorded so far are skipped then, no bill is skipped for it.
      if (err instanceof QbThrottledError && token) {
        const until = Date.now() + err.retryAfterMs;
        app.log.info(
          { approvalId, attempt, until: new Date(until).toISOString() },
          'QuickBooks payments wait',
        );
        await job.moveToDelayed(until, token);
        throw new DelayedError();
      }
      throw err;
    }
  },
};
