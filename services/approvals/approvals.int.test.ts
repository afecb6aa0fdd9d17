// Bill approvals through the product's own calls against the QuickBooks simulator: the
// /bills list, creation with the QuickBooks snapshot (unchanged when QuickBooks changes), one open
// approval per bill, the duplicate guard and its recorded confirmation, approve (subset), reject,
// update, recipients, delete, history, stats, CSV export, the invoice PDF, segregation of duties,
// expiry by the delayed job, bulk actions (their speed is a bench figure), the live subscription,
// GraphQL, role checks, the dashboard's figures, and no vendor contact or recipient plain in the log
// or read model.
import { parse as parseCsv } from 'csv-parse/sync';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { approvalsProjection } from '../../projections/approvals/approvals.js';
import type { ChangeNotice } from '../../projections/projection.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { qb } from '../companies/quickbooks.js';
import type { LiveBus } from '../gateway/live.js';
import { batchApprovalReads, changedApproval } from './api/graphql/approval-subscriptions.js';

/** Approved: the answer may already show the payment status the payments process manager moved it to. */
const APPROVED_NOW = /^(APPROVED|NACHA_PENDING|NACHA_GENERATED)$/;
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let admin2 = '';
let moderator = '';
let user = '';
let guest = '';
let companyId = 0;
let realm: Realm;
let realmId = '';
const qbApp = { clientId: 'billflow-approvals', clientSecret: 'approvals-secret-value-456' };
const A = '/api/bill-approval/approvals';

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

