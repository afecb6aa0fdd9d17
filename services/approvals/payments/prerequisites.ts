// What a payment will need, checked before any money moves and shown on the approval from the day it
// is made: the company's NACHA settings; where the company is connected to QuickBooks, a payment
// account that is an active bank account (without it the bank pays and the books never hear of it),
// whose balance is not negative or absurd; each vendor synced, active, with banking a file can hold.
// A `blocking` one stops the file (the generation refuses it, named); the others are the vendor's,
// whose bills the file waits for, or a warning to look at.
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import type { BillSnapshot } from '../../../schema/approvals/events.js';
import type { PaymentPrerequisite } from '../../../schema/approvals/payment-answers.js';
import type { AppServices } from '../../app/context.js';
import { qbStringList } from '../../quickbooks/query-text.js';
import { vendorsForNacha, vendorsOf } from './nacha-sources.js';

type Prerequisite = z.infer<typeof PaymentPrerequisite>;

/** Above this a payment account's balance is no figure a bank account holds: someone should look. */
export const ABSURD_BALANCE = 1_000_000_000;

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** What QuickBooks said of a payment account, kept a minute: a detail's reads ask it at most that often. */
const recentChecks = new LRUCache<string, Prerequisite[]>({ max: 5_000, ttl: 60_000 });

/** The payment account as QuickBooks has it now, or why it cannot be used. */
async function paymentAccountCheck(
  app: AppServices,
  companyId: number,
  name: string,
  reference: string,
): Promise<Prerequisite[]> {
  const key = `${companyId}:${reference}`;
  const known = recentChecks.get(key);
  if (known) return known;
  const found = await askPaymentAccount(app, companyId, name, reference);
  if (found) recentChecks.set(key, found);
  return found ?? [];
}

/** null: QuickBooks did not answer (no claim either way, nothing kept). */
async function askPaymentAccount(
  app: AppServices,
  companyId: number,
  name: string,
  reference: string,
): Promise<Prerequisite[] | null> {
  let account:
    | { Active?: boolean; AccountType?: string; CurrentBalance?: unknown; Name?: string }
    | undefined;
  try {
    const access = await app.quickbooks.access(companyId, { userId: null });
    const r = await access.client.query<{ Account?: Array<typeof account & object> }>(
      access.isSandbox,
      access.realmId,
      access.auth,
      `select * from Account where Id in (${qbStringList([reference])})`,
    );
    account = r.QueryResponse.Account?.[0];
  } catch (err) {
    // QuickBooks not answering now (throttled, down, disconnected) is no fact about the account:
    // nothing is claimed either way.
    app.log.warn({ companyId, err: (err as Error).message }, 'payment account not checked');
    return null;
  }
  if (!account || account.Active === false || account.AccountType !== 'Bank')
    return [
      {
        kind: 'payment-account',
        blocking: true,
        vendorName: null,
        message: `${name}'s payment account is no longer an active bank account in QuickBooks: choose another in the company settings`,
      },
    ];
  const balance = Number(account.CurrentBalance);
  if (!Number.isFinite(balance) || balance < 0 || balance > ABSURD_BALANCE)
    return [
      {
        kind: 'account-balance',
        blocking: false,
        vendorName: null,
        message: `${name}'s payment account${account.Name ? ` (${account.Name})` : ''} shows a balance of ${
          Number.isFinite(balance) ? USD.format(balance) : 'no valid amount'
        } in QuickBooks: check the account before the bank pays`,
      },
    ];
  return [];
}

/**
 * The company's part: where it is connected to QuickBooks, a payment account that is an active bank
 * account (`live`: asked of QuickBooks, with its balance). The NACHA settings are checked with the
 * file's other sources (nacha-sources.ts).
 */
export async function paymentAccountPrerequisites(
  app: AppServices,
  companyId: number,
  opts: { live: boolean },
): Promise<Prerequisite[]> {
  const row = await app.db
    .selectFrom('companies')
    .select(['name', 'qb_connection_status', 'qb_payment_account_reference'])
    .where('id', '=', companyId)
    .executeTakeFirst();
  if (row?.qb_connection_status !== 'connected') return [];
  const reference = row.qb_payment_account_reference;
  if (!reference)
    return [
      {
        kind: 'payment-account',
        blocking: true,
        vendorName: null,
        message: `${row.name} has no payment account: choose its QuickBooks bank account in the company settings, or the bank would pay bills QuickBooks never records`,
      },
    ];
  return opts.live ? paymentAccountCheck(app, companyId, row.name, reference) : [];
}

/**
 * The prerequisites of paying these bills. `live`: also ask QuickBooks about the payment account (at
 * approval, generation and a detail's read, at most once a minute per account).
 */
export async function paymentPrerequisites(
  app: AppServices,
  companyId: number,
  bills: ReadonlyArray<Pick<BillSnapshot, 'VendorRef'>>,
  opts: { live: boolean },
): Promise<Prerequisite[]> {
  const [company, account, vendors] = await Promise.all([
    app.achFiles.company(companyId),
    paymentAccountPrerequisites(app, companyId, opts),
    vendorsForNacha(app, companyId, vendorsOf(bills as BillSnapshot[])),
  ]);
  const out: Prerequisite[] = [];
  if ('problem' in company)
    out.push({ kind: 'nacha-settings', blocking: true, vendorName: null, message: company.problem.message });
  out.push(...account);
  for (const p of vendors.problems)
    out.push({ kind: 'vendor', blocking: false, vendorName: p.vendorName, message: p.message });
  for (const b of vendors.blocked)
    out.push({ kind: 'vendor', blocking: false, vendorName: b.name, message: `${b.name}: ${b.reason}` });
  return out;
}
