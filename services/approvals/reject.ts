// PUT /approvals/{id}/reject: with a reason; the bills are freed.
import { RejectApprovalInput } from '../../schema/approvals/commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { answerApproval, onApproval } from './command.js';
import { releaseFor } from './release.js';
import { parseApprovalId } from './rows.js';

/** PUT /approvals/{id}/reject: a reason (trimmed, not blank, at most 1,000 characters). */
export async function rejectApproval(app: AppServices, actor: Actor | null, id: unknown, body: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const { rejectionReason } = parseInput(RejectApprovalInput, body);
  const ctx = commandContext(actor);
  const r = await onApproval(
    app,
    actor,
    approvalId,
    { type: 'RejectApproval', reason: rejectionReason, byUserId: actor.id, now: new Date().toISOString() },
    ctx,
  );
  if (r.events.length > 0) await releaseFor(app, approvalId, r.state, ctx);
  return answerApproval(app, approvalId, r.position, r.state);
}
