// Approvals under attack, through the running product's own calls:
// hostile QuickBooks bills are cleaned or refused before an event, a command on an approval its read
// model does not hold is refused, dual control covers every bill it approves, the creator may not
// approve by default, and staff see and act only on the companies they are assigned to.

import { createClient } from 'graphql-ws';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BillSnapshot } from '../../schema/approvals/events.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { qb } from '../companies/quickbooks.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';

/** Approved: the answer may already show the payment status the payments process manager moved it to. */
const APPROVED_NOW = /^(APPROVED|NACHA_PENDING|NACHA_GENERATED)$/;
let sim: QboSandbox;
let t: TestApp;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};
const qbApp = { clientId: 'billflow-attack', clientSecret: 'attack-secret-value-789' };
const A = '/api/bill-approval/approvals';
const B = '/api/bill-approval/bills';

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

async function connectCompany(name: string, realmIndex: number, assign: Record<string, unknown> = {}) {
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name, ...assign },
    token: tokens.admin,
  });
  expect(c.status).toBe(201);
  const id = c.body.data.id as number;
  const { realmId } = await connectOverHttp({
    gatewayUrl: t.url,
    simUrl: sim.url,
    token: tokens.admin,
    companyId: id,
    app: qbApp,
    realmIndex,
  });
  return { id, realm: sim.realms().find((r) => r.realmId === realmId)! };
}

/**
 * A bill as QuickBooks might answer it, made through the simulator's POST /bill (Intuit's create):
 * the document number and description go in as given; the total is the sum of the line amounts.
 */
