// QuickBooks bill payments after PAYMENT_COMPLETED, against the simulator: every
// bill paid → SUCCESS with BillPayments and balances 0; one bill failing → PARTIAL_SUCCESS, retry →
// SUCCESS, the simulator's log showing each bill paid once; a run started again after a crash pays
// nothing twice; a company not connected → SKIPPED; the retry's refusals and roles. The approvals
// reach PAYMENT_COMPLETED through the decider's commands (no real NACHA file). The product runs as a
// gateway and a projector, no worker: the test runs the payment jobs itself, so nothing races them.
import { DelayedError, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldQbSyncItem } from '../../projections/approvals/approval-payments.js';
import { testAppEnv } from '../../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { connectedCompany } from '../../test/support/payments.js';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import type { LoggedRequest } from '../../tools/qbo-sandbox/types.js';
import { qbPaymentJobHandlers } from '../../workers/approvals/qb-payment-jobs.js';
import type { StoredEvent } from '../eventstore/port.js';
import { type StartedApp, startApp } from '../main.js';
import type { QbBill } from '../quickbooks/bills.js';
import type { QbBillPayment } from '../quickbooks/client.js';
import { loadConfig } from '../shared/config.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { qbPaymentRequestId } from './payments/qb-payments.js';

const A = '/api/bill-approval/approvals';
const admin = { email: 'admin@billflow.test', password: 'Admin-Passw0rd!' };
const qbApp = { clientId: 'billflow-qb-pay', clientSecret: 'qb-pay-secret-value-4711' };

let sim: QboSandbox;
let db: TestDatabase;
let redis: TestRedis;
let gateway: StartedApp;
let projector: StartedApp;
let url = '';
let token = '';
let userToken = '';
let adminId = 0;
let companyId = 0;
let bankId = '';
let realmId = '';
let otherCompanyId = 0;
let openBills: string[] = [];
let otherBills: string[] = [];
let jobs = 0;

const simGet = async (path: string) => (await fetch(`${sim.url}${path}`)).json();
const simPost = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const paymentsLog = async () =>
  ((await simGet('/__sim/requests')).requests as LoggedRequest[]).filter((r) =>
    r.path.endsWith('/billpayment'),
  );
/** QuickBooks' objects as they are now (sim.realms() is the seed, before any payment). */
async function qbGet<T>(path: string): Promise<T> {
  const access = await gateway.app.quickbooks.access(companyId, { userId: null });
  return access.client.get<T>(access.isSandbox, access.realmId, access.auth, path);
}
const billNow = async (id: string) =>
  (await qbGet<{ Bill: QbBill & { LinkedTxn: unknown[] } }>(`bill/${id}`)).Bill;
const paymentNow = async (id: string) =>
  (await qbGet<{ BillPayment: QbBillPayment }>(`billpayment/${id}`)).BillPayment;

function fakeJob(name: string, data: Record<string, unknown>, id = `payments_test_${++jobs}`): Job {
  return {
    id,
    name,
    data: { ...data, correlationId: null, causationEventId: id },
    opts: {},
    attemptsMade: 0,
    moveToDelayed: async () => {},
    updateData: async () => {},
  } as unknown as Job;
}

const handle = (approvalId: string, command: Parameters<typeof approvalDecider.decide>[0]) =>
  gateway.app.commands.handle(approvalDecider, approvalStreamId(approvalId), command, { userId: null });
const stateOf = async (approvalId: string) =>
  (await gateway.app.commands.load(approvalDecider, approvalStreamId(approvalId))).state;
const eventsOf = async (approvalId: string) =>
  (await gateway.app.store.readStream(approvalStreamId(approvalId))).events;

/** The sync card's items from the events, by the approvals projection's own fold. */
const qbSyncItems = (events: readonly StoredEvent[]) =>
  events.reduce(
    (items, e) =>
      e.type === 'QbBillPaid' || e.type === 'QbBillPaymentFailed'
        ? foldQbSyncItem(items, e as unknown as Parameters<typeof foldQbSyncItem>[1])
        : items,
    [] as ReturnType<typeof foldQbSyncItem>,
  );

