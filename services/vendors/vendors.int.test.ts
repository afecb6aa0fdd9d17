// Vendors through the product's own calls against the QuickBooks simulator: the sync job
// (with live progress, a 429 burst, and a second run that changes nothing), bank details with the
// bank's rules, masked reads, unmasks on record (and refused, unrecorded, for USER), clear, batch,
// missing banking, ACH status, CSV export and import (good, partial, hostile), role checks on
// every call, and no bank number plain in the log or the read model.
import { createClient } from 'graphql-ws';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
let moderator = '';
let user = '';
let guest = '';
let companyId = 0;
let realmVendorCount = 0;
let realmId = '';
const qbApp = { clientId: 'billflow-vendors', clientSecret: 'vendors-secret-value-789' };
const ACCOUNT = '000123456789';

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

const simPost = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Staff work on the companies they are assigned to: the test's MODERATOR and USER are, on each. */
const staff: Record<string, number> = {};
async function connectCompany(name: string, realmIndex = 0): Promise<{ id: number; realmId: string }> {
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name, approverId: staff.MODERATOR, processorId: staff.USER },
    token: admin,
  });
  const id = c.body.data.id as number;
  const { realmId } = await connectOverHttp({
    gatewayUrl: t.url,
    simUrl: sim.url,
    token: admin,
    companyId: id,
    app: qbApp,
    realmIndex,
  });
  return { id, realmId };
}

async function syncAndWait(token = admin, company = companyId) {
  const r = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId: company }, token });
  expect(r.status).toBe(202);
  const syncId = r.body.data.syncId as string;
  for (let i = 0; i < 200; i++) {
    const s = await api(t.url, 'GET', `/api/vendors/sync/${syncId}`, { token });
    if (s.body.data.status !== 'queued') return s.body.data;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('sync did not finish');
}

const vendorEventCount = async () =>
  Number(
    (
      await sql(
        `SELECT count(*)::int AS n FROM es_events WHERE event_type LIKE 'Vendor%' AND event_type NOT LIKE 'VendorSync%'`,
      )
    )[0].n,
  );

