// DELETE /approvals/{id}, and the expiry job's command.
import type { CommandContext } from '../app/command-handler.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { DomainError } from '../shared/domain-errors.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { onApproval } from './command.js';
import { releaseFor } from './release.js';
import { parseApprovalId } from './rows.js';

/** DELETE /approvals/{id}: leaves every list; its events stay; its bills are free again. */
export async function deleteApproval(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const ctx = commandContext(actor);
  const r = await onApproval(
    app,
    actor,
    approvalId,
    { type: 'DeleteApproval', byUserId: actor.id, now: new Date().toISOString() },
    ctx,
  );
  await releaseFor(app, approvalId, r.state, ctx);
  await awaitProjections(app, r.position, ['approvals']);
}

/** The expiry job's command (system): EXPIRED if still PENDING, else nothing. */
export async function expireApproval(app: AppServices, approvalId: string, ctx: CommandContext) {
  try {
    const r = await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      { type: 'ExpireApproval', now: new Date().toISOString() },
      ctx,
    );
    return r.events.length > 0 ? 'expired' : 'unchanged';
  } catch (err) {
    // Deleted meanwhile: nothing to expire.
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return 'unchanged';
    throw err;
  }
}
