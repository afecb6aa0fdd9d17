// What an approval's payment file pays, read unsealed at generation time and never written anywhere
// but the encrypted file: each vendor's banking (the vendor's stream), and, where the company is
// connected, the approved bills' open balances afresh from QuickBooks (the company's NACHA settings
// are the payments module's to read: port achFiles). Each missing piece becomes a problem named for the person who can fix it.
import type { NachaProblem } from '../../../schema/approvals/payment-events.js';
import { type AccountType, vendorEvents } from '../../../schema/vendors/events.js';
import type { CommandContext } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import { isRoutingNumber } from '../../nacha/records.js';
import type { QbBill } from '../../quickbooks/bills.js';
import { qbStringList } from '../../quickbooks/query-text.js';
import { eventDecoder } from '../../shared/decider.js';
import type { ApprovalState } from '../approval-decider.js';

// Another module's streams, read through its published events (schema/): a module's services do
// not import another's deciders. Only what a file needs is folded here.
const decodeVendor = eventDecoder(vendorEvents);

export interface Banking {
  routingNumber: string;
  accountNumber: string;
  accountType: AccountType;
  bankName: string | null;
}

interface VendorFold {
  exists: boolean;
  forgotten: boolean;
  name: string | null;
  active: boolean;
  banking: Banking | null;
  /** A change of the banking held for a second look, or frozen (reported as not the vendor's). */
  change: { changeId: string; frozen: boolean } | null;
  /** Blocked after the bank returned a payment: the return's code and words, until a changed account goes live. */
  blocked: { returnCode: string; description: string } | null;
}

/** What a file needs of a vendor, from its stream `vendor-<companyId>-<qbVendorId>` (opened). */
export async function vendorOf(app: AppServices, companyId: number, qbVendorId: string): Promise<VendorFold> {
  const { events } = await app.store.readStream(`vendor-${companyId}-${qbVendorId}`);
  const v: VendorFold = {
    exists: false,
    forgotten: false,
    name: null,
    active: true,
    banking: null,
    change: null,
    blocked: null,
  };
  for (const stored of events) {
    const e = decodeVendor(stored);
    switch (e.type) {
      case 'VendorCreated':
        v.exists = true;
        v.name = e.data.name;
        v.active = e.data.active;
        break;
      case 'VendorChangedInQuickBooks':
        if (e.data.name !== undefined) v.name = e.data.name;
        if (e.data.active !== undefined) v.active = e.data.active;
        break;
      case 'VendorBankingUpdated':
        v.banking = {
          routingNumber: e.data.routingNumber,
          accountNumber: e.data.accountNumber,
          accountType: e.data.accountType,
          bankName: e.data.bankName,
        };
        // The held change went live (approved, or its micro-deposits confirmed).
        if (v.change && e.data.changeId === v.change.changeId) v.change = null;
        break;
      case 'VendorBankingCleared':
        v.banking = null;
        break;
      case 'VendorBankingChangeRequested':
        v.change = { changeId: e.data.changeId, frozen: false };
        break;
      case 'VendorBankingChangeFrozen':
        if (v.change?.changeId === e.data.changeId) v.change = { ...v.change, frozen: true };
        break;
      case 'VendorBankingChangeApproved':
      case 'VendorBankingChangeRejected':
        if (v.change?.changeId === e.data.changeId) v.change = null;
        break;
      case 'VendorBankingBlocked':
        v.blocked = { returnCode: e.data.code, description: e.data.description };
        break;
      case 'VendorBankingUnblocked':
        v.blocked = null;
        break;
      case 'VendorForgotten':
        v.forgotten = true;
        v.name = null;
        v.banking = null;
        v.change = null;
        break;
      default:
        break;
    }
  }
  return v;
}

export interface PayableVendor {
  qbVendorId: string;
  name: string;
  banking: Banking;
  /** A change of its banking waiting ('pending') or reported as not the vendor's ('frozen'). */
  change: 'pending' | 'frozen' | null;
  /** Why its payments are blocked (the bank returned one): held out of every file until its account changes. */
  blocked?: string;
}

const problem = (kind: NachaProblem['kind'], vendorName: string | null, message: string): NachaProblem => ({
  kind,
  vendorName,
  message,
});

