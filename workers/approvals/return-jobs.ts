// Jobs of the `payments` process manager for an entry the bank returned (the payments module's
// PaymentEntryReturned; payments.ts): record-return (the vendor's bills let go, so a new approval may
// take them) and void-returned-payments (their QuickBooks payments voided, recorded on the entry).
// Each is idempotent and reports back with a command whose id is the job's.
import { DelayedError } from 'bullmq';
import { releaseReturnedBills, voidReturnedPayments } from '../../services/approvals/payments/returns.js';
import { QbThrottledError } from '../../services/quickbooks/client.js';
import { type JobHandler, jobContext } from '../process-manager.js';

/** How often the void looks again while a QuickBooks run is paying the approval's bills. */
const SYNC_POLL_MS = 2_000;

export const returnJobHandlers: Record<string, JobHandler> = {
  async 'record-return'(app, job) {
    const { approvalId, traceNumber } = job.data as { approvalId: string; traceNumber: string };
    return releaseReturnedBills(app, {
      approvalId,
      traceNumber,
      commandId: `${job.id}-release`,
      ctx: jobContext(job),
    });
  },
  async 'void-returned-payments'(app, job, token) {
    const { approvalId, traceNumber } = job.data as { approvalId: string; traceNumber: string };
    try {
      const outcome = await voidReturnedPayments(app, {
        approvalId,
        traceNumber,
        commandId: String(job.id),
        ctx: jobContext(job),
      });
      if (outcome.kind !== 'wait') return outcome;
      // A QuickBooks run is paying the approval's bills: it may pay a returned one, which is then voided.
      if (!token) throw new Error('A QuickBooks payment run is under way: the void waits for it to end');
      await job.moveToDelayed(Date.now() + SYNC_POLL_MS, token);
      throw new DelayedError();
    } catch (err) {
      // QuickBooks throttled: wait out its window (no attempt spent), as the bill payments do.
      if (err instanceof QbThrottledError && token) {
        await job.moveToDelayed(Date.now() + err.retryAfterMs, token);
        throw new DelayedError();
      }
      throw err;
    }
  },
};
