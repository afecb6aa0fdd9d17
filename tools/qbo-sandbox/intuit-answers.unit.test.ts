// The simulator answers as Intuit does where Billflow's correctness depends on it: name lists answer active
// rows unless the query speaks of Active, strings are escaped with a backslash, a BillPayment needs TotalAmt
// and no more than the bill's balance, a requestid repeat answers the first response, and a fault rule can
// fail one chosen bill. Sources: README.md here.
import OAuthClient from 'intuit-oauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { grantFromConsent } from './connect.js';
import type { QbBill, Realm } from './seed.js';
import { type QboSandbox, startQboSandbox } from './server.js';

let sim: QboSandbox;
const client = { clientId: 'answers-app', clientSecret: 'answers-secret' };
const redirectUri = 'http://127.0.0.1:9/callback';
let realm: Realm;
let token = '';

/** A grant for the first company, as a person gives it on the consent page. */
const connect = () => grantFromConsent(sim.url, client, redirectUri);

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${sim.url}/v3/company/${realm.realmId}/${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...init.headers },
  });
const q = async (query: string) => {
  const res = await api(`query?query=${encodeURIComponent(query)}`);
  return { status: res.status, body: (await res.json()) as any };
};
const simPost = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const pay = (requestid: string, body: Record<string, unknown>) =>
  api(`billpayment?requestid=${encodeURIComponent(requestid)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const checkFor = (bills: QbBill[], amounts = bills.map((b) => b.Balance)) => ({
  VendorRef: { value: bills[0].VendorRef.value },
  PayType: 'Check',
  CheckPayment: { BankAccountRef: { value: realm.accounts.find((a) => a.AccountType === 'Bank')!.Id } },
  TotalAmt: Math.round(amounts.reduce((s, a) => s + a, 0) * 100) / 100,
  Line: bills.map((b, i) => ({ Amount: amounts[i], LinkedTxn: [{ TxnId: b.Id, TxnType: 'Bill' }] })),
});
/** Two open bills of one vendor (the seed draws several per vendor). */
function twoBillsOfOneVendor(): [QbBill, QbBill] {
  for (const b of realm.bills) {
    const other = realm.bills.find((x) => x.Id !== b.Id && x.VendorRef.value === b.VendorRef.value);
    if (other) return [b, other];
  }
  throw new Error('no vendor with two bills');
}

beforeAll(async () => {
  OAuthClient.retryConfig.maxRetries = 0;
  sim = await startQboSandbox({ clients: [client], ratePerMinute: 10_000, concurrentPerRealm: 50 });
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

describe('name lists answer active rows unless asked (Intuit: "all active customers")', () => {
  it('select * from Vendor and count(*) leave inactive vendors out; Active IN (true,false) sees both', async () => {
    const active = realm.vendors.filter((v) => v.Active);
    const inactive = realm.vendors.filter((v) => !v.Active);
    expect(inactive.length).toBeGreaterThan(0);
    const plain = (await q('select * from Vendor maxresults 1000')).body.QueryResponse.Vendor;
    expect(plain.map((v: { Id: string }) => v.Id)).toEqual(active.map((v) => v.Id));
    expect((await q('select count(*) from Vendor')).body.QueryResponse.totalCount).toBe(active.length);
    const both = (await q('select * from Vendor where Active IN (true,false) maxresults 1000')).body;
    expect(both.QueryResponse.Vendor).toHaveLength(realm.vendors.length);
    expect(
      (await q('select count(*) from Vendor where Active IN (true,false)')).body.QueryResponse.totalCount,
    ).toBe(realm.vendors.length);
    const onlyInactive = (await q('select * from Vendor where Active = false')).body.QueryResponse.Vendor;
    expect(onlyInactive.map((v: { Id: string }) => v.Id)).toEqual(inactive.map((v) => v.Id));
    // By id too: an inactive vendor is not found unless the query asks for inactive ones.
    expect((await q(`select * from Vendor where Id = '${inactive[0].Id}'`)).body.QueryResponse).toEqual({});
    // Accounts as well: the closed bank account is left out of a plain query.
    const accounts = (await q('select * from Account maxresults 1000')).body.QueryResponse.Account;
    expect(accounts.every((a: { Active: boolean }) => a.Active)).toBe(true);
    // Bills have no Active flag: nothing changes for them.
    expect((await q('select count(*) from Bill')).body.QueryResponse.totalCount).toBe(realm.bills.length);
  });

  it('a vendor made inactive in QuickBooks (the test hook) leaves the plain query and keeps its row', async () => {
    const vendor = realm.vendors.find((v) => v.Active)!;
    const r = await simPost('/__sim/vendors/update', {
      realmId: realm.realmId,
      vendorId: vendor.Id,
      active: false,
    });
    expect(r.status).toBe(200);
    expect((await r.json()).vendor).toMatchObject({ Id: vendor.Id, Active: false, SyncToken: '1' });
    const plain = (await q('select * from Vendor maxresults 1000')).body.QueryResponse.Vendor;
    expect(plain.some((v: { Id: string }) => v.Id === vendor.Id)).toBe(false);
    const both = (await q(`select * from Vendor where Id = '${vendor.Id}' and Active IN (true,false)`)).body;
    expect(both.QueryResponse.Vendor[0]).toMatchObject({ Id: vendor.Id, Active: false });
  });
});

describe('strings in queries are escaped with a backslash (Intuit: "Escape Character")', () => {
  it("finds O'Brien-7 by 'O\\'Brien-7'; a doubled apostrophe is not Intuit's escape", async () => {
    const bill = realm.bills[0];
    const made = await api('bill', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        VendorRef: { value: bill.VendorRef.value },
        DocNumber: "O'Brien-7",
        Line: [{ Amount: 10, Description: 'x' }],
      }),
    });
    const id = (await made.json()).Bill.Id;
    const found = await q("select * from Bill where DocNumber = 'O\\'Brien-7'");
    expect(found.body.QueryResponse.Bill.map((b: { Id: string }) => b.Id)).toEqual([id]);
    const listed = await q("select * from Bill where DocNumber in ('nope', 'O\\'Brien-7')");
    expect(listed.body.QueryResponse.Bill.map((b: { Id: string }) => b.Id)).toEqual([id]);
    const doubled = await q("select * from Bill where DocNumber in ('O''Brien-7')");
    expect(doubled.status).toBe(400);
    expect(doubled.body.Fault.Error[0].code).toBe('4000');
    // A vendor's name too (renamed through the test hook).
    await simPost('/__sim/vendors/update', {
      realmId: realm.realmId,
      vendorId: bill.VendorRef.value,
      displayName: "Dave's Diner",
    });
    const vendor = await q("select * from Vendor where DisplayName = 'Dave\\'s Diner'");
    expect(vendor.body.QueryResponse.Vendor.map((v: { Id: string }) => v.Id)).toEqual([bill.VendorRef.value]);
  });
});

describe('BillPayment (Intuit: TotalAmt required, requestid replays, amount within the balance)', () => {
  it('refuses a payment without TotalAmt (2020), and one above the bill’s balance (6000)', async () => {
    const [bill] = realm.bills;
    const { TotalAmt: _omitted, ...noTotal } = checkFor([bill]);
    const missing = await pay('no-total', noTotal);
    expect(missing.status).toBe(400);
    const fault = (await missing.json()).Fault;
    expect(fault.type).toBe('ValidationFault');
    expect(fault.Error[0]).toMatchObject({ code: '2020' });
    expect(fault.Error[0].Detail).toMatch(/TotalAmt/);
    const over = await pay('too-much', checkFor([bill], [bill.Balance + 0.01]));
    expect(over.status).toBe(400);
    const overFault = (await over.json()).Fault;
    expect(overFault.Error[0].code).toBe('6000');
    expect(overFault.Error[0].Detail).toMatch(`bill ${bill.Id}`);
    // Neither changed the bill.
    const after = (await q(`select * from Bill where Id = '${bill.Id}'`)).body.QueryResponse.Bill[0];
    expect(after.Balance).toBe(bill.Balance);
  });

  it('refuses to pay, or bill, a vendor made inactive: Intuit’s “has been made inactive” fault', async () => {
    const [bill] = realm.bills;
    await simPost('/__sim/vendors/update', {
      realmId: realm.realmId,
      vendorId: bill.VendorRef.value,
      active: false,
    });
    const refused = await pay('inactive-1', checkFor([bill]));
    expect(refused.status).toBe(400);
    const fault = (await refused.json()).Fault;
    expect(fault.type).toBe('ValidationFault');
    expect(fault.Error[0]).toMatchObject({ code: '610', Message: 'Object Not Found' });
    expect(fault.Error[0].Detail).toMatch(/has been made inactive/);
    const billed = await api('bill', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ VendorRef: { value: bill.VendorRef.value }, Line: [{ Amount: 5 }] }),
    });
    expect(billed.status).toBe(400);
    expect((await billed.json()).Fault.Error[0]).toMatchObject({ code: '2500' });
    const after = (await q(`select * from Bill where Id = '${bill.Id}'`)).body.QueryResponse.Bill[0];
    expect(after.Balance).toBe(bill.Balance);
  });

  it('answers a repeated requestid with the first response, and pays once', async () => {
    const [bill] = realm.bills;
    const first = await pay('pay-once-1', checkFor([bill]));
    expect(first.status).toBe(200);
    const a = await first.json();
    const again = await pay('pay-once-1', checkFor([bill]));
    expect(again.status).toBe(200);
    expect((await again.json()).BillPayment).toEqual(a.BillPayment);
    const payments = (await q('select * from BillPayment')).body.QueryResponse.BillPayment;
    expect(payments).toHaveLength(1);
  });

  it('fails one chosen bill by a fault rule that names it; the others are paid', async () => {
    const [chosen, other] = twoBillsOfOneVendor();
    await simPost('/__sim/faults', { rules: [{ method: 'POST', billId: chosen.Id, kind: 'stale' }] });
    const failed = await pay('chosen-1', checkFor([chosen]));
    expect(failed.status).toBe(400);
    expect((await failed.json()).Fault.Error[0]).toMatchObject({
      code: '5010',
      Message: 'Stale Object Error',
    });
    // A payment that links it among others fails whole, as a request does.
    expect((await pay('both-1', checkFor([other, chosen]))).status).toBe(400);
    expect((await pay('other-1', checkFor([other]))).status).toBe(200);
    // Reads of other bills and of the chosen one by query are not touched (the rule names POSTs).
    expect((await api(`bill/${other.Id}`)).status).toBe(200);
    const log = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
      path: string;
      status: number;
    }>;
    expect(log.filter((r) => r.path.endsWith('/billpayment')).map((r) => r.status)).toEqual([400, 400, 200]);
  });
});

describe('BillPayment void (Intuit: operation=update&include=void with Id and SyncToken)', () => {
  const voidIt = (body: Record<string, unknown>) =>
    api('billpayment?operation=update&include=void', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const billOf = async (id: string) =>
    (await q(`select * from Bill where Id = '${id}'`)).body.QueryResponse.Bill[0];

  it('keeps the record with its amounts zeroed and "Voided" on its note, and opens the bill again', async () => {
    const [bill] = realm.bills;
    const before = bill.Balance;
    const paid = (
      await (await pay('void-1', { ...checkFor([bill]), PrivateNote: 'Billflow bill payment k' })).json()
    ).BillPayment;
    expect((await billOf(bill.Id)).Balance).toBe(0);
    const stale = await voidIt({ Id: paid.Id, SyncToken: '7', sparse: true });
    expect(stale.status).toBe(400);
    expect((await stale.json()).Fault.Error[0]).toMatchObject({ code: '5010' });
    expect((await billOf(bill.Id)).Balance).toBe(0);
    const res = await voidIt({ Id: paid.Id, SyncToken: paid.SyncToken, sparse: true });
    expect(res.status).toBe(200);
    const voided = (await res.json()).BillPayment;
    expect(voided).toMatchObject({ Id: paid.Id, TotalAmt: 0, Line: [], SyncToken: '1' });
    expect(voided.PrivateNote).toBe('Voided - Billflow bill payment k');
    const reopened = await billOf(bill.Id);
    expect(reopened.Balance).toBe(before);
    expect(reopened.LinkedTxn).toEqual([]);
    // Read back by id, the record is still there, voided.
    const read = (await (await api(`billpayment/${paid.Id}`)).json()).BillPayment;
    expect(read).toMatchObject({ TotalAmt: 0, SyncToken: '1' });
    // A second void (with the current token) changes no balance.
    expect((await voidIt({ Id: paid.Id, SyncToken: '1', sparse: true })).status).toBe(200);
    expect((await billOf(bill.Id)).Balance).toBe(before);
    // The bill can be paid again.
    expect((await pay('void-1-again', checkFor([reopened]))).status).toBe(200);
  });

  it('refuses a void of a payment that does not exist', async () => {
    const res = await voidIt({ Id: '999999', SyncToken: '0', sparse: true });
    expect(res.status).toBe(400);
    expect((await res.json()).Fault.Error[0]).toMatchObject({ code: '610' });
  });
});
