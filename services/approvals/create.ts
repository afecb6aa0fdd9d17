// POST /approvals: the bills read afresh from QuickBooks and checked, claimed on the company's
// approvalbills stream (one open approval per bill, the duplicate guard), then the approval recorded
// with their snapshot; a create that fails frees its claim at once. While QuickBooks asks to wait (its
// limits), the bills are taken as the company's copy holds them: the money is checked against
// QuickBooks again when the NACHA file is made, which re-reads each bill's balance.
import { randomUUID } from 'node:crypto';
import { CreateApprovalInput } from '../../schema/approvals/commands.js';
import type { ApprovalEvent, VendorContact } from '../../schema/approvals/events.js';
import type { AppServices } from '../app/context.js';
import { requireCompanyInScope } from '../app/staff-scope.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { billProblem, snapshotOf } from '../quickbooks/bills.js';
import { cleanQbText } from '../quickbooks/clean.js';
import { AppError, parseInput } from '../shared/errors.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from './approval-decider.js';
import { approvalBillsDecider } from './bills-decider.js';
import { liveCompany, requireManager } from './checks.js';
import { answerApproval } from './command.js';
import {
  fetchQbBills,
  fingerprintOf,
  inactiveVendors,
  paidLookalikes,
  syncedContacts,
  vendorProblem,
} from './qb-bills.js';
import { releaseBills } from './release.js';
import type { ApprovalDto } from './rows.js';

const text = (v: unknown, max = 500) => cleanQbText(v, max);

/** POST /approvals: fetch the bills from QuickBooks, claim them, and record the approval with its snapshot. */
export async function createApproval(
  app: AppServices,
  actor: Actor | null,
  body: unknown,
  options: { expiresInMs?: number } = {},
): Promise<ApprovalDto> {
  authorize(actor, 'approvals.write');
  const input = parseInput(CreateApprovalInput, body);
  await liveCompany(app, input.companyId);
  await requireCompanyInScope(app, actor, input.companyId);
  if (input.managerId !== undefined) await requireManager(app, input.managerId);
  const ctx = commandContext(actor);
  const { bills, vendors, attachables, read } = await fetchQbBills(app, input.companyId, ctx, input.billIds);
  const byId = new Map(bills.map((b) => [b.Id, b]));
  const missing = input.billIds.filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw new AppError('VALIDATION', `Not found in QuickBooks: bill ${missing.join(', ')}`, [
      { field: 'billIds', message: `Not found in QuickBooks: ${missing.join(', ')}` },
    ]);
  const paid = input.billIds.filter((id) => !(Number(byId.get(id)!.Balance) > 0));
  if (paid.length > 0)
    throw new AppError('VALIDATION', `Already paid in QuickBooks: bill ${paid.join(', ')}`, [
      { field: 'billIds', message: `Already paid: ${paid.join(', ')}` },
    ]);
  const ordered = input.billIds.map((id) => byId.get(id)!);
  const inactive = await inactiveVendors(app, input.companyId, ordered, vendors);
  const refused = ordered
    .map((b) => ({ id: b.Id, reason: billProblem(b) ?? vendorProblem(b, inactive) }))
    .filter((r): r is { id: string; reason: string } => r.reason !== null);
  if (refused.length > 0) {
    const said = refused.map((r) => `bill ${r.id}: ${r.reason}`).join('; ');
    throw new AppError('VALIDATION', `Billflow cannot pay these QuickBooks bills (${said})`, [
      { field: 'billIds', message: said },
    ]);
  }
  const snapshots = ordered.map((b) => snapshotOf(b, vendors.get(b.VendorRef.value), attachables.get(b.Id)));
  const vendorIds = [...new Set(ordered.map((b) => b.VendorRef.value))];
  // The copy keeps no personal fields: taken from it, the contacts are the last vendor sync's.
  const synced = read.from === 'copy' ? await syncedContacts(app, input.companyId, vendorIds) : null;
  const contacts: VendorContact[] = vendorIds.map((v) => ({
    qbVendorId: v,
    email: text(synced ? synced.get(v)?.email : vendors.get(v)?.PrimaryEmailAddr?.Address, 254),
    phone: text(synced ? synced.get(v)?.phone : vendors.get(v)?.PrimaryPhone?.FreeFormNumber, 40),
  }));
  const paidLike = await paidLookalikes(
    app,
    input.companyId,
    ctx,
    ordered,
    read.from === 'copy' ? read.realmId : null,
  );
  const now = new Date();
  const claim = await app.commands.handle(
    approvalBillsDecider,
    approvalBillsDecider.streamId(input.companyId),
    {
      type: 'ClaimBills',
      companyId: input.companyId,
      approvalId: randomUUID(),
      bills: ordered.map((b) => ({ billId: b.Id, fingerprint: fingerprintOf(b) })),
      paidLookalikes: [...paidLike].map(([billId, matchesBillId]) => ({ billId, matchesBillId })),
      confirmDuplicates: input.confirmDuplicates,
      now: now.toISOString(),
    },
    ctx,
  );
  const claimed = claim.events.find((e) => e.type === 'ApprovalBillsClaimed');
  if (claimed?.type !== 'ApprovalBillsClaimed') throw new Error('ClaimBills claimed nothing');
  // The approval the claim was made for: on a retry with the same Idempotency-Key (after a 503, say)
  // the stored claim's, so the retry finds that approval instead of creating a second one.
  const { approvalId, confirmedDuplicates } = claimed.data;
  const expiresAt = new Date(
    now.getTime() + (options.expiresInMs ?? app.config.APPROVAL_EXPIRY_SECONDS * 1000),
  );
  let created: Awaited<ReturnType<typeof app.commands.handle<ApprovalState, unknown, ApprovalEvent>>>;
  try {
    created = await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      {
        type: 'CreateApproval',
        approvalId,
        companyId: input.companyId,
        priority: input.priority,
        managerId: input.managerId ?? null,
        byUserId: actor.id,
        bills: snapshots,
        vendorContacts: contacts,
        recipients: input.recipients,
        confirmedDuplicates,
        expiresAt: expiresAt.toISOString(),
        now: now.toISOString(),
      },
      ctx,
    );
  } catch (err) {
    // The claim must not outlive a create that failed: free the bills at once (the process manager's
    // check does it later if this process dies first).
    await releaseBills(
      app,
      input.companyId,
      [{ approvalId, billIds: input.billIds }],
      'abandoned',
      commandContext(actor),
    ).catch(() => {});
    throw err;
  }
  return answerApproval(app, approvalId, created.position, created.state);
}