/** Why a vendor's bank details cannot be written into a file (routing check digit, account length), or null. */
export function bankingFault(b: Banking): string | null {
  if (!isRoutingNumber(b.routingNumber.trim()))
    return 'its routing number is not a valid 9-digit routing number';
  const account = b.accountNumber?.trim() ?? '';
  if (account.length === 0 || account.length > 17) return 'its account number must be 1 to 17 characters';
  if (!/^[\x20-\x7e]+$/.test(account)) return 'its account number must be printable characters';
  if (b.accountType !== 'checking' && b.accountType !== 'savings')
    return 'its account type must be checking or savings';
  return null;
}

/**
 * Each vendor's banking from its own stream. `payable`: synced, active, with banking that a file can
 * hold; every other vendor is a problem (not synced, forgotten, inactive, no banking, bad banking).
 */
export async function vendorsForNacha(
  app: AppServices,
  companyId: number,
  vendors: ReadonlyArray<{ qbVendorId: string; name: string | null }>,
): Promise<{
  payable: Map<string, PayableVendor>;
  problems: NachaProblem[];
  faulty: NachaProblem[];
  blocked: Array<{ qbVendorId: string; name: string; reason: string }>;
}> {
  const payable = new Map<string, PayableVendor>();
  const blocked: Array<{ qbVendorId: string; name: string; reason: string }> = [];
  const problems: NachaProblem[] = [];
  /** Banking present but not writable into a file (also in `problems`). */
  const faulty: NachaProblem[] = [];
  const loaded = await Promise.all(
    vendors.map(async (v) => ({
      v,
      state: await vendorOf(app, companyId, v.qbVendorId),
    })),
  );
  for (const { v, state } of loaded) {
    const name = state.name ?? v.name ?? `QuickBooks vendor ${v.qbVendorId}`;
    if (!state.exists)
      problems.push(
        problem(
          'vendor-unknown',
          name,
          `${name} is not synced into Billflow: sync the company's vendors, then add its banking`,
        ),
      );
    else if (state.forgotten)
      problems.push(
        problem('vendor-unknown', name, `${name} was forgotten: its banking can no longer be read`),
      );
    else if (!state.active)
      problems.push(
        problem(
          'vendor-inactive',
          name,
          `${name} is inactive: make it active in QuickBooks and sync the vendors`,
        ),
      );
    else if (!state.banking)
      problems.push(problem('vendor-banking', name, `${name} has no banking information`));
    else if (state.blocked)
      // The bank said the account cannot take payments (or someone must look): paying it again would
      // come back the same, or worse, reach an account nobody checked. Held out of the file alone,
      // as a vendor whose banking changed after approval is: the others are paid.
      blocked.push({
        qbVendorId: v.qbVendorId,
        name,
        reason: `payments blocked after the bank returned a payment (${state.blocked.returnCode} ${state.blocked.description}): change the bank details`,
      });
    else {
      const fault = bankingFault(state.banking);
      if (fault) {
        const p = problem('vendor-banking', name, `${name}: ${fault}`);
        problems.push(p);
        faulty.push(p);
      } else
        payable.set(v.qbVendorId, {
          qbVendorId: v.qbVendorId,
          name,
          banking: state.banking,
          change: state.change === null ? null : state.change.frozen ? 'frozen' : 'pending',
        });
    }
  }
  return { payable, problems, faulty, blocked };
}

/** The approval's vendors (approved bills), in the bills' order. */
export function vendorsOf(bills: ApprovalState['bills']) {
  const out = new Map<string, { qbVendorId: string; name: string | null }>();
  for (const b of bills)
    if (!out.has(b.VendorRef.value))
      out.set(b.VendorRef.value, { qbVendorId: b.VendorRef.value, name: b.VendorRef.name });
  return [...out.values()];
}

/**
 * The approved bills' open balances (bill id → balance in dollars, as QuickBooks sent it: checked by
 * payableAmount) read from the company's QuickBooks; a bill QuickBooks no longer has is absent.
 */
export async function qbBalances(
  app: AppServices,
  companyId: number,
  billIds: string[],
  ctx: CommandContext,
): Promise<Map<string, unknown>> {
  const { client, isSandbox, realmId, auth } = await app.quickbooks.access(companyId, ctx);
  const out = new Map<string, unknown>();
  for (let i = 0; i < billIds.length; i += 100) {
    const r = await client.query<{ Bill?: QbBill[] }>(
      isSandbox,
      realmId,
      auth,
      `select * from Bill where Id in (${qbStringList(billIds.slice(i, i + 100))}) MAXRESULTS 1000`,
    );
    for (const b of r.QueryResponse.Bill ?? []) out.set(b.Id, b.Balance);
  }
  return out;
}