async function firstVendors(n: number) {
  const r = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=${n}`, { token: admin });
  return r.body.data as Array<{ id: number; name: string; qbVendorId: string }>;
}

async function upload(name: string, content: Buffer | string, token = admin) {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  const res = await fetch(`${t.url}/api/vendors/import-csv`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  // The second realm is a large company (the list's broad-search test); the first keeps its drawn size.
  // Intuit's 60-second throttle window shortened to 1 s: a throttled sync waits it out within the test.
  sim = await startQboSandbox({
    clients: [qbApp],
    ratePerMinute: 500,
    rateWindowSeconds: 1,
    vendorsPerRealm: [undefined, 700],
  });
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, QBO_RATE_WINDOW_SECONDS: '1' },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const [role, email] of [
    ['MODERATOR', 'mod@vendors.test'],
    ['USER', 'user@vendors.test'],
    ['GUEST', 'guest@vendors.test'],
  ] as const) {
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: {
        email,
        password: 'Passw0rd-123',
        role,
        firstName: role === 'MODERATOR' ? 'Mona' : 'X',
        lastName: 'Test',
      },
      token: admin,
    });
    staff[role] = r.body.data.id;
  }
  moderator = (await signIn(t.url, 'mod@vendors.test', 'Passw0rd-123')).tokens.accessToken;
  user = (await signIn(t.url, 'user@vendors.test', 'Passw0rd-123')).tokens.accessToken;
  guest = (await signIn(t.url, 'guest@vendors.test', 'Passw0rd-123')).tokens.accessToken;
  const c = await connectCompany('Vendorful Inc');
  companyId = c.id;
  realmId = c.realmId;
  // These tests are of the bank details themselves (rules, masking, batch, CSV): with the company's
  // control on, each change would wait for a second look (services/vendors/banking-changes.int.test.ts).
  const control = await api(t.url, 'PUT', `/api/vendors/banking-control/${companyId}`, {
    body: { enabled: false, reason: 'Tests of the bank details themselves' },
    token: admin,
  });
  expect(control.status, JSON.stringify(control.body)).toBe(200);
  realmVendorCount = sim.realms().find((r) => r.realmId === c.realmId)!.vendors.length;
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('vendor sync', () => {
  it('syncs every QuickBooks vendor through a job, with live progress, through a 429 burst', async () => {
    const progress: any[] = [];
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { token: admin },
      retryAttempts: 0,
    });
    await simPost('/__sim/faults', { rules: [{ path: '/query$', kind: 'throttle', count: 2 }] });
    const r = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId, limit: 10 }, token: admin });
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ companyId, status: 'queued', synced: 0 });
    const syncId = r.body.data.syncId as string;
    const done = new Promise<void>((resolve, reject) => {
      client.subscribe(
        {
          query: `subscription { vendorSyncProgress(syncId: "${syncId}") { processed synced failed total done } }`,
        },
        {
          next: (v: any) => {
            progress.push(v.data?.vendorSyncProgress);
            if (v.data?.vendorSyncProgress?.done) resolve();
          },
          error: reject,
          complete: () => {},
        },
      );
    });
    await Promise.race([
      done,
      new Promise((_, rej) => setTimeout(() => rej(new Error('no progress')), 30_000)),
    ]);
    await client.dispose();
    // Pages of 10: the bar moved more than once before the end.
    expect(progress.filter((p) => p && !p.done).length).toBeGreaterThan(1);
    expect(progress.at(-1)).toMatchObject({
      synced: realmVendorCount,
      failed: 0,
      total: realmVendorCount,
      done: true,
    });
    let s: any;
    for (let i = 0; i < 50; i++) {
      s = (await api(t.url, 'GET', `/api/vendors/sync/${syncId}`, { token: admin })).body.data;
      if (s.status !== 'queued') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(s).toMatchObject({ status: 'completed', synced: realmVendorCount, failed: 0, error: null });
    const requests = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
      path: string;
      status: number;
    }>;
    expect(requests.filter((x) => x.path.endsWith('/query') && x.status === 429).length).toBe(2);
    const list = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}`, { token: admin });
    expect(list.body.meta.pagination.total).toBe(realmVendorCount);
    expect(list.body.data).toHaveLength(Math.min(20, realmVendorCount));
  });

  it('a second sync changes nothing and asks QuickBooks only for its changes (CDC), no list', async () => {
    const before = await vendorEventCount();
    const seen = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests.length as number;
    const s = await syncAndWait();
    expect(s).toMatchObject({ status: 'completed', synced: 0, failed: 0 });
    expect(await vendorEventCount()).toBe(before);
    const asked = (
      (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
        path: string;
        realmId: string | null;
      }>
    )
      .slice(seen)
      .filter((x) => x.realmId === realmId)
      .map((x) => x.path.replace(`/v3/company/${realmId}/`, ''));
    expect(asked).toEqual(['cdc']);
  });

  it('a vendor made inactive (or deleted) in QuickBooks shows inactive after one sync, and active again after another', async () => {
    // Intuit answers `select * from Vendor` with active vendors only: the sync asks for
    // both, so the vendors QuickBooks had inactive from the start are here, inactive.
    const qbRealm = sim.realms().find((r) => r.realmId === realmId)!;
    const seededInactive = qbRealm.vendors.filter((v) => !v.Active).map((v) => v.Id);
    expect(seededInactive.length).toBeGreaterThan(0);
    const listed = async (active: boolean) =>
      (
        await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&active=${active}&limit=100`, {
          token: admin,
        })
      ).body.data.map((v: { qbVendorId: string }) => v.qbVendorId) as string[];
    expect((await listed(false)).sort()).toEqual([...seededInactive].sort());
    const target = qbRealm.vendors.find((v) => v.Active)!;
    const off = await simPost('/__sim/vendors/update', { realmId, vendorId: target.Id, active: false });
    expect(off.status).toBe(200);
    // Incremental: CDC answers the one vendor that changed.
    expect(await syncAndWait()).toMatchObject({ status: 'completed', synced: 1, failed: 0 });
    expect(await listed(false)).toContain(target.Id);
    expect(await listed(true)).not.toContain(target.Id);
    const missing = await api(t.url, 'GET', `/api/vendors/missing-banking?companyId=${companyId}`, {
      token: admin,
    });
    expect(missing.status).toBe(200);
    expect(missing.body.data.map((v: { qbVendorId: string }) => v.qbVendorId)).not.toContain(target.Id);
    await simPost('/__sim/vendors/update', { realmId, vendorId: target.Id, active: true });
    await syncAndWait();
    expect(await listed(true)).toContain(target.Id);
  });

  it('refuses a sync of a company that is not connected, and of an unknown one', async () => {
    const other = await api(t.url, 'POST', '/api/company/companies', {
      body: { name: 'Offline Co' },
      token: admin,
    });
    const r = await api(t.url, 'POST', '/api/vendors/sync', {
      body: { companyId: other.body.data.id },
      token: admin,
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/not connected/);
    expect(
      (await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId: 999999 }, token: admin })).status,
    ).toBe(404);
    expect(
      (await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId: 'x' }, token: admin })).status,
    ).toBe(400);
  });
});

describe('vendor banking', () => {
  it('checks the bank’s rules, shows numbers masked, and keeps no plain account number', async () => {
    const [v] = await firstVendors(1);
    const bad = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: { routingNumber: '02100002x', accountNumber: '1'.repeat(18), accountType: 'money' },
      token: admin,
    });
    expect(bad.status).toBe(400);
    const messages = JSON.stringify(bad.body);
    expect(messages).toContain('Routing number must contain only digits');
    expect(messages).toContain('Account number must be 17 characters or less');
    const checkDigit = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: { routingNumber: '021000022', accountNumber: ACCOUNT, accountType: 'checking' },
      token: admin,
    });
    expect(checkDigit.status).toBe(400);
    expect(JSON.stringify(checkDigit.body)).toContain('check digit');
    const ok = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: {
        routingNumber: '021000021',
        accountNumber: ACCOUNT,
        accountType: 'checking',
        bankName: 'Chase',
      },
      token: moderator,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      hasBankingInfo: true,
      routingNumber: '*****0021',
      accountNumber: '****6789',
      accountType: 'checking',
      bankName: 'Chase',
    });
    const dump =
      JSON.stringify(await sql(`SELECT data FROM es_events WHERE stream_id LIKE 'vendor-%'`)) +
      JSON.stringify(await sql('SELECT * FROM vendors'));
    expect(dump).not.toContain(ACCOUNT);
    expect(dump).not.toContain('021000021');
  });

  it('unmasks for ADMIN and MODERATOR, each on record; refuses USER and records nothing', async () => {
    const [v] = await firstVendors(1);
    const unmaskEvents = async () =>
      Number(
        (await sql(`SELECT count(*)::int AS n FROM es_events WHERE event_type = 'VendorBankingUnmasked'`))[0]
          .n,
      );
    const before = await unmaskEvents();
    const r = await api(t.url, 'GET', `/api/vendors/${v.id}?showUnmasked=true`, { token: moderator });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      routingNumber: '021000021',
      accountNumber: ACCOUNT,
      isUnmasked: true,
    });
    const refused = await api(t.url, 'GET', `/api/vendors/${v.id}?showUnmasked=true`, { token: user });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(ACCOUNT);
    expect(await unmaskEvents()).toBe(before + 1);
    const masked = await api(t.url, 'GET', `/api/vendors/${v.id}`, { token: admin });
    expect(masked.body.data).toMatchObject({ accountNumber: '****6789', isUnmasked: false });
    const history = await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: admin });
    expect(history.body.data[0]).toMatchObject({ action: 'Banking unmasked', userName: 'Mona Test' });
    expect(history.body.data.map((h: any) => h.action)).toContain('Banking updated');
    expect(JSON.stringify(history.body)).not.toContain(ACCOUNT);
  });

  it('refuses an account number of four digits or fewer, and never shows a short one whole', async () => {
    const v = (await firstVendors(6))[5];
    const put = (accountNumber: string) =>
      api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
        body: { routingNumber: '021000021', accountNumber, accountType: 'checking' },
        token: admin,
      });
    for (const short of ['1', '1234', '12-34']) {
      const r = await put(short);
      expect(r.status, short).toBe(400);
      expect(r.body.errors?.[0]).toEqual({
        field: 'accountNumber',
        message: 'Account number must have at least 5 digits',
      });
    }
    const ok = await put('98765');
    expect(ok.status).toBe(200);
    expect(ok.body.data.accountNumber).toBe('*******5');
    const read = await api(t.url, 'GET', `/api/vendors/${v.id}`, { token: admin });
    expect(read.body.data.accountNumber).toBe('*******5');
    const listed = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, { token: admin });
    expect(listed.body.data.find((x: any) => x.id === v.id).accountNumber).toBe('*******5');
    const history = await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: admin });
    expect(JSON.stringify(history.body)).toContain('account ending 5');
    expect(JSON.stringify(history.body)).not.toContain('98765');
    const stored = JSON.stringify(await sql('SELECT account_last4 FROM vendors WHERE id = $1', [v.id]));
    expect(stored).not.toContain('8765');
    await api(t.url, 'DELETE', `/api/vendors/${v.id}/banking`, { token: admin });
  });

  it('clears, batch-updates with a result per vendor, lists missing banking and ACH status', async () => {
    const [a, b, c] = await firstVendors(3);
    const cleared = await api(t.url, 'DELETE', `/api/vendors/${a.id}/banking`, { token: admin });
    expect(cleared.body.data).toMatchObject({ hasBankingInfo: false, accountNumber: null });
    const batch = await api(t.url, 'POST', '/api/vendors/batch-update-banking', {
      body: {
        updates: [
          {
            vendorId: b.id,
            routingNumber: '011000015',
            accountNumber: '555000111',
            accountType: 'savings',
            bankName: 'BoA',
          },
          {
            vendorId: 999999,
            routingNumber: '011000015',
            accountNumber: '555000111',
            accountType: 'savings',
          },
        ],
      },
      token: admin,
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data).toMatchObject({ processed: 2, updated: 1, failed: 1 });
    expect(batch.body.data.results[1]).toMatchObject({
      vendorId: 999999,
      success: false,
      error: 'Vendor not found',
    });
    const missing = await api(t.url, 'GET', `/api/vendors/missing-banking?companyId=${companyId}`, {
      token: admin,
    });
    const missingIds = missing.body.data.map((x: any) => x.id);
    expect(missingIds).toContain(a.id);
    expect(missingIds).toContain(c.id);
    expect(missingIds).not.toContain(b.id);
    const ach = await api(
      t.url,
      'GET',
      `/api/vendors/ach-status?companyId=${companyId}&qbVendorId=${b.qbVendorId}`,
      { token: admin },
    );
    expect(ach.body.data).toMatchObject({
      hasBankingInfo: true,
      vendorId: b.id,
      accountType: 'savings',
      accountNumber: '****0111',
    });
    const filtered = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&hasBanking=true`, {
      token: admin,
    });
    expect(filtered.body.data.map((x: any) => x.id)).toEqual([b.id]);
    const search = await api(t.url, 'GET', `/api/vendors?search=${encodeURIComponent(b.name.slice(0, 6))}`, {
      token: admin,
    });
    expect(search.body.data.map((x: any) => x.id)).toContain(b.id);
    // A search counts its matches in the page's own query: the same total on every page, and past the end.
    const all = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&search=a&limit=100`, {
      token: admin,
    });
    const matches = all.body.data.length;
    expect(matches).toBeGreaterThan(2);
    expect(all.body.meta.pagination.total).toBe(matches);
    const second = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&search=a&limit=2&page=2`, {
      token: admin,
    });
    expect(second.body.data.map((x: any) => x.id)).toEqual(all.body.data.slice(2, 4).map((x: any) => x.id));
    expect(second.body.meta.pagination).toMatchObject({ total: matches, totalPages: Math.ceil(matches / 2) });
    const past = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&search=a&limit=2&page=99`, {
      token: admin,
    });
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination.total).toBe(matches);
    // A kept page and total last only while the read model stands still: cleared, b leaves the list.
    const banked = `/api/vendors?companyId=${companyId}&hasBanking=true`;
    expect((await api(t.url, 'GET', banked, { token: admin })).body.meta.pagination.total).toBe(1);
    expect((await api(t.url, 'DELETE', `/api/vendors/${b.id}/banking`, { token: admin })).status).toBe(200);
    const after = await api(t.url, 'GET', banked, { token: admin });
    expect(after.body.data).toEqual([]);
    expect(after.body.meta.pagination.total).toBe(0);
    await api(t.url, 'PUT', `/api/vendors/${b.id}/banking`, {
      token: admin,
      body: {
        routingNumber: '021000021',
        accountNumber: '5550111',
        accountType: 'savings',
        bankName: 'Chase',
      },
    });
  });
});

describe('vendor CSV', () => {
  it('exports as vendors-export.csv with the numbers masked', async () => {
    const res = await fetch(`${t.url}/api/vendors/export-csv?companyId=${companyId}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="vendors-export.csv"');
    const text = await res.text();
    expect(text.split('\n')[0]).toBe(
      'ID,Name,Company,QuickBooks ID,Email,Phone,Active,Routing Number,Account Number,Account Type,Bank Name',
    );
    // 5550111: seven digits, so three show and four stay hidden.
    expect(text).toContain('*****111');
    expect(text).not.toContain('5550111');
  });

  it('gives an ADMIN the full numbers on record, refuses MODERATOR and USER, and the file imports back as it is', async () => {
    const unmasked = () =>
      sql<{ stream_id: string; data: any; metadata: any }>(
        `SELECT stream_id, data, metadata FROM es_events WHERE event_type = 'VendorBankingUnmasked' ORDER BY global_position`,
      );
    const before = (await unmasked()).length;
    for (const token of [moderator, user]) {
      const refused = await fetch(`${t.url}/api/vendors/export-csv?companyId=${companyId}&full=true`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(refused.status).toBe(403);
      expect(await refused.text()).not.toContain('5550111');
    }
    expect((await unmasked()).length).toBe(before);

    const res = await fetch(`${t.url}/api/vendors/export-csv?companyId=${companyId}&full=true`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="vendors-export-full.csv"');
    const text = await res.text();
    expect(text).toContain('5550111');
    expect(text).not.toMatch(/[*•]/);
    const lines = text.trim().split('\n').slice(1);
    const withNumbers = lines.filter((l) => /,\d{9},/.test(l));
    expect(withNumbers.length).toBeGreaterThan(0);

    // One unmask on record for each vendor the file shows numbers of: who, the filter, how many.
    const recorded = (await unmasked()).slice(before);
    expect(recorded).toHaveLength(withNumbers.length);
    for (const e of recorded) {
      expect(e.data.export).toEqual({ companyId, includeInactive: false, vendors: lines.length });
      expect(e.metadata.userId).toBeTruthy();
    }
    expect(JSON.stringify(recorded)).not.toContain('5550111');
    expect(JSON.stringify(recorded)).not.toContain(ACCOUNT);
    const shownId = Number(withNumbers[0].split(',')[0]);
    const history = await api(t.url, 'GET', `/api/vendors/${shownId}/history`, { token: admin });
    expect(history.body.data[0]).toMatchObject({
      action: 'Banking unmasked',
      details: `Full bank numbers exported to CSV: ${lines.length} vendor${lines.length === 1 ? '' : 's'} (active vendors of its company)`,
    });

    const back = await upload('vendors-export-full.csv', text);
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({ processed: lines.length, failed: 0, errors: [] });
  });

  it('says why a masked export fails on import, and how to get a file that does not', async () => {
    const res = await fetch(`${t.url}/api/vendors/export-csv?companyId=${companyId}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const text = await res.text();
    const masked = text
      .trim()
      .split('\n')
      .slice(1)
      .filter((l) => l.includes('*')).length;
    expect(masked).toBeGreaterThan(0);
    // A number copied from a screen (•) is a mask too.
    const [v] = await firstVendors(1);
    const r = await upload(
      'vendors-export.csv',
      `${text.trim()}\n${v.id},${v.name},,${v.qbVendorId},,,true,021000021,••••6789,checking,Chase\n`,
    );
    expect(r.status).toBe(200);
    expect(r.body.data.failed).toBe(masked + 1);
    const message =
      'The routing or account number is masked (a vendor export masks them): enter the full numbers, or have an ADMIN export with full numbers and import that file';
    expect(new Set(r.body.data.errors.map((e: { error: string }) => e.error))).toEqual(new Set([message]));
  });

  it('imports good rows, reports bad ones by row, and leaves blank banking rows alone', async () => {
    const vs = await firstVendors(4);
    const csv = [
      'ID,Routing Number,Account Number,Account Type,Bank Name',
      `${vs[0].id},021000021,111222333,checking,Chase`,
      `${vs[1].id},021000022,111222333,checking,Chase`, // check digit
      `${vs[2].id},,,,`, // nothing to change
      `999999,021000021,111222333,checking,Chase`,
      `${vs[3].id},"011000015","4444-55","Savings","Bank of ""Quotes"""`,
      `9999999999,021000021,111222333,checking,Chase`, // digits, past any vendor id's range
    ].join('\n');
    const r = await upload('banking.csv', csv);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ processed: 6, updated: 2, failed: 3, unchanged: 1 });
    expect(r.body.data.errors).toEqual([
      { row: 3, error: 'Routing number is not valid (check digit)' },
      { row: 5, error: 'Vendor 999999 not found' },
      { row: 7, error: 'Vendor 9999999999 not found' },
    ]);
    const v3 = await api(t.url, 'GET', `/api/vendors/${vs[3].id}`, { token: admin });
    expect(v3.body.data).toMatchObject({
      accountType: 'savings',
      bankName: 'Bank of "Quotes"',
      accountNumber: '*****-55',
    });
    // Imported again, the same rows change nothing.
    const again = await upload('banking.csv', csv);
    expect(again.body.data).toMatchObject({ updated: 0, unchanged: 3, failed: 3 });
  });

  it('refuses hostile files whole: not UTF-8, wrong delimiter, not .csv, too many rows, too big', async () => {
    const before = await vendorEventCount();
    const [v] = await firstVendors(1);
    const latin1 = Buffer.from(
      `ID,Routing Number,Account Number,Account Type,Bank Name\n${v.id},021000021,1,checking,Caf\xe9\n`,
      'latin1',
    );
    const notUtf8 = await upload('a.csv', latin1);
    expect(notUtf8.status).toBe(400);
    expect(JSON.stringify(notUtf8.body)).toContain('not UTF-8');
    const semi = await upload(
      'a.csv',
      `ID;Routing Number;Account Number;Account Type;Bank Name\n${v.id};021000021;1;checking;X\n`,
    );
    expect(semi.status).toBe(400);
    expect(JSON.stringify(semi.body)).toContain('Missing required columns');
    const txt = await upload('a.txt', 'ID\n1\n');
    expect(txt.status).toBe(400);
    expect(JSON.stringify(txt.body)).toContain('Only .csv files');
    const rows = ['ID,Routing Number,Account Number,Account Type,Bank Name'];
    for (let i = 0; i < 100_000; i++) rows.push(`${v.id},021000021,${i},checking,B`);
    const many = await upload('many.csv', rows.join('\n'));
    expect(many.status).toBe(400);
    expect(JSON.stringify(many.body)).toContain('more than 50,000 rows');
    const big = await upload(
      'big.csv',
      `ID,Routing Number,Account Number,Account Type,Bank Name\n${'x'.repeat(6 * 1024 * 1024)}`,
    );
    expect([400, 413]).toContain(big.status);
    expect(JSON.stringify(big.body)).toMatch(/5 MB/);
    // A newline inside quotes is one field, not a new row: the row is refused by the bank-name rule or taken whole.
    const quoted = await upload(
      'q.csv',
      `ID,Routing Number,Account Number,Account Type,Bank Name\n${v.id},021000021,999,checking,"Line one\nLine two"\n`,
    );
    expect(quoted.status).toBe(200);
    expect(quoted.body.data.processed).toBe(1);
    expect(await vendorEventCount()).toBeLessThanOrEqual(before + 1);
  });
});

describe('roles', () => {
  it('lets ADMIN and MODERATOR in, and refuses USER and GUEST on every call', async () => {
    const [v] = await firstVendors(1);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/api/vendors'],
      ['GET', `/api/vendors/${v.id}`],
      ['GET', `/api/vendors/${v.id}/history`],
      [
        'PUT',
        `/api/vendors/${v.id}/banking`,
        { routingNumber: '021000021', accountNumber: '1', accountType: 'checking' },
      ],
      ['DELETE', `/api/vendors/${v.id}/banking`],
      [
        'POST',
        '/api/vendors/batch-update-banking',
        {
          updates: [
            { vendorId: v.id, routingNumber: '021000021', accountNumber: '1', accountType: 'checking' },
          ],
        },
      ],
      ['GET', '/api/vendors/missing-banking'],
      ['GET', `/api/vendors/ach-status?companyId=${companyId}&qbVendorId=${v.qbVendorId}`],
      ['POST', '/api/vendors/sync', { companyId }],
      ['GET', '/api/vendors/export-csv'],
      ['DELETE', `/api/vendors/${v.id}`],
    ];
    for (const [method, path, body] of calls) {
      for (const token of [user, guest]) {
        const r = await api(t.url, method, path, { body, token });
        expect(r.status, `${method} ${path}`).toBe(403);
      }
      expect((await api(t.url, method, path, { body })).status, `${method} ${path} anonymous`).toBe(401);
      if (method === 'GET') {
        const allowed = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${moderator}` } });
        expect(allowed.status, `${method} ${path}`).toBe(200);
      }
    }
    expect((await upload('a.csv', 'ID\n', user)).status).toBe(403);
  });
  it('forgets a vendor for ADMIN only: its key is gone, it leaves the lists, and a sync does not bring it back', async () => {
    const v = (await firstVendors(5))[4];
    const put = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: { routingNumber: '021000021', accountNumber: ACCOUNT, accountType: 'checking' },
      token: admin,
    });
    expect(put.status).toBe(200);
    for (const token of [moderator, user, guest])
      expect((await api(t.url, 'DELETE', `/api/vendors/${v.id}`, { token })).status).toBe(403);
    const total = async () =>
      (await api(t.url, 'GET', `/api/vendors?companyId=${companyId}`, { token: admin })).body.meta.pagination
        .total as number;
    const stream = `vendor-${companyId}-${v.qbVendorId}`;
    const streamEvents = async () =>
      (await sql(`SELECT count(*)::int AS n FROM es_events WHERE stream_id = $1`, [stream]))[0].n as number;
    const before = await total();
    const forgot = await api(t.url, 'DELETE', `/api/vendors/${v.id}`, { token: admin });
    expect(forgot.status).toBe(200);
    expect(forgot.body.message).toBe('Vendor forgotten');
    expect((await api(t.url, 'GET', `/api/vendors/${v.id}`, { token: admin })).status).toBe(404);
    expect(await total()).toBe(before - 1);
    // The key is deleted: the sealed name, contacts and numbers in the log can no longer be opened.
    expect(
      await sql(`SELECT wrapped, forgotten_at IS NOT NULL AS gone FROM subject_keys WHERE subject = $1`, [
        `vendor-${v.id}`,
      ]),
    ).toEqual([{ wrapped: null, gone: true }]);
    const sealed = await sql(`SELECT data::text AS d FROM es_events WHERE stream_id = $1`, [stream]);
    expect(sealed.length).toBeGreaterThan(2);
    expect(sealed.map((r) => r.d).join('')).not.toContain(ACCOUNT);
    // QuickBooks still has the vendor: a sync leaves it forgotten and appends nothing to its stream.
    const events = await streamEvents();
    await syncAndWait();
    expect(await streamEvents()).toBe(events);
    expect(await total()).toBe(before - 1);
    expect((await api(t.url, 'DELETE', `/api/vendors/${v.id}`, { token: admin })).status).toBe(404);
    expect(
      (
        await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
          body: { routingNumber: '021000021', accountNumber: ACCOUNT, accountType: 'checking' },
          token: admin,
        })
      ).status,
    ).toBe(404);
  });
});

