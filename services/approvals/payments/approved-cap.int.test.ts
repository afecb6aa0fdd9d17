// Never more than was approved, end to end on Postgres, Redis, the workers and the QuickBooks
// simulator: bills whose balance QuickBooks raised after the approval are paid at the approved
// balance, by the NACHA file and by the QuickBooks BillPayment alike; a bill whose balance there is
// not a number, or below zero, is left out of the file and named, and not paid in QuickBooks, a
// failure saying why. Its own company, vendors and approvals: no other file's data is shared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, signIn } from '../../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../../test/support/payments.js';
import type { QbBill, Realm } from '../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../tools/qbo-sandbox/server.js';
import { parseAchFile } from '../../nacha/parser.js';
import { validateAchFile } from '../../nacha/validator.js';
import type { QbBillPayment } from '../../quickbooks/client.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';
import { NO_VALID_BALANCE } from './approved-amount.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-cap', clientSecret: 'cap-secret-value-5150' };
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let adminId = 0;
let companyId = 0;
let realmId = '';
let realm: Realm;
/** Open bills of synced vendors, by vendor, most bills first; each bill used once. */
let byVendor: QbBill[][] = [];
const vendorIds = new Map<string, number>();

const cents = (dollars: number) => Math.round(dollars * 100);

/** The bill's open balance in QuickBooks from now on, as a person's edit (or a broken answer) leaves it. */
async function setQbBalance(billId: string, balance: unknown) {
  const r = await fetch(`${sim.url}/__sim/bills/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ realmId, billId, balance }),
  });
  expect(r.status).toBe(200);
}

async function qbGet<T>(path: string): Promise<T> {
  const access = await t.started.app.quickbooks.access(companyId, { userId: null });
  return access.client.get<T>(access.isSandbox, access.realmId, access.auth, path);
}

async function setBanking(qbVendorId: string, account: string) {
  const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(qbVendorId)}/banking`, {
    body: { routingNumber: '011000015', accountNumber: account, accountType: 'checking', bankName: 'BofA' },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** Created (the bills' snapshot taken), then QuickBooks changes, then approved: the file is asked for. */
async function approveAfter(billIds: string[], changeInQuickBooks: () => Promise<void>) {
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds, recipients: ['payables@billflow.test'] },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const id = c.body.data.id as string;
  await changeInQuickBooks();
  const a = await api(t.url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: billIds }, token: admin });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return id;
}

const stateOf = async (id: string) =>
  (await t.started.app.commands.load(approvalDecider, approvalStreamId(id))).state;

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  const signedIn = await signIn(t.url, t.admin.email, t.admin.password);
  admin = signedIn.tokens.accessToken;
  adminId = signedIn.user.id;
  ({ companyId, realmId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Capped Cabinetry',
  }));
  const bank = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  for (const v of await syncVendors(t.url, admin, companyId)) vendorIds.set(v.qbVendorId, v.id);
  const open = new Map<string, QbBill[]>();
  for (const b of realm.bills)
    if (b.Balance > 0 && vendorIds.has(b.VendorRef.value))
      open.set(b.VendorRef.value, [...(open.get(b.VendorRef.value) ?? []), b]);
  byVendor = [...open.values()].sort((x, y) => y.length - x.length);
  expect(byVendor[0].length + byVendor[1].length).toBeGreaterThanOrEqual(7);
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

/** `n` open bills, from the vendors with most, each given banking; none taken twice. */
function take(n: number): QbBill[] {
  const out: QbBill[] = [];
  for (const bills of byVendor) while (out.length < n && bills.length > 0) out.push(bills.shift()!);
  expect(out).toHaveLength(n);
  return out;
}