/** Intuit's API as the company's connection calls it (create a bill, pay one). */
async function qbPost(company: number, rid: string, path: string, body: unknown) {
  const conn = await qb(t.started.app).connections.get(company);
  const res = await fetch(`${sim.url}/v3/company/${rid}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${conn!.tokens!.accessToken}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

async function connectCompany(name: string, realmIndex: number) {
  const c = await api(t.url, 'POST', '/api/company/companies', { body: { name }, token: admin });
  const id = c.body.data.id as number;
  const { realmId: rid } = await connectOverHttp({
    gatewayUrl: t.url,
    simUrl: sim.url,
    token: admin,
    companyId: id,
    app: qbApp,
    realmIndex,
  });
  // These tests leave aside the policy defaults (creator may not approve, assigned staff only) and
  // act as one admin or as unassigned staff: their companies turn both off, on record. The defaults
  // themselves are tested in 'segregation of duties' and in approvals-attack.int.test.ts.
  const policy = await api(t.url, 'PUT', `/api/bill-approval/policies/${id}`, {
    body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
    token: admin,
  });
  expect(policy.status).toBe(200);
  return { id, realmId: rid };
}

const create = (body: Record<string, unknown>, token = admin) => api(t.url, 'POST', A, { body, token });
/** Open bills of the seeded realm that no test used yet (each test takes its own). */
const used = new Set<string>();
const freshBills = (n: number, pred: (b: QbBill) => boolean = () => true): QbBill[] => {
  const out = realm.bills.filter((b) => b.Balance > 0 && !used.has(b.Id) && pred(b)).slice(0, n);
  for (const b of out) used.add(b.Id);
  return out;
};

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const [role, email] of [
    ['ADMIN', 'admin2@approvals.test'],
    ['MODERATOR', 'mod@approvals.test'],
    ['USER', 'user@approvals.test'],
    ['GUEST', 'guest@approvals.test'],
  ] as const)
    await api(t.url, 'POST', '/api/auth/register', {
      body: {
        email,
        password: 'Passw0rd-123',
        role,
        firstName: role === 'MODERATOR' ? 'Mona' : 'Ada',
        lastName: 'Test',
      },
      token: admin,
    });
  admin2 = (await signIn(t.url, 'admin2@approvals.test', 'Passw0rd-123')).tokens.accessToken;
  moderator = (await signIn(t.url, 'mod@approvals.test', 'Passw0rd-123')).tokens.accessToken;
  user = (await signIn(t.url, 'user@approvals.test', 'Passw0rd-123')).tokens.accessToken;
  guest = (await signIn(t.url, 'guest@approvals.test', 'Passw0rd-123')).tokens.accessToken;
  const c = await connectCompany('Approvals Bakery', 0);
  companyId = c.id;
  realmId = c.realmId;
  realm = sim.realms().find((r) => r.realmId === realmId)!;
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('creating approvals', () => {
  it('lists the company’s open QuickBooks bills with vendor, due date, amount and flags', async () => {
    const r = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, {
      token: moderator,
    });
    expect(r.status).toBe(200);
    const open = realm.bills.filter((b) => b.Balance > 0);
    expect(r.body.data).toHaveLength(open.length);
    const first = r.body.data.find((b: any) => b.id === open[0].Id);
    expect(first).toMatchObject({
      amount: open[0].TotalAmt,
      docNumber: open[0].DocNumber,
      dueDate: open[0].DueDate,
      vendorQbId: open[0].VendorRef.value,
      bankingReady: false,
      inOpenApproval: false,
      possibleDuplicate: false,
    });
    expect(
      (await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token: user })).status,
    ).toBe(403);
  });

  it('creates an approval with a snapshot that does not change when QuickBooks does; contacts sealed', async () => {
    const [b1, b2] = freshBills(2);
    const r = await create({
      companyId,
      billIds: [b1.Id, b2.Id],
      priority: 'high',
      recipients: ['CFO@Client.example'],
    });
    expect(r.status).toBe(201);
    const a = r.body.data;
    expect(a).toMatchObject({
      companyId,
      companyName: 'Approvals Bakery',
      status: 'PENDING',
      priority: 'HIGH',
      billIds: `${b1.Id},${b2.Id}`,
      billCount: 2,
      approvedBillCount: 0,
      totalAmount: Math.round((b1.TotalAmt + b2.TotalAmt) * 100) / 100,
      recipients: ['cfo@client.example'],
      awaitingSecondApproval: false,
    });
    const vendor = realm.vendors.find((v) => v.Id === b1.VendorRef.value)!;
    const bill = a.billsParsed.find((b: any) => b.Id === b1.Id);
    expect(bill).toMatchObject({
      DocNumber: b1.DocNumber,
      TotalAmt: b1.TotalAmt,
      VendorRef: { value: vendor.Id, name: vendor.DisplayName },
      VendorInfo: { CompanyName: vendor.CompanyName, Email: vendor.PrimaryEmailAddr?.Address ?? null },
    });
    expect(bill.Line).toHaveLength(b1.Line.length);
    // QuickBooks changes (the bill is partly paid there): the approval keeps what it was given.
    await qbPost(companyId, realmId, 'billpayment', {
      VendorRef: { value: vendor.Id },
      PayType: 'Check',
      CheckPayment: { BankAccountRef: { value: realm.accounts.find((x) => x.AccountType === 'Bank')!.Id } },
      TotalAmt: 1,
      Line: [{ Amount: 1, LinkedTxn: [{ TxnId: b1.Id, TxnType: 'Bill' }] }],
    });
    const again = await api(t.url, 'GET', `${A}/${a.id}`, { token: user });
    expect(again.body.data.billsParsed.find((b: any) => b.Id === b1.Id).Balance).toBe(b1.Balance);
    // Vendor contacts and recipients are sealed in the log and absent from the read model.
    const raw = JSON.stringify(
      await sql(`SELECT data FROM es_events WHERE stream_id = $1`, [`approval-${a.id}`]),
    );
    const row = JSON.stringify(await sql(`SELECT * FROM approvals WHERE id = $1`, [a.id]));
    for (const plain of ['cfo@client.example', vendor.PrimaryEmailAddr?.Address].filter(
      Boolean,
    ) as string[]) {
      expect(raw).not.toContain(plain);
      expect(row).not.toContain(plain);
    }
  });

  it('keeps a bill in one open approval; the /bills list shows which', async () => {
    const [b] = freshBills(1);
    const first = await create({ companyId, billIds: [b.Id] }, moderator);
    expect(first.status).toBe(201);
    const second = await create({ companyId, billIds: [b.Id] });
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(`Bill ${b.Id} is already in an open approval`);
    const list = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token: admin });
    expect(list.body.data.find((x: any) => x.id === b.Id)).toMatchObject({
      inOpenApproval: true,
      openApprovalId: first.body.data.id,
    });
  });

  it('two creates racing for one bill: one wins, the other is refused, and no claim is left behind', async () => {
    const [b] = freshBills(1);
    const results = await Promise.all([
      create({ companyId, billIds: [b.Id] }),
      create({ companyId, billIds: [b.Id] }, moderator),
      create({ companyId, billIds: [b.Id] }, admin2),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const rows = await sql(`SELECT id FROM approvals WHERE $1 = ANY(bill_ids)`, [b.Id]);
    expect(rows).toHaveLength(1);
  });

  it('flags a look-alike bill; creating with it needs a confirmation, which is recorded', async () => {
    const [original] = freshBills(1);
    expect((await create({ companyId, billIds: [original.Id] })).status).toBe(201);
    const copy = (
      await qbPost(companyId, realmId, 'bill', {
        VendorRef: { value: original.VendorRef.value },
        DocNumber: original.DocNumber,
        Line: [{ Amount: original.TotalAmt, Description: 'Same invoice again' }],
      })
    ).Bill;
    const list = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token: admin });
    expect(list.body.data.find((x: any) => x.id === copy.Id)).toMatchObject({
      possibleDuplicate: true,
      duplicateOf: { billId: original.Id },
    });
    const refused = await create({ companyId, billIds: [copy.Id] });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/Possible duplicate/);
    const ok = await create({ companyId, billIds: [copy.Id], confirmDuplicates: [copy.Id] });
    expect(ok.status).toBe(201);
    expect(ok.body.data.confirmedDuplicates).toEqual([
      expect.objectContaining({ billId: copy.Id, matchesBillId: original.Id }),
    ]);
    const history = await api(t.url, 'GET', `${A}/${ok.body.data.id}/history`, { token: user });
    const created = history.body.data.find((h: any) => h.action === 'Created');
    expect(created.details).toMatch(`possible duplicates confirmed: ${copy.Id}`);
  });

  it('flags a bill like one already paid in QuickBooks; it too needs a confirmation', async () => {
    const [paidBill] = freshBills(1);
    await qbPost(companyId, realmId, 'billpayment', {
      VendorRef: { value: paidBill.VendorRef.value },
      PayType: 'Check',
      CheckPayment: { BankAccountRef: { value: realm.accounts.find((x) => x.AccountType === 'Bank')!.Id } },
      // Intuit requires TotalAmt on a BillPayment.
      TotalAmt: paidBill.TotalAmt,
      Line: [{ Amount: paidBill.TotalAmt, LinkedTxn: [{ TxnId: paidBill.Id, TxnType: 'Bill' }] }],
    });
    const copy = (
      await qbPost(companyId, realmId, 'bill', {
        VendorRef: { value: paidBill.VendorRef.value },
        DocNumber: paidBill.DocNumber,
        Line: [{ Amount: paidBill.TotalAmt, Description: 'Paid already, sent again' }],
      })
    ).Bill;
    const list = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token: admin });
    expect(list.body.data.find((x: any) => x.id === paidBill.Id)).toBeUndefined();
    expect(list.body.data.find((x: any) => x.id === copy.Id)).toMatchObject({
      possibleDuplicate: true,
      duplicateOf: { billId: paidBill.Id, approvalId: null, paid: true },
    });
    const refused = await create({ companyId, billIds: [copy.Id] });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(`matches paid bill ${paidBill.Id}`);
    const ok = await create({ companyId, billIds: [copy.Id], confirmDuplicates: [copy.Id] });
    expect(ok.body.data.confirmedDuplicates).toEqual([
      { billId: copy.Id, matchesBillId: paidBill.Id, matchesApprovalId: null, paid: true },
    ]);
  });

  it('refuses bad input with field errors and changes nothing', async () => {
    const before = await sql(`SELECT count(*)::int AS n FROM es_events WHERE stream_id LIKE 'approval%'`);
    for (const body of [
      { companyId, billIds: [] },
      { companyId, billIds: ['1'], priority: 'SOON' },
      { companyId, billIds: ['1'], recipients: ['not-an-address'] },
      { companyId: 'x', billIds: ['1'] },
      { companyId, billIds: ["1' or 1=1"] },
    ]) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.success).toBe(false);
    }
    expect((await create({ companyId, billIds: ['999999'] })).body.message).toMatch(
      /Not found in QuickBooks/,
    );
    expect(await sql(`SELECT count(*)::int AS n FROM es_events WHERE stream_id LIKE 'approval%'`)).toEqual(
      before,
    );
  });
});

describe('QuickBooks as Intuit answers: quotes in queries, inactive vendors', () => {
  let other: { id: number; realmId: string };
  let otherRealm: Realm;
  const simPost = (path: string, body: unknown) =>
    fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const bills = () => api(t.url, 'GET', `/api/bill-approval/bills?companyId=${other.id}`, { token: admin });
  async function syncVendors() {
    const r = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId: other.id }, token: admin });
    expect(r.status).toBe(202);
    for (let i = 0; i < 300; i++) {
      const s = await api(t.url, 'GET', `/api/vendors/sync/${r.body.data.syncId}`, { token: admin });
      if (s.body.data.status !== 'queued') return s.body.data;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('the vendor sync did not finish');
  }
  beforeAll(async () => {
    other = await connectCompany('Quotes and Vendors Co', 2);
    otherRealm = sim.realms().find((r) => r.realmId === other.realmId)!;
  });

  it("finds a paid look-alike whose document number and vendor name have an apostrophe (O'Brien-7)", async () => {
    const vendorId = otherRealm.bills[0].VendorRef.value;
    const renamed = await simPost('/__sim/vendors/update', {
      realmId: other.realmId,
      vendorId,
      displayName: "O'Brien's Lumber",
    });
    expect(renamed.status).toBe(200);
    const paid = (
      await qbPost(other.id, other.realmId, 'bill', {
        VendorRef: { value: vendorId },
        DocNumber: "O'Brien-7",
        Line: [{ Amount: 250.75, Description: 'Joists' }],
      })
    ).Bill;
    await qbPost(other.id, other.realmId, 'billpayment', {
      VendorRef: { value: vendorId },
      PayType: 'Check',
      CheckPayment: {
        BankAccountRef: { value: otherRealm.accounts.find((x) => x.AccountType === 'Bank')!.Id },
      },
      TotalAmt: 250.75,
      Line: [{ Amount: 250.75, LinkedTxn: [{ TxnId: paid.Id, TxnType: 'Bill' }] }],
    });
    const copy = (
      await qbPost(other.id, other.realmId, 'bill', {
        VendorRef: { value: vendorId },
        DocNumber: "O'Brien-7",
        Line: [{ Amount: 250.75, Description: 'Joists, sent again' }],
      })
    ).Bill;
    const list = await bills();
    expect(list.status).toBe(200);
    expect(list.body.data.find((x: any) => x.id === copy.Id)).toMatchObject({
      docNumber: "O'Brien-7",
      vendorName: "O'Brien's Lumber",
      possibleDuplicate: true,
      duplicateOf: { billId: paid.Id, approvalId: null, paid: true },
      refusedReason: null,
    });
    const refused = await create({ companyId: other.id, billIds: [copy.Id] });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(`matches paid bill ${paid.Id}`);
    const ok = await create({ companyId: other.id, billIds: [copy.Id], confirmDuplicates: [copy.Id] });
    expect(ok.status).toBe(201);
    const bill = ok.body.data.billsParsed[0];
    expect(bill).toMatchObject({ DocNumber: "O'Brien-7", VendorRef: { name: "O'Brien's Lumber" } });
  });

  it('refuses a bill whose vendor is inactive in QuickBooks or in Billflow, naming both, and lists why', async () => {
    const inUse = new Set([otherRealm.bills[0].VendorRef.value]);
    const bill = otherRealm.bills.find((b) => !inUse.has(b.VendorRef.value))!;
    const vendor = otherRealm.vendors.find((v) => v.Id === bill.VendorRef.value)!;
    const approvalEvents = async () =>
      (await sql(`SELECT count(*)::int AS n FROM es_events WHERE stream_id LIKE 'approval%'`))[0].n;
    const before = await approvalEvents();
    // Made inactive (or deleted) in QuickBooks; Billflow has not synced since.
    await simPost('/__sim/vendors/update', { realmId: other.realmId, vendorId: vendor.Id, active: false });
    const listed = (await bills()).body.data.find((x: any) => x.id === bill.Id);
    expect(listed.refusedReason).toMatch(/inactive/);
    expect(listed.refusedReason).toContain(vendor.DisplayName);
    const refused = await create({ companyId: other.id, billIds: [bill.Id] });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(`bill ${bill.Id}`);
    expect(refused.body.message).toContain(vendor.DisplayName);
    expect(refused.body.message).toMatch(/inactive/);
    expect(refused.body.errors).toEqual([
      {
        field: 'billIds',
        message: expect.stringContaining(`bill ${bill.Id}: its vendor ${vendor.DisplayName}`),
      },
    ]);
    // Synced while inactive, then active again in QuickBooks without a sync: Billflow's vendors say
    // inactive, and that is enough to refuse until the next sync.
    expect(await syncVendors()).toMatchObject({ status: 'completed', failed: 0 });
    await simPost('/__sim/vendors/update', { realmId: other.realmId, vendorId: vendor.Id, active: true });
    const stillRefused = await create({ companyId: other.id, billIds: [bill.Id] });
    expect(stillRefused.status).toBe(400);
    expect(stillRefused.body.message).toContain(vendor.DisplayName);
    expect((await bills()).body.data.find((x: any) => x.id === bill.Id).refusedReason).toMatch(/inactive/);
    expect(await approvalEvents()).toBe(before);
    expect(await syncVendors()).toMatchObject({ status: 'completed', failed: 0 });
    expect((await bills()).body.data.find((x: any) => x.id === bill.Id).refusedReason).toBeNull();
    expect((await create({ companyId: other.id, billIds: [bill.Id] })).status).toBe(201);
  });
});

describe('the lifecycle', () => {
  it('approves a subset; the other bills are free again; approving twice is refused', async () => {
    const [b1, b2] = freshBills(2);
    const a = (await create({ companyId, billIds: [b1.Id, b2.Id], recipients: ['payables@approvals.test'] }))
      .body.data;
    expect(
      (
        await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
          body: { approvedBills: [b1.Id, 'nope'] },
          token: moderator,
        })
      ).status,
    ).toBe(400);
    expect(
      (await api(t.url, 'PUT', `${A}/${a.id}/approve`, { body: { approvedBills: [] }, token: moderator }))
        .status,
    ).toBe(400);
    expect(
      (await api(t.url, 'PUT', `${A}/${a.id}/approve`, { body: { approvedBills: [b1.Id] }, token: user }))
        .status,
    ).toBe(403);
    const r = await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
      body: { approvedBills: [b1.Id] },
      token: moderator,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      status: expect.stringMatching(APPROVED_NOW),
      approvedBillIds: b1.Id,
      approvedBillCount: 1,
      approvedAmount: b1.TotalAmt,
      approver: { firstName: 'Mona' },
    });
    expect(r.body.data.approvedBillsParsed.map((b: any) => b.Id)).toEqual([b1.Id]);
    expect(
      (await api(t.url, 'PUT', `${A}/${a.id}/approve`, { body: { approvedBills: [b1.Id] }, token: admin }))
        .status,
    ).toBe(409);
    // b2 was not approved: it may go in a new approval; b1 stays held.
    expect((await create({ companyId, billIds: [b2.Id] })).status).toBe(201);
    expect((await create({ companyId, billIds: [b1.Id] })).status).toBe(409);
  });

  it('rejects with a trimmed reason, refuses a blank one, and frees the bills', async () => {
    const [b] = freshBills(1);
    const a = (await create({ companyId, billIds: [b.Id] })).body.data;
    const blank = await api(t.url, 'PUT', `${A}/${a.id}/reject`, {
      body: { rejectionReason: '   ' },
      token: admin,
    });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe('Please provide a reason for rejection');
    const r = await api(t.url, 'PUT', `${A}/${a.id}/reject`, {
      body: { rejectionReason: '  Wrong amount ' },
      token: moderator,
    });
    expect(r.body.data).toMatchObject({
      status: 'REJECTED',
      rejectionReason: 'Wrong amount',
      rejecter: { firstName: 'Mona' },
    });
    expect(r.body.data.rejectionDate).toBeTruthy();
    expect(
      (await api(t.url, 'PUT', `${A}/${a.id}/reject`, { body: { rejectionReason: 'again' }, token: admin }))
        .status,
    ).toBe(409);
    expect((await create({ companyId, billIds: [b.Id] })).status).toBe(201);
  });

  it('updates priority, manager and recipients while PENDING only; deletes; keeps the history', async () => {
    const [b] = freshBills(1);
    const mgr = await api(t.url, 'POST', '/api/manager/managers', {
      body: { firstName: 'Max', lastName: 'Manager', email: 'max@approvals.test' },
      token: admin,
    });
    const a = (await create({ companyId, billIds: [b.Id] })).body.data;
    const u = await api(t.url, 'PUT', `${A}/${a.id}`, {
      body: { priority: 'URGENT', managerId: mgr.body.data.id },
      token: moderator,
    });
    expect(u.body.data).toMatchObject({
      priority: 'URGENT',
      managerName: 'Max Manager',
      managerEmail: 'max@approvals.test',
    });
    expect((await api(t.url, 'PUT', `${A}/${a.id}`, { body: {}, token: moderator })).status).toBe(400);
    const rc = await api(t.url, 'PUT', `${A}/${a.id}/recipients`, {
      body: { recipients: ['a@x.example'] },
      token: moderator,
    });
    expect(rc.body.data.recipients).toEqual(['a@x.example']);
    await api(t.url, 'PUT', `${A}/${a.id}/reject`, { body: { rejectionReason: 'No' }, token: admin });
    expect(
      (await api(t.url, 'PUT', `${A}/${a.id}`, { body: { priority: 'LOW' }, token: admin })).status,
    ).toBe(409);
    const history = await api(t.url, 'GET', `${A}/${a.id}/history`, { token: user });
    // The approval's own steps (the company's policy in force comes before them, from its stream).
    const own = history.body.data.filter((h: any) => h.stream === `approval-${a.id}`);
    expect(own.map((h: any) => h.action)).toEqual(['Created', 'Updated', 'Recipients updated', 'Rejected']);
    expect(own[1]).toMatchObject({ userName: 'Mona Test', downloadUrl: null });
    // The manager by name, the amount as a number (the screen formats it in the reader's locale).
    expect(own[0]).toMatchObject({ amount: a.totalAmount, threshold: null, managerName: null });
    expect(own[0].details).toContain(
      new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(a.totalAmount),
    );
    expect(own[3]).toMatchObject({
      reason: 'No',
      changes: [{ field: 'status', from: 'Pending', to: 'Rejected' }],
    });
    expect(own[1]).toMatchObject({
      managerName: 'Max Manager',
      details: 'priority Urgent, assigned to Max Manager',
    });
    expect((await api(t.url, 'DELETE', `${A}/${a.id}`, { token: user })).status).toBe(403);
    expect((await api(t.url, 'DELETE', `${A}/${a.id}`, { token: moderator })).status).toBe(200);
    expect((await api(t.url, 'GET', `${A}/${a.id}`, { token: admin })).status).toBe(404);
    const list = await api(t.url, 'GET', `${A}?limit=100`, { token: admin });
    expect(list.body.data.map((x: any) => x.id)).not.toContain(a.id);
  });

  it('downloads a bill’s invoice (its QuickBooks attachable) as a PDF', async () => {
    const [b] = freshBills(1, (x) =>
      realm.attachables.some((f) => f.AttachableRef[0].EntityRef.value === x.Id),
    );
    const a = (await create({ companyId, billIds: [b.Id] })).body.data;
    expect(a.billsParsed[0].invoiceAvailable).toBe(true);
    const res = await fetch(`${t.url}${A}/${a.id}/bills/${b.Id}/invoice`, {
      headers: { authorization: `Bearer ${user}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch('application/pdf');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const missing = await api(t.url, 'GET', `${A}/${a.id}/bills/nope/invoice`, { token: user });
    expect(missing.status).toBe(404);
  });
});

