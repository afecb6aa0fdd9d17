// The bills an approval lets go (rejected, expired, deleted, or approved without them) are freed on
// the company's approvalbills stream; the process manager does it again after a crash.
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import type { ApprovalState } from './approval-decider.js';
import { type ApprovalBillsCommand, approvalBillsDecider } from './bills-decider.js';

export function releaseBills(
  app: AppServices,
  companyId: number,
  releases: Array<{ approvalId: string; billIds: string[] }>,
  reason: Extract<ApprovalBillsCommand, { type: 'ReleaseBills' }>['reason'],
  ctx: CommandContext,
) {
  const wanted = releases.filter((r) => r.billIds.length > 0);
  if (wanted.length === 0) return Promise.resolve(null);
  return app.commands.handle(
    approvalBillsDecider,
    approvalBillsDecider.streamId(companyId),
    { type: 'ReleaseBills', companyId, releases: wanted, reason, now: new Date().toISOString() },
    ctx,
  );
}

/** The bills an approval no longer holds after the event that closed it (none while it stays open). */
export function billsToRelease(state: ApprovalState): {
  billIds: string[];
  reason: 'rejected' | 'expired' | 'deleted' | 'not-approved';
} | null {
  const all = state.bills.map((b) => b.Id);
  if (state.deleted) return { billIds: all, reason: 'deleted' };
  if (state.status === 'REJECTED') return { billIds: all, reason: 'rejected' };
  if (state.status === 'EXPIRED') return { billIds: all, reason: 'expired' };
  if (state.status === 'APPROVED') {
    const approved = new Set(state.approvedBillIds);
    return { billIds: all.filter((id) => !approved.has(id)), reason: 'not-approved' };
  }
  return null;
}

/** Frees what the approval's last event let go (the process manager does it again after a crash). */
export async function releaseFor(
  app: AppServices,
  approvalId: string,
  state: ApprovalState,
  ctx: CommandContext,
) {
  const r = billsToRelease(state);
  if (!r || state.companyId === null) return null;
  return releaseBills(app, state.companyId, [{ approvalId, billIds: r.billIds }], r.reason, ctx);
}