describe('vendors list over a large company', () => {
  it('pages a search that matches most vendors in name order, as the whole list filtered shows them', async () => {
    const big = await connectCompany('Many Vendors Co', 1);
    expect(await syncAndWait(admin, big.id)).toMatchObject({ status: 'completed', synced: 700, failed: 0 });
    // The list in its own order (name, then id), unfiltered, then filtered here.
    const all: Array<{ id: number; name: string; email: string | null }> = [];
    for (let page = 1; all.length < 700; page++) {
      const r = await api(t.url, 'GET', `/api/vendors?companyId=${big.id}&limit=100&page=${page}`, {
        token: admin,
      });
      expect(r.status).toBe(200);
      if (r.body.data.length === 0) break;
      all.push(...r.body.data);
    }
    expect(all).toHaveLength(700);
    const matching = all.filter((v) => `${v.name} ${v.email ?? ''}`.toLowerCase().includes('billing'));
    // Every vendor with an e-mail (ten in eleven): enough that the first pages are found by walking.
    expect(matching.length).toBeGreaterThan(600);
    for (const page of [1, 2, 7]) {
      const r = await api(
        t.url,
        'GET',
        `/api/vendors?companyId=${big.id}&search=BILLING&limit=20&page=${page}`,
        { token: moderator },
      );
      expect(r.body.meta.pagination.total).toBe(matching.length);
      expect(r.body.data.map((v: { id: number }) => v.id)).toEqual(
        matching.slice((page - 1) * 20, page * 20).map((v) => v.id),
      );
    }
    // A narrow search (one vendor's own number) is sorted from the trigram index: the same rule.
    const one = matching[5];
    const narrow = await api(
      t.url,
      'GET',
      `/api/vendors?companyId=${big.id}&search=${encodeURIComponent(one.email!)}`,
      { token: admin },
    );
    expect(narrow.body.data.map((v: { id: number }) => v.id)).toEqual([one.id]);
  });
});