describe('segregation of duties', () => {
  it('keeps the creator from approving by default; above the threshold two different approvers', async () => {
    const fresh = (
      await api(t.url, 'POST', '/api/company/companies', {
        body: { name: 'Policy Default Co' },
        token: admin,
      })
    ).body.data.id as number;
    expect(
      (await api(t.url, 'GET', `/api/bill-approval/policies/${fresh}`, { token: admin })).body.data,
    ).toEqual({
      companyId: fresh,
      creatorMayNotApprove: true,
      secondApprovalThreshold: null,
      assignedStaffOnly: true,
    });
    const P = `/api/bill-approval/policies/${companyId}`;
    expect(
      (
        await api(t.url, 'PUT', P, {
          body: { creatorMayNotApprove: true, secondApprovalThreshold: 100 },
          token: moderator,
        })
      ).status,
    ).toBe(403);
    const set = await api(t.url, 'PUT', P, {
      body: { creatorMayNotApprove: true, secondApprovalThreshold: 100 },
      token: admin,
    });
    expect(set.body.data).toMatchObject({ creatorMayNotApprove: true, secondApprovalThreshold: 100 });
    const [b] = freshBills(1, (x) => x.TotalAmt > 100);
    const a = (await create({ companyId, billIds: [b.Id], recipients: ['payables@approvals.test'] }, admin))
      .body.data;
    const own = await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
      body: { approvedBills: [b.Id] },
      token: admin,
    });
    expect(own.status).toBe(403);
    expect(own.body.message).toMatch(/creator/);
    const first = await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
      body: { approvedBills: [b.Id] },
      token: moderator,
    });
    expect(first.body.data).toMatchObject({
      status: 'PENDING',
      awaitingSecondApproval: true,
      firstApprover: { firstName: 'Mona' },
    });
    const same = await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
      body: { approvedBills: [b.Id] },
      token: moderator,
    });
    expect(same.status).toBe(403);
    const second = await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
      body: { approvedBills: [b.Id] },
      token: admin2,
    });
    expect(second.body.data).toMatchObject({
      status: expect.stringMatching(APPROVED_NOW),
      awaitingSecondApproval: false,
    });
    await api(t.url, 'PUT', P, {
      body: { creatorMayNotApprove: false, secondApprovalThreshold: null },
      token: admin,
    });
  });
});

