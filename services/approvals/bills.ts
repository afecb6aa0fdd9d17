// GET /bills?companyId=: the company's open QuickBooks bills for the /bills screen, each with what
// keeps it out of a new approval (an open approval holding it, a look-alike, a refused amount or an
// inactive vendor) and its vendor's banking readiness. While QuickBooks asks Billflow to wait (its
// limits), the company's copy as it stands answers, saying how old it is and how long the wait is.
import type { z } from 'zod';
import type { ApprovalBillCandidate } from '../../schema/approvals/answers.js';
import { BillsForApprovalInput } from '../../schema/approvals/commands.js';
import type { AppServices } from '../app/context.js';
import { requireCompanyInScope } from '../app/staff-scope.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { billProblem } from '../quickbooks/bills.js';
import { cleanQbId, cleanQbText } from '../quickbooks/clean.js';
import { parseInput } from '../shared/errors.js';
import { bankingFlagsOf, vendorKey } from './banking-flags.js';
import { approvalBillsDecider, findDuplicates } from './bills-decider.js';
import { liveCompany } from './checks.js';
import { achStatuses } from './detail.js';
import {
  fingerprintOf,
  inactiveVendors,
  openBillsFromCopy,
  paidLookalikes,
  vendorProblem,
} from './qb-bills.js';

const text = (v: unknown, max = 500) => cleanQbText(v, max);

export type BillCandidate = z.infer<typeof ApprovalBillCandidate>;

/** As QuickBooks sent it, for the list (a refused bill says why beside it); 0 when not a number. */
const finite = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);

/** GET /bills?companyId=: the company's open QuickBooks bills for the /bills screen. */
export async function billsForApproval(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<BillCandidate[]> {
  authorize(actor, 'approvals.write');
  const { companyId, refresh } = parseInput(BillsForApprovalInput, query);
  await liveCompany(app, companyId);
  await requireCompanyInScope(app, actor, companyId);
  const [{ bills, vendors, realmId, asOf, retryAfterMs }, claims] = await Promise.all([
    openBillsFromCopy(app, companyId, commandContext(actor), refresh === true),
    app.commands.load(approvalBillsDecider, approvalBillsDecider.streamId(companyId)),
  ]);
  const vendorIds = [...new Set(bills.map((b) => b.VendorRef.value))];
  const [ach, flags] = await Promise.all([
    achStatuses(app, companyId, vendorIds),
    // A vendor's bank details changed lately, or a change waiting: shown before its bills are picked.
    bankingFlagsOf(
      app,
      vendorIds.map((qbVendorId) => ({ companyId, qbVendorId })),
    ),
  ]);
  const dups = new Map(
    findDuplicates(
      claims.state,
      bills.map((b) => ({ billId: b.Id, fingerprint: fingerprintOf(b) })),
    ).map((d) => [d.billId, d]),
  );
  const paidLike = await paidLookalikes(app, companyId, commandContext(actor), bills, realmId);
  const inactive = await inactiveVendors(app, companyId, bills, vendors);
  // Said on every bill (the list is the answer): where it came from and how old the copy is.
  const origin = {
    source: retryAfterMs === null ? ('quickbooks' as const) : ('copy' as const),
    copyAsOf: asOf.toISOString(),
    quickbooksRetryAfterSeconds: retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000),
  };
  return bills
    .map((b) => {
      const open = claims.state.open.get(b.Id) ?? null;
      const dup = dups.get(b.Id);
      const a = ach.get(b.VendorRef.value);
      return {
        id: b.Id,
        docNumber: text(b.DocNumber, 40),
        txnDate: text(b.TxnDate, 40),
        dueDate: text(b.DueDate, 40),
        amount: finite(b.TotalAmt),
        balance: finite(b.Balance),
        vendorQbId: cleanQbId(b.VendorRef.value) ?? '',
        refusedReason: billProblem(b) ?? vendorProblem(b, inactive),
        vendorName: text(b.VendorRef.name, 255) ?? text(vendors.get(b.VendorRef.value)?.DisplayName, 255),
        vendorId: a?.vendorId ?? null,
        bankingReady: a?.hasBankingInfo ?? false,
        bankingFlags: flags.get(vendorKey(companyId, b.VendorRef.value)) ?? [],
        inOpenApproval: open !== null,
        openApprovalId: open,
        possibleDuplicate: dup !== undefined || paidLike.has(b.Id),
        duplicateOf: dup
          ? { billId: dup.matchesBillId, approvalId: dup.matchesApprovalId, paid: dup.paid }
          : paidLike.has(b.Id)
            ? { billId: paidLike.get(b.Id)!, approvalId: null, paid: true }
            : null,
        ...origin,
      };
    })
    .sort((x, y) => (x.dueDate ?? '').localeCompare(y.dueDate ?? '') || x.id.localeCompare(y.id));
}