describe('a deleted company’s vendors', () => {
  it('are left out of every read, bank details and all, and commands on them are refused by name', async () => {
    const gone = await connectCompany('Closing Down Co', 2);
    expect(await syncAndWait(admin, gone.id)).toMatchObject({ status: 'completed' });
    const listed = await api(t.url, 'GET', `/api/vendors?companyId=${gone.id}&limit=100`, { token: admin });
    const [v, w] = listed.body.data as Array<{ id: number; qbVendorId: string; name: string }>;
    const bank = { routingNumber: '021000021', accountNumber: '700012345', accountType: 'checking' };
    expect(
      (await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, { token: admin, body: bank })).status,
    ).toBe(200);
    const before = (await api(t.url, 'GET', '/api/vendors?limit=1', { token: admin })).body.meta.pagination
      .total;
    expect((await api(t.url, 'DELETE', `/api/company/companies/${gone.id}`, { token: admin })).status).toBe(
      200,
    );

    // Reads: list (with and without the company, total included), detail, unmask, history, missing
    // banking, ACH status, export; GraphQL alike.
    const ofCompany = await api(t.url, 'GET', `/api/vendors?companyId=${gone.id}`, { token: admin });
    expect(ofCompany.body.data).toEqual([]);
    expect(ofCompany.body.meta.pagination.total).toBe(0);
    const all = await api(t.url, 'GET', '/api/vendors?limit=100', { token: admin });
    expect(all.body.meta.pagination.total).toBe(before - listed.body.meta.pagination.total);
    expect(all.body.data.map((x: { companyId: number }) => x.companyId)).not.toContain(gone.id);
    const searched = await api(t.url, 'GET', `/api/vendors?search=${encodeURIComponent(v.name)}`, {
      token: admin,
    });
    expect(searched.body.data.map((x: { id: number }) => x.id)).not.toContain(v.id);
    for (const path of [
      `/api/vendors/${v.id}`,
      `/api/vendors/${v.id}?showUnmasked=true`,
      `/api/vendors/${v.id}/history`,
      `/api/vendors/ach-status?companyId=${gone.id}&qbVendorId=${v.qbVendorId}`,
    ]) {
      const r = await api(t.url, 'GET', path, { token: admin });
      expect(r.status, path).toBe(404);
      expect(JSON.stringify(r.body), path).not.toContain('700012345');
      expect(JSON.stringify(r.body), path).not.toContain('2345');
    }
    const missing = await api(t.url, 'GET', `/api/vendors/missing-banking?companyId=${gone.id}`, {
      token: admin,
    });
    expect(missing.body.data).toEqual([]);
    const exported = await fetch(`${t.url}/api/vendors/export-csv?companyId=${gone.id}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect((await exported.text()).trim().split('\n')).toHaveLength(1);
    const graphql = async (query: string, variables: Record<string, unknown>) => {
      const r = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ query, variables }),
      });
      return (await r.json()) as { data: any; errors?: Array<{ message: string }> };
    };
    const page = await graphql('query($c: Int!) { vendors(companyId: $c) { total data { id } } }', {
      c: gone.id,
    });
    expect(page.data.vendors).toEqual({ total: 0, data: [] });
    const one = await graphql('query($id: Int!) { vendor(id: $id) { id accountNumber } }', { id: v.id });
    expect(one.errors?.[0]?.message).toBe('Vendor not found');

    // Commands: refused with the reason, and nothing appended.
    const events = await vendorEventCount();
    const put = await api(t.url, 'PUT', `/api/vendors/${w.id}/banking`, { token: admin, body: bank });
    expect(put.status).toBe(409);
    expect(put.body.message ?? put.body.error).toMatch(/company has been deleted/);
    const clear = await api(t.url, 'DELETE', `/api/vendors/${v.id}/banking`, { token: admin });
    expect(clear.status).toBe(409);
    const batch = await api(t.url, 'POST', '/api/vendors/batch-update-banking', {
      token: admin,
      body: { updates: [{ vendorId: w.id, ...bank }] },
    });
    expect(batch.body.data.results[0]).toMatchObject({
      success: false,
      error: expect.stringMatching(/deleted/),
    });
    const imported = await upload(
      'gone.csv',
      `ID,Routing Number,Account Number,Account Type,Bank Name\n${w.id},021000021,700012345,checking,X\n`,
    );
    expect(imported.body.data.errors).toEqual([
      { row: 2, error: expect.stringMatching(/company has been deleted/) },
    ]);
    expect(await vendorEventCount()).toBe(events);
    // Forgetting (erasure) still works on them.
    expect((await api(t.url, 'DELETE', `/api/vendors/${v.id}`, { token: admin })).status).toBe(200);
  });
});

describe('staff scope: a MODERATOR works on the vendors of their companies only (decision 0001)', () => {
  it('an unassigned MODERATOR neither reads, changes, exports, syncs nor hears about them', async () => {
    await api(t.url, 'POST', '/api/auth/register', {
      body: {
        email: 'mod2@vendors.test',
        password: 'Passw0rd-123',
        role: 'MODERATOR',
        firstName: 'Out',
        lastName: 'Side',
      },
      token: admin,
    });
    const outsider = (await signIn(t.url, 'mod2@vendors.test', 'Passw0rd-123')).tokens.accessToken;
    await syncAndWait();
    const mine = (
      await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, { token: moderator })
    ).body.data;
    expect(mine.length).toBeGreaterThan(0);
    const v = mine[0];
    const theirs = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, {
      token: outsider,
    });
    expect(theirs.status).toBe(200);
    expect(theirs.body.meta.pagination.total).toBe(0);
    expect((await api(t.url, 'GET', `/api/vendors/${v.id}`, { token: outsider })).status).toBe(404);
    expect(
      (await api(t.url, 'GET', `/api/vendors/${v.id}?showUnmasked=true`, { token: outsider })).status,
    ).toBe(404);
    expect((await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: outsider })).status).toBe(404);
    const change = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: { routingNumber: '021000021', accountNumber: ACCOUNT, accountType: 'checking' },
      token: outsider,
    });
    expect(change.status).toBe(404);
    const batch = await api(t.url, 'POST', '/api/vendors/batch-update-banking', {
      body: {
        updates: [
          { vendorId: v.id, routingNumber: '021000021', accountNumber: ACCOUNT, accountType: 'checking' },
        ],
      },
      token: outsider,
    });
    expect(batch.body.data.results[0]).toMatchObject({ success: false, error: 'Vendor not found' });
    expect(
      (await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId }, token: outsider })).status,
    ).toBe(404);
    const csv = await fetch(`${t.url}/api/vendors/export?companyId=${companyId}`, {
      headers: { authorization: `Bearer ${outsider}` },
    });
    expect((await csv.text()).trim().split('\n')).toHaveLength(1);

    // Live pushes: the assigned MODERATOR hears of a change, the outsider does not.
    const heard: Record<string, number[]> = { mine: [], outsider: [] };
    const clients = (
      [
        ['mine', moderator],
        ['outsider', outsider],
      ] as const
    ).map(([who, token]) => {
      const client = createClient({
        url: `${t.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { token },
        retryAttempts: 0,
      });
      client.subscribe(
        { query: 'subscription { vendorChanged { id } }' },
        { next: (m: any) => heard[who].push(m.data.vendorChanged.id), error: () => {}, complete: () => {} },
      );
      return client;
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const ok = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
        body: { routingNumber: '021000021', accountNumber: '000987654321', accountType: 'savings' },
        token: moderator,
      });
      expect(ok.status).toBe(200);
      const until = Date.now() + 10_000;
      while (!heard.mine.includes(v.id) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(heard.mine).toContain(v.id);
      await new Promise((r) => setTimeout(r, 300));
      expect(heard.outsider).toEqual([]);
    } finally {
      for (const c of clients) await c.dispose();
    }
  });
});
