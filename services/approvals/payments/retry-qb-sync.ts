// POST /approvals/{id}/retry-qb-sync (RetryQbSync): a new QuickBooks payment run for the
// bills not yet paid. The decider refuses it before PAYMENT_COMPLETED, while a run is going, and once
// every bill is paid; the run itself is the process manager's pay-bills job.
import type { AppServices } from '../../app/context.js';
import { type Actor, authorize } from '../../auth/permissions.js';
import { answerApproval, onApproval } from '../command.js';

export const RETRY_STARTED = 'QuickBooks payment sync retry started';

export async function retryQbSync(app: AppServices, actor: Actor | null, id: unknown) {
  authorize(actor, 'approvals.write');
  const r = await onApproval(app, actor, id, {
    type: 'StartQbSync',
    retry: true,
    byUserId: actor.id,
    now: new Date().toISOString(),
  });
  return { approval: await answerApproval(app, r.approvalId, r.position, r.state), message: RETRY_STARTED };
}
