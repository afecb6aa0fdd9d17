// A company's QuickBooks bills as an approval takes them: the open ones from its bill copy (the /bills
// screen), the chosen ones read afresh (create; from the copy while QuickBooks asks to wait), the paid
// look-alikes, the inactive vendors. The QuickBooks side (queries, the bill's checks and snapshot) is
// services/quickbooks/bills.ts.
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import {
  amountOf,
  billsByDocNumber,
  type QbAttachableRow,
  type QbBill,
  type QbVendorRow,
  readQbBills,
  usableBill,
} from '../quickbooks/bills.js';
import { cleanQbText } from '../quickbooks/clean.js';
import { QbApiError, QbGrantError, QbThrottledError } from '../quickbooks/client.js';
import { AppError } from '../shared/errors.js';
import { billCopyFor, billsInCopy, hasBillCopy, paidInCopy } from './bill-copy.js';
import { billFingerprint } from './bills-decider.js';

const text = (v: unknown, max = 500) => cleanQbText(v, max);

/**
 * The QuickBooks vendors of these bills that are inactive, in QuickBooks (deleted there too: Intuit
 * makes a deleted vendor inactive) or in Billflow's vendors read model (as the last sync found it).
 * qb vendor id → its name as said in a refusal.
 */
export async function inactiveVendors(
  app: AppServices,
  companyId: number,
  bills: ReadonlyArray<QbBill>,
  vendors: ReadonlyMap<string, QbVendorRow>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ids = [...new Set(bills.map((b) => b.VendorRef.value))];
  if (ids.length === 0) return out;
  const synced = await app.db
    .selectFrom('vendors')
    .select(['qb_vendor_id', 'name'])
    .where('company_id', '=', companyId)
    .where('qb_vendor_id', 'in', ids)
    .where('active', '=', false)
    .execute();
  const inactiveHere = new Map(synced.map((r) => [r.qb_vendor_id, r.name]));
  for (const b of bills) {
    const id = b.VendorRef.value;
    const qbVendor = vendors.get(id);
    if (qbVendor?.Active !== false && !inactiveHere.has(id)) continue;
    const name =
      text(qbVendor?.DisplayName, 255) ?? text(b.VendorRef.name, 255) ?? inactiveHere.get(id) ?? null;
    out.set(id, name ? `${name} (QuickBooks vendor ${id})` : `QuickBooks vendor ${id}`);
  }
  return out;
}

/** Why a bill's vendor cannot be paid, or null. */
export const vendorProblem = (b: QbBill, inactive: ReadonlyMap<string, string>) => {
  const v = inactive.get(b.VendorRef.value);
  return v === undefined ? null : `its vendor ${v} is inactive`;
};

/** A QuickBooks refusal or outage, said as the caller can act on it. */
export function qbFailure(err: unknown): never {
  if (err instanceof AppError) throw err;
  if (err instanceof QbGrantError)
    throw new AppError('CONFLICT', 'QuickBooks no longer accepts this connection. Please connect again.');
  if (err instanceof QbApiError) throw new AppError('UNAVAILABLE', `QuickBooks: ${err.message}`);
  throw err;
}

/**
 * The company's open bills and their vendors for the /bills screen, from its copy kept fresh by
 * QuickBooks' CDC (services/approvals/bill-copy.ts) instead of a fresh list per view. While
 * QuickBooks asks to wait (its limits), the copy as it stands, with its age and the wait; a company
 * without a copy yet gets the refusal (503). Filtered as fetchQbBills filters QuickBooks' answer; the
 * caller cleans what it shows.
 */
export async function openBillsFromCopy(
  app: AppServices,
  companyId: number,
  ctx: CommandContext,
  refresh: boolean,
) {
  try {
    const copy = await billCopyFor(app, companyId, ctx, refresh ? 'cdc' : undefined, {
      keptWhileThrottled: true,
    });
    const bills = (copy.bills as unknown as QbBill[]).filter(usableBill);
    const wanted = new Set(bills.map((b) => b.VendorRef.value));
    const vendors = new Map<string, QbVendorRow>();
    for (const v of copy.vendors as unknown as QbVendorRow[])
      if (typeof v.Id === 'string' && wanted.has(v.Id)) vendors.set(v.Id, v);
    return { bills, vendors, realmId: copy.realmId, asOf: copy.asOf, retryAfterMs: copy.retryAfterMs };
  } catch (err) {
    qbFailure(err);
  }
}

/** Where a create's bills were read: QuickBooks now, or the company's copy while QuickBooks asks to wait. */
export type BillsRead =
  | { from: 'quickbooks'; realmId: string }
  | { from: 'copy'; realmId: string; asOf: Date; retryAfterMs: number };