async function hostileBill(
  company: { id: number; realm: Realm },
  fields: { DocNumber?: string; Description?: string; amounts?: number[] },
): Promise<QbBill> {
  const vendor = company.realm.vendors.find((v) => v.Active !== false)!;
  const conn = await qb(t.started.app).connections.get(company.id);
  const res = await fetch(`${sim.url}/v3/company/${company.realm.realmId}/bill`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${conn!.tokens!.accessToken}` },
    body: JSON.stringify({
      VendorRef: { value: vendor.Id },
      DocNumber: fields.DocNumber ?? `ATT-${Math.random().toString(36).slice(2, 10)}`,
      Line: (fields.amounts ?? [120.5]).map((Amount) => ({
        Amount,
        Description: fields.Description ?? 'Supplies',
        DetailType: 'AccountBasedExpenseLineDetail',
      })),
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { Bill: QbBill }).Bill;
}

/**
 * An approval as one recorded before the door checked QuickBooks data: appended through the decider
 * with the bill as given (the use case would clean or refuse it).
 */
function recordUnchecked(
  approvalId: string,
  companyId: number,
  bill: Partial<BillSnapshot> & { Id: string },
) {
  const amount = bill.TotalAmt ?? 0;
  return t.started.app.commands.handle(
    approvalDecider,
    approvalStreamId(approvalId),
    {
      type: 'CreateApproval',
      approvalId,
      companyId,
      priority: 'MEDIUM',
      managerId: null,
      byUserId: ids.modB,
      bills: [
        {
          DocNumber: null,
          TxnDate: null,
          DueDate: null,
          Balance: amount,
          CurrencyRef: 'USD',
          VendorRef: { value: '1', name: null },
          VendorInfo: { CompanyName: bill.VendorRef?.name ?? null },
          VendorAddr: null,
          Line: [],
          AttachableId: null,
          InvoiceFileName: null,
          ...bill,
          TotalAmt: amount,
        },
      ],
      vendorContacts: [],
      recipients: ['payables@attack.test'],
      confirmedDuplicates: [],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      now: new Date().toISOString(),
    },
    { userId: String(ids.modB) },
  );
}

const create = (companyId: number, billIds: string[], token = tokens.admin) =>
  api(t.url, 'POST', A, { body: { companyId, billIds, recipients: ['payables@attack.test'] }, token });
const approve = (id: string, billIds: string[], token: string) =>
  api(t.url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: billIds }, token });
const setPolicy = (companyId: number, body: Record<string, unknown>) =>
  api(t.url, 'PUT', `/api/bill-approval/policies/${companyId}`, { body, token: tokens.admin });

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  tokens.admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const [key, role] of [
    ['modA', 'MODERATOR'],
    ['modB', 'MODERATOR'],
    ['modOut', 'MODERATOR'],
    ['userIn', 'USER'],
    ['userOut', 'USER'],
    ['userManaged', 'USER'],
  ] as const) {
    const email = `${key.toLowerCase()}@attack.test`;
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: { email, password: 'Passw0rd-123', role, firstName: key, lastName: 'Test' },
      token: tokens.admin,
    });
    ids[key] = r.body.data.id;
    tokens[key] = (await signIn(t.url, email, 'Passw0rd-123')).tokens.accessToken;
  }
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('QuickBooks bills are input', () => {
  let company: { id: number; realm: Realm };
  beforeAll(async () => {
    company = await connectCompany('Hostile Bills Co', 0, { approverId: ids.modA, processorId: ids.userIn });
  });

  it('lists hostile bills cleaned, never a 500, and says why one cannot be paid', async () => {
    const nul = await hostileBill(company, {
      DocNumber: 'INV-\u0000-1',
      Description: 'Paper\u0007\u0000 A4',
    });
    const surrogate = await hostileBill(company, { DocNumber: 'INV-\uD800-2' });
    const bidi = await hostileBill(company, { DocNumber: 'INV-\u202Egpj.exe' });
    const huge = await hostileBill(company, { amounts: [9e15] });
    const fraction = await hostileBill(company, { amounts: [10.005] });
    const r = await api(t.url, 'GET', `${B}?companyId=${company.id}`, { token: tokens.modA });
    expect(r.status).toBe(200);
    const byId = new Map<string, any>(r.body.data.map((b: any) => [b.id, b]));
    expect(byId.get(nul.Id).docNumber).toBe('INV--1');
    expect(byId.get(surrogate.Id).docNumber).toBe('INV-\uFFFD-2');
    expect(byId.get(bidi.Id).docNumber).toBe('INV-gpj.exe');
    expect(byId.get(nul.Id).refusedReason).toBeNull();
    expect(byId.get(huge.Id).refusedReason).toMatch(/99,999,999\.99/);
    expect(byId.get(fraction.Id).refusedReason).toMatch(/line amount/);
  });

  it('refuses to create an approval with an amount no ACH payment carries, and changes nothing', async () => {
    const huge = await hostileBill(company, { amounts: [9e15] });
    const fraction = await hostileBill(company, { amounts: [10.005, 5] });
    const before = await sql(`SELECT count(*)::int AS n FROM es_events`);
    for (const bill of [huge, fraction]) {
      const r = await create(company.id, [bill.Id]);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/cannot pay/);
    }
    expect(await sql(`SELECT count(*)::int AS n FROM es_events`)).toEqual(before);
  });

  it('an approval of cleaned bills is listed, shown and approvable; nothing is parked', async () => {
    const nul = await hostileBill(company, { DocNumber: 'INV-\u0000-9', Description: 'Ink\u0007\u0000' });
    const bidi = await hostileBill(company, { DocNumber: 'INV-\u202Eftp.bat' });
    const surrogate = await hostileBill(company, { DocNumber: 'INV-\uDC00-9' });
    const r = await create(company.id, [nul.Id, bidi.Id, surrogate.Id]);
    expect(r.status).toBe(201);
    const id = r.body.data.id as string;
    const list = await api(t.url, 'GET', `${A}?companyId=${company.id}&limit=100`, { token: tokens.admin });
    expect(list.body.data.map((a: any) => a.id)).toContain(id);
    const detail = await api(t.url, 'GET', `${A}/${id}`, { token: tokens.admin });
    const docs = detail.body.data.billsParsed.map((b: any) => b.DocNumber);
    expect(docs).toEqual(['INV--9', 'INV-ftp.bat', 'INV-\uFFFD-9']);
    expect(detail.body.data.billsParsed[0].Line[0].Description).toBe('Ink');
    // JSON writes a control character as an escape (\u0000); a direction override stays as it is.
    const raw = JSON.stringify(detail.body.data);
    for (const bad of ['\\u0000', '\\u0007', '\u202E']) expect(raw).not.toContain(bad);
    expect((await approve(id, [nul.Id], tokens.modA)).body.data.status).toMatch(APPROVED_NOW);
    expect(await sql(`SELECT event_type FROM parked_events`)).toEqual([]);
  });

  it('an approval recorded before the cleaning shows its bills cleaned', async () => {
    const approvalId = '6f1c1d2e-0000-4000-8000-00000000b22b';
    const bill = await hostileBill(company, { amounts: [45] });
    await recordUnchecked(approvalId, company.id, {
      Id: bill.Id,
      DocNumber: 'INV-\u202Egpj.exe',
      TotalAmt: 45,
      VendorRef: { value: bill.VendorRef.value, name: 'Old\u0007 Vendor' },
      VendorInfo: { CompanyName: 'Old Vendor\u202E' },
      Line: [{ Id: '1', Description: 'Ink\u0007', Amount: 45, Qty: null, ItemName: null, AccountName: null }],
    });
    let detail = await api(t.url, 'GET', `${A}/${approvalId}`, { token: tokens.admin });
    for (let i = 0; detail.status === 404 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      detail = await api(t.url, 'GET', `${A}/${approvalId}`, { token: tokens.admin });
    }
    const [b] = detail.body.data.billsParsed;
    expect(b.DocNumber).toBe('INV-gpj.exe');
    expect(b.VendorRef.name).toBe('Old Vendor');
    expect(b.VendorInfo.CompanyName).toBe('Old Vendor');
    expect(b.Line[0].Description).toBe('Ink');
  });

  it('a command on an approval that its read model does not hold is refused', async () => {
    // An approval recorded before these checks existed, with an amount its read model cannot hold:
    // the projection parks it, and no one may approve what no screen shows.
    const approvalId = '6f1c1d2e-0000-4000-8000-00000000a11a';
    const bill = await hostileBill(company, { amounts: [40] });
    await recordUnchecked(approvalId, company.id, {
      Id: bill.Id,
      DocNumber: 'OLD-1',
      TotalAmt: 9e15,
      VendorRef: { value: bill.VendorRef.value, name: 'Old Vendor' },
    });
    const r = await approve(approvalId, [bill.Id], tokens.modA);
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/cannot be acted on/);
    const { state } = await t.started.app.commands.load(approvalDecider, approvalStreamId(approvalId));
    expect(state.status).toBe('PENDING');
    expect((await api(t.url, 'GET', `${A}/${approvalId}`, { token: tokens.admin })).status).toBe(404);
  });
});

describe('dual control and the default policy', () => {
  let company: { id: number; realm: Realm };
  beforeAll(async () => {
    company = await connectCompany('Dual Control Co', 1, { approverId: ids.modA, accountantId: ids.modB });
  });

  it('a new company keeps the creator from approving', async () => {
    const policy = await api(t.url, 'GET', `/api/bill-approval/policies/${company.id}`, {
      token: tokens.admin,
    });
    expect(policy.body.data).toMatchObject({ creatorMayNotApprove: true, secondApprovalThreshold: null });
    const bill = await hostileBill(company, { amounts: [300] });
    const a = (await create(company.id, [bill.Id], tokens.modA)).body.data;
    const own = await approve(a.id, [bill.Id], tokens.modA);
    expect(own.status).toBe(403);
    expect(own.body.message).toMatch(/creator/);
    expect((await approve(a.id, [bill.Id], tokens.modB)).body.data.status).toMatch(APPROVED_NOW);
  });

  it('X approved by A and Y by B is not approved: every approved bill above the threshold has two approvers', async () => {
    expect(
      (await setPolicy(company.id, { creatorMayNotApprove: true, secondApprovalThreshold: 1000 })).status,
    ).toBe(200);
    const x = await hostileBill(company, { amounts: [1500] });
    const y = await hostileBill(company, { amounts: [1200] });
    const a = (await create(company.id, [x.Id, y.Id])).body.data;
    const first = await approve(a.id, [x.Id], tokens.modA);
    expect(first.body.data).toMatchObject({
      status: 'PENDING',
      awaitingSecondApproval: true,
      firstApprovedBy: ids.modA,
    });
    const second = await approve(a.id, [y.Id], tokens.modB);
    expect(second.status).toBe(200);
    // B's choice reached beyond A's: B is now the first approver of Y, and it still waits.
    expect(second.body.data).toMatchObject({
      status: 'PENDING',
      awaitingSecondApproval: true,
      firstApprovedBy: ids.modB,
    });
    const done = await approve(a.id, [y.Id], tokens.modA);
    expect(done.body.data.status).toMatch(APPROVED_NOW);
    expect(done.body.data).toMatchObject({
      approvedBillIds: y.Id,
      approvedBy: ids.modA,
      firstApprovedBy: ids.modB,
    });
    const history = await api(t.url, 'GET', `${A}/${a.id}/history`, { token: tokens.admin });
    // The approval's own steps; the payment steps that follow the approval (the file asked for, …)
    // are not this test's.
    const own = history.body.data.filter(
      (h: any) => h.stream === `approval-${a.id}` && !h.action.startsWith('NACHA'),
    );
    expect(own.map((h: any) => h.action)).toEqual([
      'Created',
      'First approval',
      'First approval',
      'Approved',
    ]);
    expect(own[2].details).toMatch(/replaces the first approval/);
  });
});

describe('staff see and act on their own companies', () => {
  let scoped: { id: number; realm: Realm };
  let approvalId = '';
  let billIds: string[] = [];
  beforeAll(async () => {
    const manager = await api(t.url, 'POST', '/api/manager/managers', {
      body: {
        firstName: 'Lee',
        lastName: 'Manager',
        email: 'lee.manager@attack.test',
        userId: ids.userManaged,
      },
      token: tokens.admin,
    });
    expect(manager.status).toBe(201);
    scoped = await connectCompany('Scoped Client Co', 2, {
      approverId: ids.modA,
      processorId: ids.userIn,
      managerId: manager.body.data.id,
    });
    billIds = [
      (await hostileBill(scoped, { amounts: [80] })).Id,
      (await hostileBill(scoped, { amounts: [90] })).Id,
    ];
    approvalId = (await create(scoped.id, billIds)).body.data.id;
  });

  const listIds = async (token: string) =>
    ((await api(t.url, 'GET', `${A}?limit=100`, { token })).body.data as any[]).map((a) => a.id);

  it('assigned staff (and the user of the company’s manager) see it; others do not, in any read', async () => {
    for (const who of ['admin', 'modA', 'userIn', 'userManaged']) {
      expect(await listIds(tokens[who])).toContain(approvalId);
      expect((await api(t.url, 'GET', `${A}/${approvalId}`, { token: tokens[who] })).status).toBe(200);
    }
    for (const who of ['modOut', 'userOut']) {
      const token = tokens[who];
      expect(await listIds(token)).not.toContain(approvalId);
      expect((await api(t.url, 'GET', `${A}/${approvalId}`, { token })).status).toBe(404);
      expect((await api(t.url, 'GET', `${A}/${approvalId}/history`, { token })).status).toBe(404);
      expect(
        (await api(t.url, 'GET', `${A}/${approvalId}/bills/${billIds[0]}/invoice`, { token })).status,
      ).toBe(404);
      const stats = await api(t.url, 'GET', `${A}/stats?companyId=${scoped.id}`, { token });
      expect(stats.body.data.total).toBe(0);
      const csv = await fetch(`${t.url}${A}/export?format=csv`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await csv.text()).not.toContain(approvalId);
      const g = await gql(
        t.url,
        `query($id: String!) { approval(id: $id) { id } }`,
        { id: approvalId },
        token,
      );
      expect(g.data?.approval ?? null).toBeNull();
      expect(g.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
  });

  it('an unassigned MODERATOR can neither approve, list its bills, create, nor bulk-act', async () => {
    const token = tokens.modOut;
    expect((await approve(approvalId, billIds, token)).status).toBe(404);
    expect((await api(t.url, 'GET', `${B}?companyId=${scoped.id}`, { token })).status).toBe(404);
    const extra = await hostileBill(scoped, { amounts: [70] });
    expect((await create(scoped.id, [extra.Id], token)).status).toBe(404);
    const bulk = await api(t.url, 'POST', `${A}/bulk-approve`, { body: { ids: [approvalId] }, token });
    expect(bulk.body.data.results[0]).toMatchObject({ success: false, error: 'Approval not found' });
    const { state } = await t.started.app.commands.load(approvalDecider, approvalStreamId(approvalId));
    expect(state.status).toBe('PENDING');
  });

  it('pushes its changes only to subscribers who may see it', async () => {
    const received: Record<string, string[]> = { userIn: [], userOut: [] };
    const clients = (['userIn', 'userOut'] as const).map((who) => {
      const client = createClient({
        url: `${t.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { token: tokens[who] },
        retryAttempts: 0,
      });
      client.subscribe(
        { query: 'subscription { approvalChanged { id type } }' },
        {
          next: (m: any) => received[who].push(m.data.approvalChanged.id),
          error: () => {},
          complete: () => {},
        },
      );
      return client;
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      await api(t.url, 'PUT', `${A}/${approvalId}`, { body: { priority: 'URGENT' }, token: tokens.admin });
      const deadline = Date.now() + 10_000;
      while (!received.userIn.includes(approvalId) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(received.userIn).toContain(approvalId);
      await new Promise((r) => setTimeout(r, 300));
      expect(received.userOut).not.toContain(approvalId);
    } finally {
      for (const c of clients) await c.dispose();
    }
  });

  it('the assigned MODERATOR approves; opening the company to all staff is the ADMIN’s, on record', async () => {
    expect(
      (
        await setPolicy(scoped.id, {
          creatorMayNotApprove: true,
          secondApprovalThreshold: null,
          assignedStaffOnly: false,
        })
      ).body.data,
    ).toMatchObject({ assignedStaffOnly: false });
    expect(await listIds(tokens.userOut)).toContain(approvalId);
    const policySet = await sql(
      `SELECT data FROM es_events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1`,
      [`approvalpolicy-${scoped.id}`],
    );
    expect(JSON.stringify(policySet[0])).toContain('assignedStaffOnly');
    expect(
      (
        await api(t.url, 'PUT', `/api/bill-approval/policies/${scoped.id}`, {
          body: { creatorMayNotApprove: true, secondApprovalThreshold: null, assignedStaffOnly: false },
          token: tokens.modA,
        })
      ).status,
    ).toBe(403);
    await setPolicy(scoped.id, {
      creatorMayNotApprove: true,
      secondApprovalThreshold: null,
      assignedStaffOnly: true,
    });
    expect(await listIds(tokens.userOut)).not.toContain(approvalId);
    expect((await approve(approvalId, billIds, tokens.modA)).body.data.status).toMatch(APPROVED_NOW);
  });
});
