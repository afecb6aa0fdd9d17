// The control on bank detail changes through every path the product has, on the real gateway and the
// QuickBooks simulator: the banking form over REST and over GraphQL, the batch update and the CSV
// import each make a held change and leave the live banking as it was; only a second person (never
// the maker, never a USER or GUEST, never staff outside the company) makes it live, or rejects it;
// turning the control off is an ADMIN's, with a reason, on record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';

const qbApp = { clientId: 'billflow-banking-control', clientSecret: 'banking-control-secret-77' };
const PASSWORD = 'Passw0rd-123';
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let mona = '';
let max = '';
let outsider = '';
let user = '';
let companyId = 0;
const ids: Record<string, number> = {};
let vendors: Array<{ id: number; name: string }> = [];

const bank = (account: string, routingNumber = '011000015') => ({
  routingNumber,
  accountNumber: account,
  accountType: 'checking',
  bankName: 'Boston Fed',
});

async function gql(token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as {
    data?: any;
    errors?: Array<{ message: string; extensions?: { code?: string } }>;
  };
}

const vendor = async (id: number, token = admin) =>
  (await api(t.url, 'GET', `/api/vendors/${id}`, { token })).body.data;

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp] });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const [key, role, email] of [
    ['mona', 'MODERATOR', 'mona@banking.test'],
    ['max', 'MODERATOR', 'max@banking.test'],
    ['outsider', 'MODERATOR', 'olga@banking.test'],
    ['user', 'USER', 'uma@banking.test'],
  ] as const) {
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: { email, password: PASSWORD, role, firstName: key, lastName: 'Test' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    ids[key] = r.body.data.id;
  }
  [mona, max, outsider, user] = await Promise.all(
    ['mona', 'max', 'olga', 'uma'].map(
      async (n) => (await signIn(t.url, `${n}@banking.test`, PASSWORD)).tokens.accessToken,
    ),
  );
  // Two moderators on the company (approver and accountant); the outsider on none.
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name: 'Guarded Goods', approverId: ids.mona, accountantId: ids.max, processorId: ids.user },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  companyId = c.body.data.id;
  await connectOverHttp({ gatewayUrl: t.url, simUrl: sim.url, token: admin, companyId, app: qbApp });
  const s = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId }, token: admin });
  expect(s.status).toBe(202);
  for (let i = 0; i < 300; i++) {
    const r = await api(t.url, 'GET', `/api/vendors/sync/${s.body.data.syncId}`, { token: admin });
    if (r.body.data.status === 'completed') break;
    await new Promise((res) => setTimeout(res, 100));
  }
  vendors = (await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=40`, { token: admin })).body
    .data;
  expect(vendors.length).toBeGreaterThanOrEqual(20);
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('the control on bank detail changes', () => {
  it('is on by default; only an ADMIN turns it off, with a reason', async () => {
    const got = await api(t.url, 'GET', `/api/vendors/banking-control/${companyId}`, { token: mona });
    expect(got.body.data).toEqual({ companyId, enabled: true, flagDays: 30 });
    const byModerator = await api(t.url, 'PUT', `/api/vendors/banking-control/${companyId}`, {
      body: { enabled: false, reason: 'faster' },
      token: mona,
    });
    expect(byModerator.status).toBe(403);
    const noReason = await api(t.url, 'PUT', `/api/vendors/banking-control/${companyId}`, {
      body: { enabled: false },
      token: admin,
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error).toMatch(/reason/);
    expect(
      (await api(t.url, 'GET', `/api/vendors/banking-control/${companyId}`, { token: admin })).body.data
        .enabled,
    ).toBe(true);
  });

  it('the form over REST holds a first entry and a change; the maker cannot approve; a second moderator does', async () => {
    const v = vendors[0];
    const first = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: bank('55500011004'),
      token: mona,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.message).toMatch(/held|goes live once/i);
    expect(first.body.data).toMatchObject({ hasBankingInfo: false, accountNumber: null });
    expect(first.body.data.pendingBankingChange).toMatchObject({
      status: 'pending',
      accountNumber: expect.stringMatching(/^\*+1004$/),
      previousAccountNumber: null,
      requestedById: ids.mona,
      source: 'form',
    });
    const changeId = first.body.data.pendingBankingChange.changeId;
    const byMaker = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${changeId}/approve`, {
      body: { reason: 'mine' },
      token: mona,
    });
    expect(byMaker.status).toBe(403);
    for (const token of [user, outsider]) {
      const refused = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${changeId}/approve`, {
        body: { reason: 'ok' },
        token,
      });
      expect([403, 404]).toContain(refused.status);
    }
    const noReason = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${changeId}/approve`, {
      body: {},
      token: max,
    });
    expect(noReason.status).toBe(400);
    expect((await vendor(v.id)).hasBankingInfo).toBe(false);
    const ok = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${changeId}/approve`, {
      body: { reason: 'Called the vendor on the number in our files' },
      token: max,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toMatchObject({
      hasBankingInfo: true,
      accountNumber: expect.stringMatching(/^\*+1004$/),
      pendingBankingChange: null,
    });

    // A change of the live account is held the same way; rejected, the old account stays.
    const change = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: bank('66666666666', '021000021'),
      token: mona,
    });
    expect(change.body.data).toMatchObject({ accountNumber: expect.stringMatching(/^\*+1004$/) });
    expect(change.body.data.pendingBankingChange).toMatchObject({
      accountNumber: expect.stringMatching(/^\*+6666$/),
      previousAccountNumber: expect.stringMatching(/^\*+1004$/),
    });
    const rejected = await api(
      t.url,
      'POST',
      `/api/vendors/${v.id}/banking-changes/${change.body.data.pendingBankingChange.changeId}/reject`,
      { body: { reason: 'The vendor did not ask for it' }, token: max },
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({
      accountNumber: expect.stringMatching(/^\*+1004$/),
      pendingBankingChange: null,
    });
    const changes = (await api(t.url, 'GET', `/api/vendors/${v.id}/banking-changes`, { token: mona })).body
      .data;
    expect(changes.map((c: { status: string }) => c.status)).toEqual(['rejected', 'approved']);
    expect(changes[0]).toMatchObject({ decidedByName: 'max Test', reason: 'The vendor did not ask for it' });
    // Its history tells the story with tails only.
    const history = (await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: admin })).body.data;
    const text = JSON.stringify(history);
    expect(text).toContain('Bank details change held for approval');
    expect(text).toContain('Bank details change approved');
    expect(text).toContain('Bank details change rejected');
    expect(text).not.toContain('66666666666');
    expect(text).not.toContain('55500011004');
  });

  it('the form over GraphQL holds the change too', async () => {
    const v = vendors[1];
    const r = await gql(
      mona,
      `mutation ($id: Int!, $input: VendorBankingInput!) {
        updateVendorBanking(id: $id, input: $input) { hasBankingInfo pendingBankingChange { changeId status accountNumber } }
      }`,
      { id: v.id, input: bank('77700011005') },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.updateVendorBanking).toMatchObject({
      hasBankingInfo: false,
      pendingBankingChange: { status: 'pending', accountNumber: expect.stringMatching(/^\*+1005$/) },
    });
    const self = await gql(
      mona,
      `mutation ($id: Int!, $changeId: String!) { approveVendorBankingChange(id: $id, changeId: $changeId, reason: "mine") { hasBankingInfo } }`,
      { id: v.id, changeId: r.data.updateVendorBanking.pendingBankingChange.changeId },
    );
    expect(self.errors?.[0].message).toMatch(/someone other than its maker/);
    expect((await vendor(v.id)).hasBankingInfo).toBe(false);
  });

  it('a batch update holds each change and says so', async () => {
    const batch = vendors.slice(2, 5);
    const r = await api(t.url, 'POST', '/api/vendors/batch-update-banking', {
      body: { updates: batch.map((v, i) => ({ vendorId: v.id, ...bank(`8880001000${i}`) })) },
      token: mona,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ processed: 3, updated: 3, held: 3, failed: 0 });
    for (const v of batch) expect((await vendor(v.id)).hasBankingInfo).toBe(false);
  });

  it('a CSV import that changes ten vendors’ accounts makes ten pending changes', async () => {
    const ten = vendors.slice(5, 15);
    const csv = [
      'ID,Routing Number,Account Number,Account Type,Bank Name',
      ...ten.map((v, i) => `${v.id},011000015,99900010${String(i).padStart(2, '0')},checking,Boston Fed`),
    ].join('\n');
    const form = new FormData();
    form.append('file', new Blob([csv]), 'vendors.csv');
    const res = await fetch(`${t.url}/api/vendors/import-csv`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mona}` },
      body: form,
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toMatchObject({ processed: 10, updated: 10, held: 10, failed: 0 });
    for (const v of ten) {
      const got = await vendor(v.id);
      expect(got.hasBankingInfo).toBe(false);
      expect(got.pendingBankingChange).toMatchObject({
        status: 'pending',
        source: 'csv',
        requestedById: ids.mona,
      });
    }
  });

  it('with the control off (an ADMIN, with a reason), a change goes live at once, on record', async () => {
    const off = await api(t.url, 'PUT', `/api/vendors/banking-control/${companyId}`, {
      body: { enabled: false, flagDays: 14, reason: 'Vendor onboarding week: checked by phone' },
      token: admin,
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data).toEqual({ companyId, enabled: false, flagDays: 14 });
    try {
      const v = vendors[16];
      const r = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
        body: bank('12121212121'),
        token: mona,
      });
      expect(r.body.data).toMatchObject({
        hasBankingInfo: true,
        accountNumber: expect.stringMatching(/^\*+2121$/),
        pendingBankingChange: null,
      });
      const changes = (await api(t.url, 'GET', `/api/vendors/${v.id}/banking-changes`, { token: mona })).body
        .data;
      expect(changes[0]).toMatchObject({ status: 'live', verifiedBy: 'control-off' });
    } finally {
      const on = await api(t.url, 'PUT', `/api/vendors/banking-control/${companyId}`, {
        body: { enabled: true, flagDays: 30 },
        token: admin,
      });
      expect(on.status).toBe(200);
    }
  });
});
