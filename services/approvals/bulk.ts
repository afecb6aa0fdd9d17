// POST /approvals/bulk-approve and /bulk-reject: one command per approval, the bills freed per
// company, one wait for the read model.
import type { z } from 'zod';
import type { ApprovalBulkResult } from '../../schema/approvals/answers.js';
import { BulkApproveInput, BulkRejectInput } from '../../schema/approvals/commands.js';
import type { ApprovalEvent, ApprovalStatus } from '../../schema/approvals/events.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { parseInput, toAppError } from '../shared/errors.js';
import { inParallel } from '../shared/parallel.js';
import type { ApprovalState } from './approval-decider.js';
import { approveOne } from './approve.js';
import { onApproval } from './command.js';
import { billsToRelease, releaseBills } from './release.js';
import { parseApprovalId } from './rows.js';

export type BulkResult = z.infer<typeof ApprovalBulkResult>;

/**
 * Bulk approve (all bills of each) or reject (one reason): each approval its own command on its own
 * stream, 16 at a time; the bills to free are released per company in one append each; one
 * read-your-writes wait for the whole batch.
 */
async function bulk(
  app: AppServices,
  actor: Actor,
  ids: string[],
  act: (
    approvalId: string,
    ctx: CommandContext,
  ) => Promise<{ position: Position | null; state: ApprovalState; events: ApprovalEvent[] }>,
): Promise<BulkResult> {
  const ctx = commandContext(actor);
  let last: Position | null = null;
  type Reason = NonNullable<ReturnType<typeof billsToRelease>>['reason'];
  const releases = new Map<number, Map<Reason, Array<{ approvalId: string; billIds: string[] }>>>();
  const outcomes = await inParallel(ids, 16, async (id) => {
    try {
      const approvalId = parseApprovalId(id);
      const r = await act(approvalId, ctx);
      if (r.position !== null && (last === null || r.position > last)) last = r.position;
      const free = r.events.length > 0 ? billsToRelease(r.state) : null;
      if (free && free.billIds.length > 0 && r.state.companyId !== null) {
        const byReason = releases.get(r.state.companyId) ?? new Map();
        byReason.set(free.reason, [
          ...(byReason.get(free.reason) ?? []),
          { approvalId, billIds: free.billIds },
        ]);
        releases.set(r.state.companyId, byReason);
      }
      return { id, approvalId, error: null };
    } catch (err) {
      return { id, approvalId: null, error: toAppError(err).message };
    }
  });
  await Promise.all(
    [...releases].flatMap(([companyId, byReason]) =>
      [...byReason].map(([reason, list]) =>
        releaseBills(app, companyId, list, reason, ctx).catch((err) =>
          // The process manager frees them again from the approvals' own events.
          app.log.warn(
            { companyId, error: err instanceof Error ? err.message : String(err) },
            'bulk release failed',
          ),
        ),
      ),
    ),
  );
  // Each status as the read model holds it once it has applied the batch, as a read would show it.
  const statuses = await answerAfterWrite(app, last, ['approvals'], async () => {
    const acted = outcomes.flatMap((o) => (o.approvalId === null ? [] : [o.approvalId]));
    if (acted.length === 0) return new Map<string, ApprovalStatus>();
    const rows = await app.db
      .selectFrom('approvals')
      .select(['id', 'status'])
      .where('id', 'in', acted)
      .execute();
    return new Map(rows.map((r) => [r.id, r.status]));
  });
  const results = outcomes.map(({ id, approvalId, error }) =>
    approvalId === null
      ? { id, success: false, status: null, error }
      : { id, success: true, status: statuses.get(approvalId) ?? null, error: null },
  );
  const succeeded = results.filter((r) => r.success).length;
  return { results, summary: { processed: results.length, succeeded, failed: results.length - succeeded } };
}

/** POST /approvals/bulk-approve: every bill of each PENDING approval. */
export async function bulkApproveApprovals(app: AppServices, actor: Actor | null, body: unknown) {
  authorize(actor, 'approvals.write');
  const { ids } = parseInput(BulkApproveInput, body);
  return bulk(app, actor, ids, (approvalId, ctx) => approveOne(app, actor, approvalId, 'all', ctx));
}

/** POST /approvals/bulk-reject: one reason for all. */
export async function bulkRejectApprovals(app: AppServices, actor: Actor | null, body: unknown) {
  authorize(actor, 'approvals.write');
  const { ids, reason } = parseInput(BulkRejectInput, body);
  return bulk(app, actor, ids, (approvalId, ctx) =>
    onApproval(
      app,
      actor,
      approvalId,
      { type: 'RejectApproval', reason, byUserId: actor.id, now: new Date().toISOString() },
      ctx,
    ),
  );
}
