// POST /approvals/{id}/approve-again (decision 0033): an approval already approved, whose file is
// not at the bank yet, records the live banking of the vendors whose banking changed after approval
// (the approver is shown the new tails on the detail first), so Regenerate makes a file that pays it.
// The same roles and segregation rule as approve: ADMIN or MODERATOR, in the staff scope, not the
// creator when the company's policy says so.
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { maskTail } from '../shared/masking.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { answerApproval } from './command.js';
import { asApproved, liveBankingOf, vendorsOfApproval } from './payments/approved-banking.js';
import { policyOf } from './policy.js';
import { parseApprovalId, requireActionableRow } from './rows.js';

export async function approveBankingAgain(app: AppServices, actor: Actor | null, id: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const row = await requireActionableRow(app, actor, approvalId);
  const [policy, live] = await Promise.all([
    policyOf(app, row.company_id),
    vendorsOfApproval(app, row).then((ids) => liveBankingOf(app, row.company_id, ids)),
  ]);
  const r = await app.commands.handle(
    approvalDecider,
    approvalStreamId(approvalId),
    {
      type: 'ApproveBankingAgain',
      byUserId: actor.id,
      policy,
      banking: [...live.values()].map(asApproved),
      vendorNames: Object.fromEntries([...live].map(([qbVendorId, v]) => [qbVendorId, v.name])),
      now: new Date().toISOString(),
    },
    commandContext(actor),
  );
  const vendors = r.events.flatMap((e) => (e.type === 'ApprovalBankingReapproved' ? e.data.vendors : []));
  const approval = await answerApproval(app, approvalId, r.position, r.state);
  const which = vendors
    .map(
      (v) =>
        `${v.vendorName ?? `QuickBooks vendor ${v.qbVendorId}`} (account ${maskTail(v.accountLast4, 8)})`,
    )
    .join(', ');
  return {
    approval,
    message: `Approved again: ${which}. Regenerate makes a file that pays ${vendors.length === 1 ? 'it' : 'them'}`,
  };
}