describe('what each viewer may do (segregation of duties on screen)', () => {
  it('says per viewer whether they may approve and why not, in REST and GraphQL, list and detail', async () => {
    const P = `/api/bill-approval/policies/${companyId}`;
    await api(t.url, 'PUT', P, {
      body: { creatorMayNotApprove: true, secondApprovalThreshold: 100 },
      token: admin,
    });
    const [b] = freshBills(1, (x) => x.TotalAmt > 100);
    const a = (await create({ companyId, billIds: [b.Id], recipients: ['payables@approvals.test'] }, admin))
      .body.data;
    const view = async (token: string) => (await api(t.url, 'GET', `${A}/${a.id}`, { token })).body.data;
    const rowOf = async (token: string) =>
      (await api(t.url, 'GET', `${A}?search=${a.id}`, { token })).body.data.find((x: any) => x.id === a.id);

    expect(await view(admin)).toMatchObject({
      creatorMayNotApprove: true,
      secondApprovalThreshold: 100,
      secondApprovalRequired: true,
      awaitingSecondApproval: false,
      firstApprovedAt: null,
      viewerMayApprove: false,
      approveBlockedReason: 'You created this approval; this company requires a different approver.',
    });
    expect(await view(moderator)).toMatchObject({ viewerMayApprove: true, approveBlockedReason: null });
    expect(await view(user)).toMatchObject({
      viewerMayApprove: false,
      approveBlockedReason: 'Only administrators and moderators approve.',
    });
    // The list (answered from a cache shared by every caller) carries each caller's own answer.
    expect(await rowOf(admin)).toMatchObject({ viewerMayApprove: false });
    expect(await rowOf(moderator)).toMatchObject({ viewerMayApprove: true });

    // The moderator's first approval: still PENDING; now the moderator is the one blocked.
    const first = await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
      body: { approvedBills: [b.Id] },
      token: moderator,
    });
    expect(first.body.data).toMatchObject({
      status: 'PENDING',
      awaitingSecondApproval: true,
      viewerMayApprove: false,
      approveBlockedReason: 'You gave the first approval; a second, different approver must approve.',
    });
    expect(Date.parse(first.body.data.firstApprovedAt)).toBeGreaterThan(Date.parse(a.createdAt) - 1);
    expect(await rowOf(moderator)).toMatchObject({
      viewerMayApprove: false,
      approveBlockedReason: 'You gave the first approval; a second, different approver must approve.',
    });
    expect(await view(admin2)).toMatchObject({
      viewerMayApprove: true,
      firstApprover: { firstName: 'Mona' },
    });
    // What the screen says is what the server does.
    expect(
      (await api(t.url, 'PUT', `${A}/${a.id}/approve`, { body: { approvedBills: [b.Id] }, token: moderator }))
        .status,
    ).toBe(403);
    const g = await gql(
      t.url,
      `query($id: String!) { approval(id: $id) { viewerMayApprove approveBlockedReason secondApprovalRequired secondApprovalThreshold firstApprovedAt }
         approvals(search: $id) { data { id viewerMayApprove approveBlockedReason } } }`,
      { id: a.id },
      moderator,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.approval).toMatchObject({
      viewerMayApprove: false,
      approveBlockedReason: 'You gave the first approval; a second, different approver must approve.',
      secondApprovalRequired: true,
      secondApprovalThreshold: 100,
    });
    expect(g.data.approval.firstApprovedAt).toBeTruthy();
    expect(g.data.approvals.data[0]).toMatchObject({ id: a.id, viewerMayApprove: false });
    const g2 = await gql(
      t.url,
      `query($id: String!) { approval(id: $id) { viewerMayApprove } }`,
      { id: a.id },
      admin2,
    );
    expect(g2.data.approval.viewerMayApprove).toBe(true);

    // The policy turned off shows at once, on the cached list too.
    await api(t.url, 'PUT', P, {
      body: { creatorMayNotApprove: false, secondApprovalThreshold: null },
      token: admin,
    });
    expect(await rowOf(moderator)).toMatchObject({
      viewerMayApprove: true,
      secondApprovalRequired: false,
      approveBlockedReason: null,
    });
    expect(await view(admin)).toMatchObject({ viewerMayApprove: true, creatorMayNotApprove: false });
    const done = await api(t.url, 'PUT', `${A}/${a.id}/approve`, {
      body: { approvedBills: [b.Id] },
      token: admin,
    });
    expect(done.body.data).toMatchObject({
      status: expect.stringMatching(APPROVED_NOW),
      viewerMayApprove: false,
      approveBlockedReason: 'Only a pending approval can be approved; this one is approved.',
    });
  });
});