describe('never more than was approved', () => {
  it('the NACHA file pays a raised bill its approved balance, and names a bill whose balance is no amount', async () => {
    const [raised, plain, notANumber, negative] = take(4);
    for (const v of new Set([raised, plain, notANumber, negative].map((b) => b.VendorRef.value)))
      await setBanking(v, `5566${v.padStart(7, '0')}`);
    const id = await approveAfter(
      [raised, plain, notANumber, negative].map((b) => b.Id),
      async () => {
        await setQbBalance(raised.Id, raised.Balance + 1000);
        await setQbBalance(notANumber.Id, 'n/a');
        await setQbBalance(negative.Id, -25);
      },
    );
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.nachaProblems).toEqual([]);
    expect(d.status).toBe('NACHA_GENERATED');
    expect(d.nachaSkippedBills).toEqual([
      { billId: notANumber.Id, docNumber: notANumber.DocNumber, reason: NO_VALID_BALANCE },
      { billId: negative.Id, docNumber: negative.DocNumber, reason: NO_VALID_BALANCE },
    ]);
    const approvedCents = cents(raised.Balance) + cents(plain.Balance);
    expect(Math.round(d.nachaTotalAmount * 100)).toBe(approvedCents);
    const res = await fetch(`${t.url}${d.nachaFileUrl}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(validateAchFile(text)).toEqual([]);
    const file = parseAchFile(text);
    const entries = file.batches[0].entries;
    expect(entries.reduce((sum, e) => sum + e.amountCents, 0)).toBe(approvedCents);
    expect(file.control.totalCreditCents).toBe(approvedCents);
    const raisedEntry = entries.find((e) =>
      e.addenda[0].paymentRelatedInformation.includes(raised.DocNumber),
    )!;
    const withRaised = [raised, plain].filter((b) => b.VendorRef.value === raised.VendorRef.value);
    expect(raisedEntry.amountCents).toBe(withRaised.reduce((sum, b) => sum + cents(b.Balance), 0));
    for (const b of [notANumber, negative])
      for (const e of entries) expect(e.addenda[0].paymentRelatedInformation).not.toContain(b.DocNumber);
  });

  it('the QuickBooks BillPayment of a raised bill is its approved balance; a bill the file left out is not paid', async () => {
    const [raised, plain, notANumber, negative] = take(4);
    for (const v of new Set([raised, plain, notANumber, negative].map((b) => b.VendorRef.value)))
      await setBanking(v, `7788${v.padStart(7, '0')}`);
    const id = await approveAfter(
      [raised, plain, notANumber, negative].map((b) => b.Id),
      async () => {
        await setQbBalance(raised.Id, raised.Balance + 500);
        await setQbBalance(notANumber.Id, 'n/a');
        await setQbBalance(negative.Id, -25);
      },
    );
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.status, JSON.stringify(d.nachaProblems)).toBe('NACHA_GENERATED');
    const now = () => new Date().toISOString();
    const handle = (command: Parameters<typeof approvalDecider.decide>[0]) =>
      t.started.app.commands.handle(approvalDecider, approvalStreamId(id), command, {
        userId: String(adminId),
      });
    await handle({ type: 'MarkBankUploaded', byUserId: adminId, link: null, now: now() });
    await handle({ type: 'MarkPaymentCompleted', byUserId: adminId, link: null, now: now() });
    // The workers start the sync and pay the bills.
    let sync = (await stateOf(id)).payment.qbSync;
    for (
      let i = 0;
      i < 300 && (sync.status === null || sync.status === 'PENDING' || sync.status === 'SYNCING');
      i++
    ) {
      await new Promise((res) => setTimeout(res, 50));
      sync = (await stateOf(id)).payment.qbSync;
    }
    // The file paid two bills: both recorded, the sync complete; the two it left out are not its to pay.
    expect(sync).toMatchObject({ status: 'SUCCESS', attempt: 1 });
    expect([...sync.paidBillIds].sort()).toEqual([raised.Id, plain.Id].sort());

    const results = new Map(
      (await t.started.app.store.readStream(approvalStreamId(id))).events
        .filter((e) => e.type === 'QbBillPaid' || e.type === 'QbBillPaymentFailed')
        .map((e) => {
          const data = e.data as { billId: string; amount: number; billPaymentId?: string; error?: string };
          return [data.billId, data] as const;
        }),
    );
    for (const b of [raised, plain]) {
      const r = results.get(b.Id)!;
      expect(r.amount).toBe(b.Balance);
      const payment = (await qbGet<{ BillPayment: QbBillPayment }>(`billpayment/${r.billPaymentId}`))
        .BillPayment;
      expect(payment).toMatchObject({
        TotalAmt: b.Balance,
        Line: [{ Amount: b.Balance, LinkedTxn: [{ TxnId: b.Id, TxnType: 'Bill' }] }],
      });
    }
    // What QuickBooks added since stays open there, for a person to approve.
    expect((await qbGet<{ Bill: QbBill }>(`bill/${raised.Id}`)).Bill.Balance).toBe(500);
    for (const b of [notANumber, negative]) expect(results.has(b.Id)).toBe(false);
    const paidInQb = (
      (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
        paidBillIds?: string[];
      }>
    ).flatMap((r) => r.paidBillIds ?? []);
    expect(paidInQb.filter((b) => [notANumber.Id, negative.Id].includes(b))).toEqual([]);
  });

  it('QuickBooks records exactly what the uploaded file paid: balances edited, regenerated, set back', async () => {
    const bills = take(5);
    for (const v of new Set(bills.map((b) => b.VendorRef.value)))
      await setBanking(v, `9911${v.padStart(7, '0')}`);
    const id = await approveAfter(
      bills.map((b) => b.Id),
      async () => {},
    );
    expect((await nachaOutcome(t.url, admin, id)).status).toBe('NACHA_GENERATED');
    // Balances edited in QuickBooks, then Regenerate: the file pays the first bill whole, the second
    // $1, and leaves the other three out.
    const [whole, oneDollar, ...leftOut] = bills;
    await setQbBalance(oneDollar.Id, 1);
    await setQbBalance(leftOut[0].Id, 'abc');
    await setQbBalance(leftOut[1].Id, -5);
    await setQbBalance(leftOut[2].Id, 0);
    const r = await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: admin });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = await nachaOutcome(t.url, admin, id, 2);
    expect(d.status, JSON.stringify(d.nachaProblems)).toBe('NACHA_GENERATED');
    const fileCents = cents(whole.Balance) + 100;
    expect(Math.round(d.nachaTotalAmount * 100)).toBe(fileCents);
    expect(d.nachaSkippedBills.map((b: { billId: string }) => b.billId).sort()).toEqual(
      leftOut.map((b) => b.Id).sort(),
    );
    // The balances are set back; the bank takes the file and the payment completes.
    for (const b of bills) await setQbBalance(b.Id, b.Balance);
    const now = () => new Date().toISOString();
    const handle = (command: Parameters<typeof approvalDecider.decide>[0]) =>
      t.started.app.commands.handle(approvalDecider, approvalStreamId(id), command, {
        userId: String(adminId),
      });
    await handle({ type: 'MarkBankUploaded', byUserId: adminId, link: null, now: now() });
    await handle({ type: 'MarkPaymentCompleted', byUserId: adminId, link: null, now: now() });
    let sync = (await stateOf(id)).payment.qbSync;
    for (
      let i = 0;
      i < 300 && sync.status !== 'SUCCESS' && sync.status !== 'FAILED' && sync.status !== 'PARTIAL_SUCCESS';
      i++
    ) {
      await new Promise((res) => setTimeout(res, 50));
      sync = (await stateOf(id)).payment.qbSync;
    }
    expect(sync).toMatchObject({ status: 'SUCCESS' });
    expect([...sync.paidBillIds].sort()).toEqual([whole.Id, oneDollar.Id].sort());
    // In QuickBooks: the bill payments of these five bills sum to the file's credits, $1 for the second.
    const log = (
      (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
        paidBillIds?: string[];
      }>
    ).flatMap((x) => x.paidBillIds ?? []);
    const ids = new Set(bills.map((b) => b.Id));
    expect(log.filter((b) => ids.has(b)).sort()).toEqual([whole.Id, oneDollar.Id].sort());
    const paidEvents = (await t.started.app.store.readStream(approvalStreamId(id))).events.filter(
      (e) => e.type === 'QbBillPaid',
    );
    let qbCents = 0;
    for (const e of paidEvents) {
      const data = e.data as { billPaymentId: string };
      const p = (await qbGet<{ BillPayment: QbBillPayment }>(`billpayment/${data.billPaymentId}`))
        .BillPayment;
      qbCents += cents(Number(p.TotalAmt));
    }
    expect(qbCents).toBe(fileCents);
    expect((await qbGet<{ Bill: QbBill }>(`bill/${oneDollar.Id}`)).Bill.Balance).toBe(
      Math.round((oneDollar.Balance - 1) * 100) / 100,
    );
    for (const b of leftOut)
      expect((await qbGet<{ Bill: QbBill }>(`bill/${b.Id}`)).Bill.Balance).toBe(b.Balance);
  });
});