/**
 * Bills by id, their vendors and their attachables, read afresh from the company's QuickBooks. While
 * QuickBooks asks to wait (its limits), the bills and vendors of the company's copy instead (no
 * attachables: the copy keeps none), when the copy holds every bill asked for; otherwise the refusal
 * (503): only QuickBooks can say what a bill the copy lacks is.
 */
export async function fetchQbBills(
  app: AppServices,
  companyId: number,
  ctx: CommandContext,
  billIds: string[],
): Promise<{
  bills: QbBill[];
  vendors: Map<string, QbVendorRow>;
  attachables: Map<string, QbAttachableRow>;
  read: BillsRead;
}> {
  try {
    const { client, isSandbox, realmId, auth } = await app.quickbooks.access(companyId, ctx);
    try {
      const fresh = await readQbBills((query) => client.query(isSandbox, realmId, auth, query), billIds);
      return { ...fresh, read: { from: 'quickbooks', realmId } };
    } catch (err) {
      if (!(err instanceof QbThrottledError)) throw err;
      const kept = await billsInCopy(app, companyId, realmId, billIds);
      const bills = ((kept?.bills ?? []) as unknown as QbBill[]).filter(usableBill);
      if (!kept || billIds.some((id) => !bills.some((b) => b.Id === id))) throw err;
      const vendors = new Map<string, QbVendorRow>();
      for (const v of kept.vendors as unknown as QbVendorRow[])
        if (typeof v.Id === 'string') vendors.set(v.Id, v);
      return {
        bills,
        vendors,
        attachables: new Map(),
        read: { from: 'copy', realmId, asOf: kept.asOf, retryAfterMs: err.retryAfterMs },
      };
    }
  } catch (err) {
    qbFailure(err);
  }
}

/**
 * The vendors' e-mail and phone as Billflow's vendors read model holds them (the last vendor sync):
 * a create from the copy takes them from there, as the copy keeps no personal fields.
 * qb vendor id → its contact.
 */
export async function syncedContacts(app: AppServices, companyId: number, qbVendorIds: string[]) {
  const out = new Map<string, { email: string | null; phone: string | null }>();
  if (qbVendorIds.length === 0) return out;
  const rows = await app.db
    .selectFrom('vendors')
    .select(['qb_vendor_id', 'email', 'phone'])
    .where('company_id', '=', companyId)
    .where('qb_vendor_id', 'in', qbVendorIds)
    .execute();
  for (const r of rows) out.set(r.qb_vendor_id, { email: r.email, phone: r.phone });
  return out;
}

// The document number as cleaned for the snapshot: a NUL or lone surrogate never reaches an event.
export const fingerprintOf = (b: {
  VendorRef: { value: string };
  TotalAmt: number;
  DocNumber?: string | null;
}) =>
  billFingerprint({
    vendorId: b.VendorRef.value,
    amount: amountOf(b.TotalAmt),
    docNumber: text(b.DocNumber, 40),
  });

/**
 * Bills that look like a bill (other id) already paid in QuickBooks: the same vendor, amount and
 * document number, balance zero. Looked up by document number (bills without one are not compared:
 * every same-amount bill of a vendor would match). bill id → the paid bill's id.
 */
export async function paidLookalikes(
  app: AppServices,
  companyId: number,
  ctx: CommandContext,
  bills: ReadonlyArray<{
    Id: string;
    DocNumber?: string | null;
    TotalAmt: number;
    VendorRef: { value: string };
  }>,
  /** The realm of the company's bill copy: the paid bills are looked up there, not in QuickBooks. */
  copyRealmId: string | null = null,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  // Cleaned: a lone surrogate cannot be put in a query's URL (it answered 500 on /bills).
  const docs = [...new Set(bills.map((b) => text(b.DocNumber, 40)).filter((d): d is string => !!d))];
  if (docs.length === 0) return out;
  try {
    const found: QbBill[] = [];
    if (copyRealmId !== null)
      found.push(...((await paidInCopy(app, companyId, copyRealmId, docs)) as unknown as QbBill[]));
    else {
      const { client, isSandbox, realmId, auth } = await app.quickbooks.access(companyId, ctx);
      try {
        found.push(
          ...(await billsByDocNumber((query) => client.query(isSandbox, realmId, auth, query), docs)),
        );
      } catch (err) {
        // While QuickBooks asks to wait, the paid bills of the company's copy answer instead.
        if (!(err instanceof QbThrottledError && (await hasBillCopy(app, companyId, realmId)))) throw err;
        found.push(...((await paidInCopy(app, companyId, realmId, docs)) as unknown as QbBill[]));
      }
    }
    const paid = new Map<string, string>();
    for (const f of found) if (!(Number(f.Balance) > 0)) paid.set(fingerprintOf(f), f.Id);
    for (const b of bills) {
      const match = paid.get(fingerprintOf(b));
      if (match !== undefined && match !== b.Id) out.set(b.Id, match);
    }
    return out;
  } catch (err) {
    qbFailure(err);
  }
}