/**
 * An approval of these bills, approved, its file "generated" (paying each bill its balance now, or
 * `fileCents` where given), uploaded and paid: PAYMENT_COMPLETED.
 */
async function paidApproval(cid: number, billIds: string[], fileCents: Record<string, number> = {}) {
  const created = await api(url, 'POST', A, {
    body: { companyId: cid, billIds, recipients: ['payables@billflow.test'] },
    token,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as string;
  const approved = await api(url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: billIds }, token });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const now = () => new Date().toISOString();
  // What the file paid, per vendor and bill, as the generation records it.
  const detail = (await api(url, 'GET', `${A}/${id}`, { token })).body.data;
  const byVendor = new Map<string, Array<{ billId: string; amountCents: number }>>();
  for (const b of detail.billsParsed as Array<{
    Id: string;
    Balance: number;
    VendorRef: { value: string };
  }>) {
    const list = byVendor.get(b.VendorRef.value) ?? [];
    list.push({ billId: b.Id, amountCents: fileCents[b.Id] ?? Math.round(b.Balance * 100) });
    byVendor.set(b.VendorRef.value, list);
  }
  const vendors = [...byVendor].map(([qbVendorId, bills]) => ({
    qbVendorId,
    name: `Vendor ${qbVendorId}`,
    amountCents: bills.reduce((s, b) => s + b.amountCents, 0),
    accountLast4: '6789',
    billIds: bills.map((b) => b.billId),
    bills,
  }));
  const total = vendors.reduce((s, v) => s + v.amountCents, 0);
  await handle(id, { type: 'RequestNacha', reason: 'approved', byUserId: null, now: now() });
  await handle(id, {
    type: 'RecordNachaGenerated',
    version: 1,
    file: {
      fileId: `file-${id}`,
      fileName: 'test.ach',
      batchNumber: 1,
      fileIdModifier: 'A',
      effectiveDate: '2030-01-02',
      entryCount: vendors.length,
      totalCreditCents: total,
      totalDebitCents: 0,
      balanced: false,
      vendors,
      skippedBills: [],
    },
    now: now(),
  });
  await handle(id, { type: 'MarkBankUploaded', byUserId: adminId, link: null, now: now() });
  await handle(id, { type: 'MarkPaymentCompleted', byUserId: adminId, link: null, now: now() });
  expect((await stateOf(id)).status).toBe('PAYMENT_COMPLETED');
  return id;
}

const startSync = (approvalId: string) =>
  qbPaymentJobHandlers['start-qb-sync'](gateway.app, fakeJob('start-qb-sync', { approvalId }));
const payBills = (approvalId: string, attempt: number, job = fakeJob('pay-bills', { approvalId, attempt })) =>
  qbPaymentJobHandlers['pay-bills'](gateway.app, job);
const syncOf = async (approvalId: string) => (await stateOf(approvalId)).payment.qbSync;
const lastFinish = async (approvalId: string) =>
  (await eventsOf(approvalId)).filter((e) => e.type === 'QbPaymentSyncFinished').at(-1)?.data as
    | { status: string; message: string; attempt: number }
    | undefined;
const retry = (approvalId: string, as = token) =>
  api(url, 'POST', `${A}/${approvalId}/retry-qb-sync`, { token: as });