describe('assignment: the managers staff may pick, and editing a PENDING approval', () => {
  it('offers ADMIN and MODERATOR the ACTIVE managers (id, name, e-mail only; a company’s own marked); USER and GUEST are refused', async () => {
    const made: Record<string, number> = {};
    for (const [first, last, email] of [
      ['Olive', 'Options', 'olive@options.test'],
      ['Inez', 'Inactive', 'inez@options.test'],
      ['Gone', 'Deleted', 'gone@options.test'],
    ])
      made[first] = (
        await api(t.url, 'POST', '/api/manager/managers', {
          body: { firstName: first, lastName: last, email, phone: '555-0199', title: 'AP' },
          token: admin,
        })
      ).body.data.id;
    // No command sets a manager's status yet (created ACTIVE); the read model row stands in for one
    // that is not active.
    await sql(`UPDATE managers SET status = 'INACTIVE' WHERE id = $1`, [made.Inez]);
    expect((await api(t.url, 'DELETE', `/api/manager/managers/${made.Gone}`, { token: admin })).status).toBe(
      200,
    );

    const M = '/api/bill-approval/manager-options';
    const mine = await api(t.url, 'GET', M, { token: moderator });
    expect(mine.status).toBe(200);
    const olive = mine.body.data.find((m: any) => m.id === made.Olive);
    // Exactly these fields: no phone, title, status or linked user.
    expect(olive).toEqual({
      id: made.Olive,
      displayName: 'Olive Options',
      email: 'olive@options.test',
      companyManager: false,
    });
    const ids = mine.body.data.map((m: any) => m.id);
    expect(ids).not.toContain(made.Inez);
    expect(ids).not.toContain(made.Gone);
    expect((await api(t.url, 'GET', M, { token: admin })).body.data).toEqual(mine.body.data);
    for (const token of [user, guest]) {
      const refused = await api(t.url, 'GET', M, { token });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ success: false });
      expect(JSON.stringify(refused.body)).not.toContain('olive@options.test');
    }
    expect((await api(t.url, 'GET', M)).status).toBe(401);
    // The managers list itself stays ADMIN's.
    expect((await api(t.url, 'GET', '/api/manager/managers', { token: moderator })).status).toBe(403);
    const g = await gql(
      t.url,
      '{ approvalManagerOptions { id displayName email companyManager } }',
      {},
      moderator,
    );
    expect(g.data.approvalManagerOptions).toEqual(mine.body.data);
    const gu = await gql(t.url, '{ approvalManagerOptions { id } }', {}, user);
    expect(gu.errors?.[0].extensions.code).toBe('FORBIDDEN');

    // Asked for a company, its assigned manager is marked: the MODERATOR, who may not read the
    // company's fields, learns who it is to start a new approval with. A company out of scope is 404.
    const assign = (managerId: number | null) =>
      api(t.url, 'PUT', `/api/company/companies/${companyId}/assignments`, {
        body: { managerId },
        token: admin,
      });
    expect((await assign(made.Olive)).status).toBe(200);
    const marked = async (token: string) =>
      (await api(t.url, 'GET', `${M}?companyId=${companyId}`, { token })).body.data
        .filter((m: any) => m.companyManager)
        .map((m: any) => m.id);
    await expect.poll(() => marked(moderator)).toEqual([made.Olive]);
    expect(await marked(admin)).toEqual([made.Olive]);
    const viaGql = await gql(
      t.url,
      'query($c: Int) { approvalManagerOptions(companyId: $c) { id companyManager } }',
      { c: companyId },
      moderator,
    );
    expect(viaGql.data.approvalManagerOptions.filter((m: any) => m.companyManager)).toEqual([
      { id: made.Olive, companyManager: true },
    ]);
    const outside = await api(t.url, 'POST', '/api/company/companies', {
      body: { name: 'Outside Options Co' },
      token: admin,
    });
    expect(
      (await api(t.url, 'GET', `${M}?companyId=${outside.body.data.id}`, { token: moderator })).status,
    ).toBe(404);
    expect((await api(t.url, 'GET', `${M}?companyId=abc`, { token: moderator })).status).toBe(400);
    expect((await assign(null)).status).toBe(200);
    await expect.poll(() => marked(moderator)).toEqual([]);

    // A MODERATOR creates with a picked manager; a manager not on offer is refused and nothing is made.
    const [b1] = freshBills(1);
    const before = (await api(t.url, 'GET', `${A}/stats`, { token: admin })).body.data.total;
    const inactive = await create({ companyId, billIds: [b1.Id], managerId: made.Inez }, moderator);
    expect(inactive.status).toBe(400);
    expect(inactive.body.errors).toEqual([{ field: 'managerId', message: 'This manager is not active' }]);
    expect((await create({ companyId, billIds: [b1.Id], managerId: made.Gone }, moderator)).status).toBe(400);
    expect((await api(t.url, 'GET', `${A}/stats`, { token: admin })).body.data.total).toBe(before);
    const a = await create({ companyId, billIds: [b1.Id], managerId: made.Olive }, moderator);
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ managerId: made.Olive, managerName: 'Olive Options' });

    // Editing: the inactive manager is refused and changes nothing; a valid edit changes all three.
    const bad = await api(t.url, 'PUT', `${A}/${a.body.data.id}`, {
      body: { managerId: made.Inez, priority: 'LOW' },
      token: moderator,
    });
    expect(bad.status).toBe(400);
    const badMail = await api(t.url, 'PUT', `${A}/${a.body.data.id}`, {
      body: { recipients: ['not-an-address'] },
      token: moderator,
    });
    expect(badMail.status).toBe(400);
    expect(badMail.body.errors?.[0].message).toBe('Please enter a valid email address');
    const unchanged = (await api(t.url, 'GET', `${A}/${a.body.data.id}`, { token: admin })).body.data;
    expect(unchanged).toMatchObject({ priority: 'MEDIUM', managerId: made.Olive, recipients: [] });
    const edited = await api(t.url, 'PUT', `${A}/${a.body.data.id}`, {
      body: { priority: 'URGENT', managerId: null, recipients: ['ap@client.example'] },
      token: moderator,
    });
    expect(edited.status).toBe(200);
    expect(edited.body.message).toBe('Approval updated successfully');
    expect(edited.body.data).toMatchObject({
      priority: 'URGENT',
      managerId: null,
      recipients: ['ap@client.example'],
    });
    expect(
      (await api(t.url, 'PUT', `${A}/${a.body.data.id}`, { body: { priority: 'LOW' }, token: user })).status,
    ).toBe(403);
  });
});

