// The client's BillPayment write path against the QuickBooks simulator: typed,
// TotalAmt required, requestid of at most 50 characters refused in code, the same requestid answered
// once (a retried 5xx pays once), a stale SyncToken (5010) its own error, one chosen bill failed by
// a fault rule while the others are paid.
import OAuthClient from 'intuit-oauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { grantFromConsent } from '../../tools/qbo-sandbox/connect.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import {
  QB_REQUEST_ID_MAX,
  QbApiError,
  type QbBillPaymentInput,
  QbStaleObjectError,
  QuickBooksClient,
} from './client.js';

let sim: QboSandbox;
const app = { clientId: 'payments-app', clientSecret: 'payments-secret' };
const redirectUri = 'http://127.0.0.1:9/callback';
let client: QuickBooksClient;
let realm: Realm;
let token = '';

const connect = () => grantFromConsent(sim.url, app, redirectUri);

const simPost = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const paymentFor = (bills: QbBill[]): QbBillPaymentInput => ({
  VendorRef: { value: bills[0].VendorRef.value },
  PayType: 'Check',
  CheckPayment: { BankAccountRef: { value: realm.accounts.find((a) => a.AccountType === 'Bank')!.Id } },
  TotalAmt: Math.round(bills.reduce((s, b) => s + b.Balance, 0) * 100) / 100,
  Line: bills.map((b) => ({ Amount: b.Balance, LinkedTxn: [{ TxnId: b.Id, TxnType: 'Bill' as const }] })),
});
const pay = (payment: QbBillPaymentInput, requestId: string) =>
  client.createBillPayment(true, realm.realmId, token, payment, requestId);
const billNow = async (id: string) =>
  (await client.get<{ Bill: QbBill }>(true, realm.realmId, token, `bill/${id}`)).Bill;
const paymentCalls = async () =>
  ((await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{ path: string }>).filter(
    (r) => r.path.endsWith('/billpayment'),
  );

beforeAll(async () => {
  OAuthClient.retryConfig.maxRetries = 0;
  sim = await startQboSandbox({ clients: [app], ratePerMinute: 10_000, concurrentPerRealm: 50 });
  client = new QuickBooksClient({ oauthBase: sim.url, apiBase: sim.url, retries: 2, retryBaseMs: 10 });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(async () => {
  await simPost('/__sim/reset', {});
  const c = await connect();
  token = c.accessToken;
  realm = sim.realms().find((r) => r.realmId === c.realmId)!;
});

describe('createBillPayment', () => {
  it('pays a bill: POST billpayment with requestid and minorversion 75; the bill’s balance is 0', async () => {
    const bill = realm.bills[0];
    const paid = await pay(paymentFor([bill]), 'bf-pay-1');
    expect(paid).toMatchObject({
      PayType: 'Check',
      TotalAmt: bill.Balance,
      VendorRef: { value: bill.VendorRef.value },
      Line: [{ Amount: bill.Balance, LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }] }],
    });
    expect(paid.Id).toMatch(/^\d+$/);
    expect((await billNow(bill.Id)).Balance).toBe(0);
    const calls = await paymentCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ requestId: 'bf-pay-1' });
  });

  it('refuses in code, before any call: no TotalAmt, no lines, a requestid over 50 characters or none', async () => {
    const bill = realm.bills[0];
    const { TotalAmt: _t, ...noTotal } = paymentFor([bill]);
    await expect(pay(noTotal as QbBillPaymentInput, 'bf-x')).rejects.toThrow(/TotalAmt/);
    await expect(pay({ ...paymentFor([bill]), Line: [] }, 'bf-x')).rejects.toThrow(/line/);
    const long = 'r'.repeat(QB_REQUEST_ID_MAX + 1);
    await expect(pay(paymentFor([bill]), long)).rejects.toThrow(/requestid has 1 to 50 characters/);
    await expect(pay(paymentFor([bill]), '')).rejects.toThrow(RangeError);
    expect(await paymentCalls()).toHaveLength(0);
    // Exactly 50 is Intuit's limit, and fine.
    await pay(paymentFor([bill]), 'r'.repeat(QB_REQUEST_ID_MAX));
    expect(await paymentCalls()).toHaveLength(1);
  });

  it('a repeat with the same requestid answers the first payment; a 5xx retried pays once', async () => {
    const [a, b] = realm.bills;
    const first = await pay(paymentFor([a]), 'bf-same');
    const again = await pay(paymentFor([a]), 'bf-same');
    expect(again).toEqual(first);
    await simPost('/__sim/faults', { rules: [{ path: '/billpayment$', kind: 'server', count: 1 }] });
    const afterFault = await pay(paymentFor([b]), 'bf-after-500');
    expect((await billNow(b.Id)).Balance).toBe(0);
    expect((await billNow(b.Id)).LinkedTxn).toEqual([{ TxnId: afterFault.Id, TxnType: 'BillPaymentCheck' }]);
  });

  it('more than the bill’s balance is QuickBooks’ validation fault (6000), and the bill is unchanged', async () => {
    const bill = realm.bills[0];
    const over = { ...paymentFor([bill]) };
    over.Line = [{ Amount: bill.Balance + 1, LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }] }];
    over.TotalAmt = Math.round((bill.Balance + 1) * 100) / 100;
    const err = await pay(over, 'bf-over').catch((e) => e);
    expect(err).toBeInstanceOf(QbApiError);
    expect(err).not.toBeInstanceOf(QbStaleObjectError);
    expect(err).toMatchObject({ status: 400, code: '6000' });
    expect((await billNow(bill.Id)).Balance).toBe(bill.Balance);
  });

  it('a stale SyncToken (5010) on one chosen bill is QbStaleObjectError; the other bills are paid', async () => {
    const [chosen, ...rest] = realm.bills.slice(0, 4);
    await simPost('/__sim/faults', { rules: [{ method: 'POST', billId: chosen.Id, kind: 'stale' }] });
    const err = await pay(paymentFor([chosen]), `bf-${chosen.Id}`).catch((e) => e);
    expect(err).toBeInstanceOf(QbStaleObjectError);
    expect(err).toBeInstanceOf(QbApiError);
    expect(err).toMatchObject({ status: 400, code: '5010', name: 'QbStaleObjectError' });
    expect(err.message).toMatch(/Stale Object Error/);
    for (const b of rest) await pay(paymentFor([b]), `bf-${b.Id}`);
    for (const b of rest) expect((await billNow(b.Id)).Balance).toBe(0);
    expect((await billNow(chosen.Id)).Balance).toBe(chosen.Balance);
  });
});
