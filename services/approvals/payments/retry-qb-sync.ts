// POST /approvals/{id}/retry-qb-sync (RetryQbSync): a new QuickBooks payment run for the
// bills not yet paid. The decider refuses it before PAYMENT_COMPLETED, while a run is going, and once
// every bill is paid; the run itself is the process manager's pay-bills job. A bill whose entry the
// bank returned is not in it (the run reads the returns again before each payment).
import type { AppServices } from '../../app/context.js';
import { type Actor, authorize, commandContext } from '../../auth/permissions.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';
import { answerApproval } from '../command.js';
import { parseApprovalId, requireActionableRow } from '../rows.js';
import { returnedBillIds } from './returns.js';

export const RETRY_STARTED = 'QuickBooks payment sync retry started';

export async function retryQbSync(app: AppServices, actor: Actor | null, id: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  // The caller may act on this approval before anything of it is read.
  await requireActionableRow(app, actor, approvalId);
  const streamId = approvalStreamId(approvalId);
  const { state } = await app.commands.load(approvalDecider, streamId);
  const r = await app.commands.handle(
    approvalDecider,
    streamId,
    {
      type: 'StartQbSync',
      retry: true,
      byUserId: actor.id,
      returnedBillIds: await returnedBillIds(app, state.payment),
      now: new Date().toISOString(),
    },
    commandContext(actor),
  );
  return { approval: await answerApproval(app, approvalId, r.position, r.state), message: RETRY_STARTED };
}