describe('export', () => {
  it('neutralises cells a spreadsheet would run as formulas; GraphQL gives the same file', async () => {
    const [b] = freshBills(1);
    const a = (await create({ companyId, billIds: [b.Id] })).body.data;
    const payload = '=HYPERLINK("http://evil.example","click")';
    await api(t.url, 'PUT', `${A}/${a.id}/reject`, { body: { rejectionReason: payload }, token: admin });
    const res = await fetch(`${t.url}${A}/export?search=${a.id}`, {
      headers: { authorization: `Bearer ${user}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="approvals-export.csv"');
    const text = await res.text();
    const rows = parseCsv(text, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ ID: a.id, Status: 'REJECTED', 'Rejection Reason': `'${payload}` });
    for (const r of rows) for (const v of Object.values(r)) expect(v).not.toMatch(/^[=+\-@\t\r]/);
    const g = await gql(
      t.url,
      `query($s: String) { approvalsExport(search: $s, format: csv) { filename contentType content } }`,
      { s: a.id },
      user,
    );
    expect(g.data.approvalsExport).toEqual({
      filename: 'approvals-export.csv',
      contentType: 'text/csv; charset=utf-8',
      content: text,
    });
    const refused = await gql(t.url, '{ approvalsExport { filename } }', {}, guest);
    expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const badFilter = await api(t.url, 'GET', `${A}/export?status=NOPE`, { token: user });
    expect(badFilter.status).toBe(400);
  });
});

describe('expiry', () => {
  it('turns a PENDING approval EXPIRED through its delayed job, and leaves a decided one alone', async () => {
    // A short configured age for this test (the running app reads it at each create).
    const config = t.started.app.config;
    const before = config.APPROVAL_EXPIRY_SECONDS;
    config.APPROVAL_EXPIRY_SECONDS = 2;
    try {
      const [b1, b2] = freshBills(2);
      const pending = (await create({ companyId, billIds: [b1.Id] })).body.data;
      const decided = (await create({ companyId, billIds: [b2.Id], recipients: ['payables@approvals.test'] }))
        .body.data;
      await api(t.url, 'PUT', `${A}/${decided.id}/approve`, {
        body: { approvedBills: [b2.Id] },
        token: admin,
      });
      let status = '';
      for (let i = 0; i < 100 && status !== 'EXPIRED'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await api(t.url, 'GET', `${A}/${pending.id}`, { token: admin })).body.data.status;
      }
      expect(status).toBe('EXPIRED');
      const history = await api(t.url, 'GET', `${A}/${pending.id}/history`, { token: admin });
      // The expiry job, named.
      expect(history.body.data.at(-1)).toMatchObject({
        action: 'Expired',
        actorKind: 'system',
        userName: 'System (approvals job)',
      });
      await new Promise((r) => setTimeout(r, 500));
      // Decided, not expired: approved, and its payment file asked for by the payments process manager.
      expect(['APPROVED', 'NACHA_PENDING']).toContain(
        (await api(t.url, 'GET', `${A}/${decided.id}`, { token: admin })).body.data.status,
      );
      // Its bill is free again.
      expect((await create({ companyId, billIds: [b1.Id] })).status).toBe(201);
    } finally {
      config.APPROVAL_EXPIRY_SECONDS = before;
    }
  }, 30_000);
});

describe('reads', () => {
  it('lists with filters, sorting and the spec’s page sizes; stats; export; roles', async () => {
    const list = await api(t.url, 'GET', `${A}?status=PENDING&limit=5&sortBy=totalAmount&sortOrder=asc`, {
      token: user,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.every((a: any) => a.status === 'PENDING')).toBe(true);
    const amounts = list.body.data.map((a: any) => a.totalAmount);
    expect(amounts).toEqual([...amounts].sort((x, y) => x - y));
    expect(list.body.meta.pagination).toMatchObject({ page: 1, limit: 5 });
    expect((await api(t.url, 'GET', `${A}?limit=7`, { token: user })).status).toBe(400);
    const all = await api(t.url, 'GET', `${A}?limit=100`, { token: user });
    const stats = (await api(t.url, 'GET', `${A}/stats`, { token: user })).body.data;
    expect(stats.total).toBe(all.body.meta.pagination.total);
    expect(stats.pending + stats.approved + stats.rejected + stats.expired).toBe(stats.total);
    expect(stats.expired).toBeGreaterThanOrEqual(1);
    // The running totals agree with the rows themselves.
    expect(stats.processedBills).toBe(all.body.data.reduce((s: number, a: any) => s + a.billCount, 0));
    expect(stats.pending).toBe(all.body.data.filter((a: any) => a.status === 'PENDING').length);
    expect(stats.approvedTotalAmount).toBeCloseTo(
      all.body.data.reduce((s: number, a: any) => s + a.approvedAmount, 0),
      2,
    );
    expect(all.body.data).toHaveLength(all.body.meta.pagination.total);
    const search = all.body.data[0].billIdList[0];
    const found = await api(t.url, 'GET', `${A}?search=${search}`, { token: user });
    expect(found.body.data.map((a: any) => a.id)).toContain(all.body.data[0].id);
    const csv = await fetch(`${t.url}${A}/export?status=APPROVED`, {
      headers: { authorization: `Bearer ${user}` },
    });
    expect(csv.headers.get('content-type')).toMatch('text/csv');
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toMatch(/^ID,Company,Status,Priority/);
    expect(lines.length - 1).toBe(stats.approved);
    for (const path of [A, `${A}/stats`, `${A}/export`])
      expect((await api(t.url, 'GET', path, { token: guest })).status).toBe(403);
    expect((await api(t.url, 'GET', A)).status).toBe(401);
    const dash = await api(t.url, 'GET', '/api/dashboard/stats', { token: admin });
    expect(dash.body.data.pendingApprovals).toBe(stats.pending);
    const chart = await api(t.url, 'GET', '/api/dashboard/approvals-by-status?days=7', { token: admin });
    expect(chart.body.data).toHaveLength(7);
    expect(chart.body.data.at(-1)).toMatchObject({
      date: new Date().toISOString().slice(0, 10),
      total: stats.total,
      pending: stats.pending,
      expired: stats.expired,
    });
    expect((await api(t.url, 'GET', '/api/dashboard/approvals-by-status', { token: user })).status).toBe(403);
    const mine = await api(t.url, 'GET', '/api/user/statistics', { token: admin });
    expect(mine.body.data.approvalsCreated).toBeGreaterThan(3);
  });

  it('GraphQL: list, detail and a mutation answer as REST does', async () => {
    const q = await gql(
      t.url,
      `query { approvals(status: PENDING, limit: 5) { total data { id status billIds totalAmount bills { id } } } approvalStats { total pending byStatus { key count } } }`,
      {},
      user,
    );
    expect(q.errors).toBeUndefined();
    expect(q.data.approvals.data[0].bills).toBeNull();
    const id = q.data.approvals.data[0].id;
    const d = await gql(
      t.url,
      `query($id: String!) { approval(id: $id) { id bills { id vendorEmail achStatus { hasBankingInfo } } } }`,
      { id },
      user,
    );
    expect(d.data.approval.bills.length).toBeGreaterThan(0);
    const m = await gql(
      t.url,
      `mutation($id: String!) { rejectApproval(id: $id, rejectionReason: "Through GraphQL") { status rejectionReason } }`,
      { id },
      user,
    );
    expect(m.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});

/** A graphql-ws client signed in with `token`, not reconnecting (a test ends it). */
const socket = (token: string) =>
  createClient({
    url: `${t.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { token },
    retryAttempts: 0,
  });

describe('live and bulk', () => {
  it('pushes a status change to approvalChanged subscribers', async () => {
    const [b] = freshBills(1);
    const a = (await create({ companyId, billIds: [b.Id] })).body.data;
    const client = socket(user);
    try {
      const seen = new Promise<any>((resolve, reject) => {
        client.subscribe(
          {
            query: `subscription($c: Int) { approvalChanged(companyId: $c) { id type status approval { status } } }`,
            variables: { c: companyId },
          },
          {
            next: (m: any) => {
              if (m.data?.approvalChanged?.id === a.id) resolve(m.data.approvalChanged);
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      await new Promise((r) => setTimeout(r, 300));
      await api(t.url, 'PUT', `${A}/${a.id}/reject`, { body: { rejectionReason: 'Live' }, token: admin });
      const change = await seen;
      expect(change).toMatchObject({
        type: 'ApprovalRejected',
        status: 'REJECTED',
        approval: { status: 'REJECTED' },
      });
    } finally {
      await client.dispose();
    }
  });

  it("pushes what the screens subscribe to (id, type, status) for a status change and for an edit; a message's rows are read once, and only when a push asks for them", async () => {
    const [b1, b2] = freshBills(2);
    const one = (await create({ companyId, billIds: [b1.Id] })).body.data;
    const two = (await create({ companyId, billIds: [b2.Id] })).body.data;
    const client = socket(user);
    try {
      const pushes: any[] = [];
      const arrived = (n: number) =>
        new Promise<void>((resolve, reject) => {
          const tick = setInterval(() => {
            if (pushes.length >= n) {
              clearInterval(tick);
              resolve();
            }
          }, 20);
          setTimeout(() => {
            clearInterval(tick);
            reject(new Error(`${pushes.length} of ${n} pushes`));
          }, 10_000);
        });
      client.subscribe(
        // The list screen's own document (web/src/hooks/use-approval-changed.ts).
        {
          query: 'subscription($id: String) { approvalChanged(id: $id) { id type status } }',
          variables: { id: one.id },
        },
        { next: (m: any) => pushes.push(m.data.approvalChanged), error: () => {}, complete: () => {} },
      );
      await new Promise((r) => setTimeout(r, 300));
      // An edit's notice carries no status: the push reads it from the row.
      await api(t.url, 'PUT', `${A}/${one.id}`, { body: { priority: 'URGENT' }, token: admin });
      await arrived(1);
      expect(pushes[0]).toEqual({ id: one.id, type: 'ApprovalUpdated', status: 'PENDING' });
      await api(t.url, 'PUT', `${A}/${one.id}/reject`, { body: { rejectionReason: 'Live' }, token: admin });
      await arrived(2);
      expect(pushes[1]).toEqual({ id: one.id, type: 'ApprovalRejected', status: 'REJECTED' });
    } finally {
      await client.dispose();
    }

    // The reads themselves, on a bus of our own: none until a push asks; one for a whole message.
    let statements = 0;
    const app = {
      ...t.started.app,
      db: t.started.app.db.withPlugin({
        transformQuery: (a) => {
          statements++;
          return a.node;
        },
        transformResult: async (a) => a.result,
      }),
    };
    let deliver: (notices: ChangeNotice[]) => void = () => {};
    batchApprovalReads({ onNotices: (l: typeof deliver) => (deliver = l) } as unknown as LiveBus, app);
    const message: ChangeNotice[] = [
      { topic: 'approval', id: one.id, data: { type: 'ApprovalRejected', companyId, status: 'REJECTED' } },
      { topic: 'approval', id: two.id, data: { type: 'ApprovalUpdated', companyId } },
    ];
    deliver(message);
    expect(statements).toBe(0);
    const [first, second] = await Promise.all(message.map((n) => changedApproval(n, app, null)));
    expect([first?.status, second?.status]).toEqual(['REJECTED', 'PENDING']);
    const afterOneRead = statements;
    expect(afterOneRead).toBeGreaterThan(0);
    await changedApproval(message[1], app, null);
    expect(statements).toBe(afterOneRead);
  });

  it("pushes a company's policy change to approvalPolicyChanged subscribers; a GUEST gets no stream", async () => {
    const client = socket(user);
    const outsider = socket(guest);
    try {
      const seen = new Promise<any>((resolve, reject) => {
        client.subscribe(
          {
            query: 'subscription($c: Int) { approvalPolicyChanged(companyId: $c) { companyId } }',
            variables: { c: companyId },
          },
          { next: (m: any) => resolve(m), error: reject, complete: () => {} },
        );
      });
      const refused = new Promise<any>((resolve) => {
        outsider.subscribe(
          { query: 'subscription { approvalPolicyChanged { companyId } }' },
          { next: (m: any) => resolve(m), error: (e: unknown) => resolve({ error: e }), complete: () => {} },
        );
      });
      await new Promise((r) => setTimeout(r, 300));
      const P = `/api/bill-approval/policies/${companyId}`;
      await api(t.url, 'PUT', P, { body: { creatorMayNotApprove: true }, token: admin });
      expect(await seen).toEqual({ data: { approvalPolicyChanged: { companyId } } });
      const guestAnswer = await refused;
      expect(JSON.stringify(guestAnswer)).toMatch(
        /Not authorized to resolve Subscription.approvalPolicyChanged/,
      );
      expect(guestAnswer.data?.approvalPolicyChanged ?? null).toBeNull();
      await api(t.url, 'PUT', P, { body: { creatorMayNotApprove: false }, token: admin });
    } finally {
      await client.dispose();
      await outsider.dispose();
    }
  });

  // Its speed (100 within 2 s) is a figure of `npm run bench` (bench/approvals.ts), not timed here.
  it('bulk-approves 100 approvals with a result per row and one wait for the batch, and bulk-rejects', async () => {
    const second = await connectCompany('Bulk Logistics', 1);
    const bulkRealm = sim.realms().find((r) => r.realmId === second.realmId)!;
    const vendor = bulkRealm.vendors[0];
    const ids: string[] = [];
    for (let i = 0; i < 110; i++) {
      const bill = (
        await qbPost(second.id, second.realmId, 'bill', {
          VendorRef: { value: vendor.Id },
          DocNumber: `BULK-${i}`,
          Line: [{ Amount: 10 + i }],
        })
      ).Bill;
      const r = await create({
        companyId: second.id,
        billIds: [bill.Id],
        recipients: ['payables@approvals.test'],
      });
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const r = await api(t.url, 'POST', `${A}/bulk-approve`, {
      body: { ids: ids.slice(0, 100) },
      token: moderator,
    });
    expect(r.status).toBe(200);
    expect(r.body.data.summary).toEqual({ processed: 100, succeeded: 100, failed: 0 });
    // One wait for the batch: every row reads APPROVED at once.
    const approved = await api(t.url, 'GET', `${A}?companyId=${second.id}&status=APPROVED&limit=100`, {
      token: admin,
    });
    expect(approved.body.meta.pagination.total).toBe(100);
    const rej = await api(t.url, 'POST', `${A}/bulk-reject`, {
      body: { ids: [ids[0], ids[100], ids[101], 'not-an-id'], reason: 'Batch reject' },
      token: admin,
    });
    expect(rej.body.data.summary).toEqual({ processed: 4, succeeded: 2, failed: 2 });
    expect(rej.body.data.results[0]).toMatchObject({ id: ids[0], success: false });
    expect(rej.body.data.results[1]).toMatchObject({ id: ids[100], success: true, status: 'REJECTED' });
    expect(
      (await api(t.url, 'POST', `${A}/bulk-reject`, { body: { ids: [ids[102]], reason: ' ' }, token: admin }))
        .status,
    ).toBe(400);
    expect(
      (await api(t.url, 'POST', `${A}/bulk-approve`, { body: { ids: [ids[102]] }, token: user })).status,
    ).toBe(403);
  }, 120_000);

  it('a rebuild from the log gives the same rows and running totals', async () => {
    const snapshot = async () => ({
      rows: await sql(`SELECT * FROM approvals ORDER BY id`),
      totals: await sql(`SELECT * FROM approval_counts WHERE n <> 0 ORDER BY company_id, status, priority`),
    });
    // The payments jobs of approvals approved above are still writing: wait until none is asked for.
    for (let i = 0; i < 400; i++) {
      const [{ n }] = await sql<{ n: string }>(
        `SELECT count(*) AS n FROM approvals WHERE nacha_status = 'REQUESTED'`,
      );
      if (Number(n) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    const before = await snapshot();
    expect(before.rows.length).toBeGreaterThan(100);
    await rebuildProjection(t.started.app.db, t.started.app.store, approvalsProjection, { batchSize: 37 });
    expect(await snapshot()).toEqual(before);
  }, 60_000);
});
