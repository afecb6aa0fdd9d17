// PUT /approvals/{id}/approve: the approved subset, judged by the decider on the company's policy
// as its own stream holds it, and refused when nobody could confirm the payment (no manager with an
// e-mail address, no recipients); the bills left out are freed. The vendors' live banking, as the
// approver is shown it, is recorded by fingerprint: a file pays nothing else (decision 0033). A chosen
// effective entry date is checked against the calendar first and goes on record with the approval.
import { ApproveApprovalInput } from '../../schema/approvals/commands.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { answerApproval } from './command.js';
import { asApproved, liveBankingOf, vendorsOfApproval } from './payments/approved-banking.js';
import { checkedEffectiveDate } from './payments/chosen-date.js';
import { policyOf } from './policy.js';
import { releaseFor } from './release.js';
import { parseApprovalId, requireActionableRow } from './rows.js';

export async function approveOne(
  app: AppServices,
  actor: Actor,
  approvalId: string,
  billIds: string[] | 'all',
  ctx: CommandContext,
  chosenDate?: string,
) {
  const row = await requireActionableRow(app, actor, approvalId);
  const [policy, live, effectiveDate] = await Promise.all([
    policyOf(app, row.company_id),
    vendorsOfApproval(app, row).then((ids) => liveBankingOf(app, row.company_id, ids)),
    // A date the file could not take is refused before anything is recorded.
    checkedEffectiveDate(app, row.company_id, chosenDate),
  ]);
  const ids = billIds === 'all' ? row.bill_ids : billIds;
  const r = await app.commands.handle(
    approvalDecider,
    approvalStreamId(approvalId),
    {
      type: 'ApproveApproval',
      approvedBillIds: ids,
      byUserId: actor.id,
      policy,
      // The manager as the read model joins it (a deleted manager is none).
      managerEmail: row.manager_id !== null ? (row.m_email ?? null) : null,
      banking: [...live.values()].map(asApproved),
      ...(effectiveDate ? { effectiveDate } : {}),
      now: new Date().toISOString(),
    },
    ctx,
  );
  return { approvalId, ...r };
}

/** PUT /approvals/{id}/approve: the approved subset (approvedBills); ADMIN, MODERATOR. */
export async function approveApproval(app: AppServices, actor: Actor | null, id: unknown, body: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const { approvedBills, effectiveDate } = parseInput(ApproveApprovalInput, body);
  const ctx = commandContext(actor);
  const r = await approveOne(app, actor, approvalId, approvedBills, ctx, effectiveDate);
  // The bills left out are free for another approval.
  if (r.events.some((e) => e.type === 'ApprovalApproved')) await releaseFor(app, approvalId, r.state, ctx);
  return answerApproval(app, approvalId, r.position, r.state);
}