beforeAll(async () => {
  // A one-second throttle window: a throttled job waits a second here, not Intuit's minute.
  sim = await startQboSandbox({
    clients: [qbApp],
    ratePerMinute: 100_000,
    concurrentPerRealm: 50,
    rateWindowSeconds: 1,
  });
  db = await createTestDatabase('qbpay');
  await db.pool.end();
  redis = await createTestRedis('qbpay');
  const env = testAppEnv(db, redis, admin, {
    HOST: '127.0.0.1',
    PORT: '0',
    QBO_OAUTH_BASE: sim.url,
    QBO_API_BASE: sim.url,
  });
  // The whole product once (its first admin), then a gateway and a projector without workers.
  const all = await startApp(loadConfig(env));
  await all.close();
  projector = await startApp(loadConfig({ ...env, ROLE: 'projector' }));
  gateway = await startApp(loadConfig({ ...env, ROLE: 'gateway' }));
  url = gateway.url!;
  const signedIn = await signIn(url, admin.email, admin.password);
  token = signedIn.tokens.accessToken;
  adminId = signedIn.user.id;
  const reg = await api(url, 'POST', '/api/auth/register', {
    token,
    body: { email: 'viewer@billflow.test', password: 'Viewer-Passw0rd!', role: 'USER' },
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  userToken = (await signIn(url, 'viewer@billflow.test', 'Viewer-Passw0rd!')).tokens.accessToken;

  const connect = async (name: string, realmIndex: number) => {
    const { companyId: id, realm } = await connectedCompany({
      url,
      sim,
      token,
      app: qbApp,
      name,
      realmIndex,
    });
    const policy = await api(url, 'PUT', `/api/bill-approval/policies/${id}`, {
      body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
      token,
    });
    expect(policy.status).toBe(200);
    const bank = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
    const set = await api(url, 'PUT', `/api/company/companies/${id}/payment-account`, {
      body: { qbPaymentAccountReference: bank.Id },
      token,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    return { id, realm, bank: bank.Id };
  };
  const one = await connect('Payments Plumbing', 0);
  companyId = one.id;
  bankId = one.bank;
  realmId = one.realm.realmId;
  openBills = one.realm.bills.filter((b) => b.Balance > 0).map((b) => b.Id);
  const two = await connect('Unplugged Upholstery', 1);
  otherCompanyId = two.id;
  otherBills = two.realm.bills.filter((b) => b.Balance > 0).map((b) => b.Id);
  expect(openBills.length).toBeGreaterThanOrEqual(16);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await projector?.close();
  await redis?.cleanup();
  await db?.drop();
  await sim?.close();
});

describe('QuickBooks bill payments', () => {
  it('pays every bill once from the payment account: SUCCESS, BillPayments in QuickBooks, balances 0', async () => {
    const bills = openBills.slice(0, 2);
    const before = await Promise.all(bills.map(async (b) => (await billNow(b)).Balance));
    const id = await paidApproval(companyId, bills);
    expect(await startSync(id)).toBe('started');
    // The process manager's job runs once per event; a second start changes nothing.
    expect(await startSync(id)).toBe('unchanged');
    expect(await syncOf(id)).toMatchObject({ status: 'SYNCING', attempt: 1 });
    await payBills(id, 1);
    expect(await syncOf(id)).toMatchObject({ status: 'SUCCESS', paidBillIds: bills });
    expect(await lastFinish(id)).toMatchObject({
      status: 'SUCCESS',
      message: 'All 2 bills paid in QuickBooks',
    });
    const items = qbSyncItems(await eventsOf(id));
    for (const [n, billId] of bills.entries()) {
      const bill = await billNow(billId);
      expect(bill.Balance).toBe(0);
      const paymentId = items.find((i) => i.billId === billId)!.billPaymentId!;
      expect(await paymentNow(paymentId)).toMatchObject({
        PayType: 'Check',
        CheckPayment: { BankAccountRef: { value: bankId } },
        TotalAmt: before[n],
        Line: [{ Amount: before[n], LinkedTxn: [{ TxnId: billId, TxnType: 'Bill' }] }],
      });
      expect(bill.LinkedTxn).toContainEqual({ TxnId: paymentId, TxnType: 'BillPaymentCheck' });
    }
    expect(items.map((i) => [i.billId, i.success, i.error, i.amount])).toEqual(
      bills.map((b, n) => [b, true, null, before[n]]),
    );
    expect(items.every((i) => typeof i.billPaymentId === 'string' && i.duration >= 0)).toBe(true);
    const requestIds = bills.map((b) => qbPaymentRequestId(id, b));
    expect(requestIds.every((r) => r.length <= 50)).toBe(true);
    const log = (await paymentsLog()).filter((r) => requestIds.includes(r.requestId!));
    expect(log.map((r) => r.paidBillIds)).toEqual(bills.map((b) => [b]));

    // The detail's sync card fields, from the approvals read model.
    let detail: Record<string, unknown> = {};
    for (let n = 0; n < 50 && detail.qbPaymentSyncStatus !== 'SUCCESS'; n++) {
      detail = (await api(url, 'GET', `${A}/${id}`, { token })).body.data;
      if (detail.qbPaymentSyncStatus !== 'SUCCESS') await new Promise((r) => setTimeout(r, 100));
    }
    expect(detail).toMatchObject({
      status: 'PAYMENT_COMPLETED',
      qbPaymentSyncStatus: 'SUCCESS',
      qbPaymentSyncMessage: 'All 2 bills paid in QuickBooks',
      qbPaymentSyncItems: items,
    });
    expect(JSON.parse(detail.qbPaymentSyncDetails as string)).toEqual(items);

    // Every bill paid: a retry is refused with the decider's message.
    const refused = await retry(id);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('Every approved bill is already paid in QuickBooks');
  });

  it('one bill failing: PARTIAL_SUCCESS; retry pays only that one: SUCCESS, each bill paid once', async () => {
    const bills = openBills.slice(2, 5);
    const failing = bills[1];
    const id = await paidApproval(companyId, bills);
    await simPost('/__sim/faults', { rules: [{ method: 'POST', billId: failing, kind: 'validation' }] });
    try {
      await startSync(id);
      await payBills(id, 1);
    } finally {
      await simPost('/__sim/faults', { clear: true });
    }
    expect(await syncOf(id)).toMatchObject({ status: 'PARTIAL_SUCCESS', paidBillIds: [bills[0], bills[2]] });
    expect((await lastFinish(id))?.message).toBe(
      '2 of 3 bills paid in QuickBooks; 1 failed: retry to pay the rest',
    );
    const failed = qbSyncItems(await eventsOf(id)).find((i) => i.billId === failing)!;
    expect(failed).toMatchObject({ success: false, billPaymentId: null });
    expect(failed.error).toMatch(/^QuickBooks: /);
    expect((await billNow(failing)).Balance).toBeGreaterThan(0);

    // The retry, as staff press it: the answer's message, the run started (SYNCING).
    const r = await retry(id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: 'QuickBooks payment sync retry started' });
    expect(r.body.data.id).toBe(id);
    expect(await syncOf(id)).toMatchObject({ status: 'SYNCING', attempt: 2 });
    const started = (await eventsOf(id)).filter((e) => e.type === 'QbPaymentSyncStarted').at(-1)!;
    expect(started.data).toMatchObject({ attempt: 2, billIds: [failing], byUserId: adminId });
    // While it runs, a second retry is refused.
    const running = await retry(id);
    expect(running.status).toBe(409);
    expect(running.body.message).toBe('The QuickBooks payment sync is already running');

    await payBills(id, 2);
    expect(await syncOf(id)).toMatchObject({ status: 'SUCCESS' });
    expect((await lastFinish(id))?.message).toBe('All 3 bills paid in QuickBooks');
    expect(qbSyncItems(await eventsOf(id)).every((i) => i.success)).toBe(true);
    for (const b of bills) expect((await billNow(b)).Balance).toBe(0);
    // The simulator's log: each bill paid by exactly one request.
    const paid = (await paymentsLog()).flatMap((l) => l.paidBillIds ?? []);
    for (const b of bills) expect(paid.filter((x) => x === b)).toHaveLength(1);
  });

  it('a run started again after a crash pays nothing twice and records the payment it made', async () => {
    const bills = openBills.slice(5, 7);
    const id = await paidApproval(companyId, bills);
    await startSync(id);
    // The crashed run paid the first bill in QuickBooks, then died before recording it.
    const access = await gateway.app.quickbooks.access(companyId, { userId: null });
    const first = await billNow(bills[0]);
    const requestId = qbPaymentRequestId(id, bills[0]);
    const made = await access.client.createBillPayment(
      access.isSandbox,
      access.realmId,
      access.auth.token,
      {
        VendorRef: { value: first.VendorRef.value },
        PayType: 'Check',
        CheckPayment: { BankAccountRef: { value: bankId } },
        TotalAmt: first.Balance,
        PrivateNote: `Billflow bill payment ${requestId}`,
        Line: [{ Amount: first.Balance, LinkedTxn: [{ TxnId: first.Id, TxnType: 'Bill' }] }],
      },
      requestId,
    );
    // The job runs again, twice over (the same job id: a crash-like re-run).
    const job = fakeJob('pay-bills', { approvalId: id, attempt: 1 });
    await payBills(id, 1, job);
    await payBills(id, 1, job);
    expect(await syncOf(id)).toMatchObject({ status: 'SUCCESS', paidBillIds: bills });
    const items = qbSyncItems(await eventsOf(id));
    expect(items.find((i) => i.billId === bills[0])).toMatchObject({ success: true, billPaymentId: made.Id });
    // One result per bill and one finish, however often the job ran.
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === 'QbBillPaid')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'QbPaymentSyncFinished')).toHaveLength(1);
    const paid = (await paymentsLog()).flatMap((l) => l.paidBillIds ?? []);
    for (const b of bills) expect(paid.filter((x) => x === b)).toHaveLength(1);
  });

  it('a bill paid in QuickBooks by someone else is not paid again and is named as such', async () => {
    const bills = openBills.slice(7, 9);
    const id = await paidApproval(companyId, bills);
    await startSync(id);
    const access = await gateway.app.quickbooks.access(companyId, { userId: null });
    const other = await billNow(bills[1]);
    const elsewhere = await access.client.createBillPayment(
      access.isSandbox,
      access.realmId,
      access.auth.token,
      {
        VendorRef: { value: other.VendorRef.value },
        PayType: 'Check',
        CheckPayment: { BankAccountRef: { value: bankId } },
        TotalAmt: other.Balance,
        Line: [{ Amount: other.Balance, LinkedTxn: [{ TxnId: other.Id, TxnType: 'Bill' }] }],
      },
      'paid-by-hand-1',
    );
    await payBills(id, 1);
    expect(await syncOf(id)).toMatchObject({ status: 'PARTIAL_SUCCESS', paidBillIds: [bills[0]] });
    const item = qbSyncItems(await eventsOf(id)).find((i) => i.billId === bills[1])!;
    expect(item).toMatchObject({ success: false, billPaymentId: null });
    expect(item.error).toBe(
      `Already paid in QuickBooks (BillPayment ${elsewhere.Id}), not by Billflow: no second payment was made`,
    );
    // A retry over GraphQL runs again and still pays it nothing: it stays named, the sync partial.
    const g = await gql(
      url,
      'mutation ($id: String!) { retryQbSync(id: $id) { message approval { id } } }',
      { id },
      token,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data).toEqual({
      retryQbSync: { message: 'QuickBooks payment sync retry started', approval: { id } },
    });
    await payBills(id, 2);
    expect(await syncOf(id)).toMatchObject({
      status: 'PARTIAL_SUCCESS',
      attempt: 2,
      paidBillIds: [bills[0]],
    });
    const paid = (await paymentsLog()).flatMap((l) => l.paidBillIds ?? []);
    expect(paid.filter((x) => x === bills[0])).toHaveLength(1);
    expect(paid.filter((x) => x === bills[1])).toHaveLength(1);
  });

  it('records exactly what the file paid: a bill the file paid in part is paid that part; a balance now below it fails, named', async () => {
    const [partly, lowered] = openBills.slice(12, 14);
    const balances = await Promise.all([partly, lowered].map(async (b) => (await billNow(b)).Balance));
    const id = await paidApproval(companyId, [partly, lowered], { [partly]: 100 });
    // After the upload, someone lowers the second bill's balance in QuickBooks below what the bank paid.
    await simPost('/__sim/bills/update', { realmId, billId: lowered, balance: 0.5 });
    await startSync(id);
    await payBills(id, 1);
    expect(await syncOf(id)).toMatchObject({ status: 'PARTIAL_SUCCESS', paidBillIds: [partly] });
    const items = qbSyncItems(await eventsOf(id));
    const paidItem = items.find((i) => i.billId === partly)!;
    expect(paidItem).toMatchObject({ success: true, amount: 1 });
    expect(await paymentNow(paidItem.billPaymentId!)).toMatchObject({ TotalAmt: 1, Line: [{ Amount: 1 }] });
    expect((await billNow(partly)).Balance).toBe(Math.round((balances[0] - 1) * 100) / 100);
    const failed = items.find((i) => i.billId === lowered)!;
    expect(failed).toMatchObject({ success: false, billPaymentId: null });
    expect(failed.error).toBe(
      `QuickBooks shows an open balance of $0.50, below the $${balances[1].toFixed(2)} the bank paid: not recorded, check the bill in QuickBooks`,
    );
    const paid = (await paymentsLog()).flatMap((l) => l.paidBillIds ?? []);
    expect(paid.filter((x) => x === lowered)).toHaveLength(0);
  });

  it('a retry after a refusal since fixed pays the bill, once: each attempt has its own requestid', async () => {
    const [billId] = openBills.slice(14, 15);
    const bill = await billNow(billId);
    const vendorId = bill.VendorRef.value;
    const id = await paidApproval(companyId, [billId]);
    await simPost('/__sim/vendors/update', { realmId, vendorId, active: false });
    try {
      await startSync(id);
      await payBills(id, 1);
      expect(await syncOf(id)).toMatchObject({ status: 'FAILED', paidBillIds: [] });
      expect(qbSyncItems(await eventsOf(id))[0].error).toMatch(/^QuickBooks: /);
    } finally {
      await simPost('/__sim/vendors/update', { realmId, vendorId, active: true });
    }
    // Intuit keeps the refusal for the first requestid: asked again with it, it refuses again.
    const key = qbPaymentRequestId(id, billId);
    expect((await paymentsLog()).filter((r) => r.requestId === key).map((r) => r.status)).toEqual([400]);
    expect((await retry(id)).status).toBe(200);
    await payBills(id, 2);
    expect(await syncOf(id)).toMatchObject({ status: 'SUCCESS', paidBillIds: [billId] });
    const log = (await paymentsLog()).filter((r) => r.requestId?.startsWith(key));
    expect(log.map((r) => [r.requestId, r.status])).toEqual([
      [key, 400],
      [`${key}-2`, 200],
    ]);
    expect(log.flatMap((r) => r.paidBillIds ?? [])).toEqual([billId]);
    expect((await billNow(billId)).Balance).toBe(0);
  });

  it('a payment whose answers were lost is found on the retry and never paid twice', async () => {
    const [billId] = openBills.slice(15, 16);
    const id = await paidApproval(companyId, [billId]);
    // QuickBooks makes the payment, and every answer to it (the client's retries too) is lost.
    await simPost('/__sim/faults', {
      rules: [{ method: 'POST', billId, kind: 'server', afterWrite: true, count: 4 }],
    });
    try {
      await startSync(id);
      await payBills(id, 1);
    } finally {
      await simPost('/__sim/faults', { clear: true });
    }
    expect(await syncOf(id)).toMatchObject({ status: 'FAILED', paidBillIds: [] });
    const made = (await paymentsLog()).filter((r) => (r.paidBillIds ?? []).includes(billId));
    expect(made).toHaveLength(1);
    expect((await billNow(billId)).Balance).toBe(0);
    expect((await retry(id)).status).toBe(200);
    await payBills(id, 2);
    expect(await syncOf(id)).toMatchObject({ status: 'SUCCESS', paidBillIds: [billId] });
    const item = qbSyncItems(await eventsOf(id)).find((i) => i.billId === billId && i.success)!;
    const bill = await billNow(billId);
    expect(bill.LinkedTxn).toContainEqual({ TxnId: item.billPaymentId, TxnType: 'BillPaymentCheck' });
    const paid = (await paymentsLog()).flatMap((l) => l.paidBillIds ?? []);
    expect(paid.filter((x) => x === billId)).toHaveLength(1);
  });

  it('QuickBooks throttling delays the job and skips no bill; the run goes on where it stopped', async () => {
    const bills = openBills.slice(10, 12);
    const id = await paidApproval(companyId, bills);
    await startSync(id);
    await simPost('/__sim/faults', {
      rules: [{ method: 'POST', billId: bills[1], kind: 'throttle', count: 1 }],
    });
    const delays: number[] = [];
    const job = fakeJob('pay-bills', { approvalId: id, attempt: 1 });
    (job as unknown as { moveToDelayed: (until: number) => Promise<void> }).moveToDelayed = async (until) => {
      delays.push(until);
    };
    const started = Date.now();
    await expect(qbPaymentJobHandlers['pay-bills'](gateway.app, job, 'lock')).rejects.toBeInstanceOf(
      DelayedError,
    );
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(started + 1000);
    // The first bill is recorded, the throttled one is neither paid nor failed: still running.
    expect(await syncOf(id)).toMatchObject({ status: 'SYNCING', paidBillIds: [bills[0]] });
    expect((await eventsOf(id)).some((e) => e.type === 'QbBillPaymentFailed')).toBe(false);
    await new Promise((r) => setTimeout(r, Math.max(0, delays[0] - Date.now()) + 50));
    await qbPaymentJobHandlers['pay-bills'](gateway.app, job, 'lock');
    expect(await syncOf(id)).toMatchObject({ status: 'SUCCESS', paidBillIds: bills });
    const paid = (await paymentsLog()).flatMap((l) => l.paidBillIds ?? []);
    for (const b of bills) expect(paid.filter((x) => x === b)).toHaveLength(1);
  });

  it('a company not connected to QuickBooks: SKIPPED, nothing paid', async () => {
    const bills = otherBills.slice(0, 1);
    const id = await paidApproval(otherCompanyId, bills);
    const gone = await api(url, 'DELETE', `/api/company/companies/${otherCompanyId}/qb-credentials`, {
      token,
    });
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    const before = (await paymentsLog()).length;
    await startSync(id);
    await payBills(id, 1);
    expect(await syncOf(id)).toMatchObject({ status: 'SKIPPED', paidBillIds: [] });
    expect((await lastFinish(id))?.message).toBe(
      'The company is not connected to QuickBooks: no bill payment was recorded there',
    );
    expect((await paymentsLog()).length).toBe(before);
  });

  it('retry refusals: before PAYMENT_COMPLETED (409), a USER (403), over GraphQL the same rules', async () => {
    const bills = openBills.slice(9, 10);
    const created = await api(url, 'POST', A, { body: { companyId, billIds: bills }, token });
    const id = created.body.data.id as string;
    const early = await retry(id);
    expect(early.status).toBe(409);
    expect(early.body.message).toBe('QuickBooks payments are made once the payment is completed');
    const asUser = await retry(id, userToken);
    expect(asUser.status).toBe(403);
    const unknown = await retry('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    const mutation = 'mutation ($id: String!) { retryQbSync(id: $id) { message approval { id status } } }';
    const g = await gql(url, mutation, { id }, token);
    expect(g.errors?.[0].message).toBe('QuickBooks payments are made once the payment is completed');
    const gUser = await gql(url, mutation, { id }, userToken);
    expect(gUser.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await eventsOf(id)).some((e) => e.type === 'QbPaymentSyncStarted')).toBe(false);
  });
});
