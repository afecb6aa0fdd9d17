// The /bills screen from a copy of the company's QuickBooks bills: the first view
// reads the bills once, later views ask QuickBooks nothing while the copy is fresh, a refresh
// (?refresh=true) asks CDC only and shows what changed there (a paid bill, a deleted one), and a
// create reads only the bills it names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
let companyId = 0;
let realmId = '';
const qbApp = { clientId: 'billflow-bill-copy', clientSecret: 'bill-copy-secret-value-456' };

const log = async () =>
  (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
    path: string;
    realmId: string | null;
  }>;
/** What the realm was asked (paths after /v3/company/<realm>/) while `fn` ran. */
async function asked(fn: () => Promise<unknown>) {
  const seen = (await log()).length;
  await fn();
  return (await log())
    .slice(seen)
    .filter((x) => x.realmId === realmId)
    .map((x) => x.path.replace(`/v3/company/${realmId}/`, ''));
}
const bills = async (query = '') => {
  const r = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}${query}`, {
    token: admin,
  });
  expect(r.status).toBe(200);
  return r.body.data as Array<{ id: string; balance: number }>;
};

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  // A copy fresh for an hour: only a refresh asks QuickBooks again.
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, QBO_BILLS_FRESH_SECONDS: '3600' },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const c = await api(t.url, 'POST', '/api/company/companies', { body: { name: 'Copy Co' }, token: admin });
  companyId = c.body.data.id as number;
  ({ realmId } = await connectOverHttp({
    gatewayUrl: t.url,
    simUrl: sim.url,
    token: admin,
    companyId,
    app: qbApp,
    realmIndex: 0,
  }));
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('open bills from a copy kept by CDC', () => {
  it('reads QuickBooks once; twenty more views ask it nothing; a refresh asks CDC only and shows changes', async () => {
    const realm = sim.realms().find((r) => r.realmId === realmId)!;
    const open = realm.bills.filter((b) => b.Balance > 0);
    let first: Awaited<ReturnType<typeof bills>> = [];
    const firstAsked = await asked(async () => {
      first = await bills();
    });
    expect(first).toHaveLength(open.length);
    expect(firstAsked.every((p) => p === 'query')).toBe(true);
    const views = await asked(async () => {
      for (let i = 0; i < 20; i++) expect(await bills()).toHaveLength(open.length);
    });
    expect(views).toEqual([]);
    // The copy keeps what the list reads: no vendor's e-mail, phone or address in plain in a table.
    const stored = await t.started.app.pool.query(
      `SELECT doc::text AS doc FROM qb_bill_copy WHERE kind = 'Vendor'`,
    );
    expect(stored.rows.length).toBeGreaterThan(0);
    for (const r of stored.rows) expect(r.doc).not.toMatch(/PrimaryEmailAddr|PrimaryPhone|BillAddr/);
    // A bill deleted in QuickBooks: the copy shows it until a refresh, which asks CDC and nothing else.
    const gone = open[0].Id;
    expect(
      (
        await fetch(`${sim.url}/__sim/bills/delete`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ realmId, billId: gone }),
        })
      ).status,
    ).toBe(200);
    expect((await bills()).map((b) => b.id)).toContain(gone);
    let refreshed: Awaited<ReturnType<typeof bills>> = [];
    expect(
      await asked(async () => {
        refreshed = await bills('&refresh=true');
      }),
    ).toEqual(['cdc']);
    expect(refreshed.map((b) => b.id)).not.toContain(gone);
    expect(refreshed).toHaveLength(open.length - 1);
    expect(await asked(() => bills())).toEqual([]);
  });

  it('a create reads the bills it names, not the open list', async () => {
    const realm = sim.realms().find((r) => r.realmId === realmId)!;
    const bill = realm.bills.filter((b) => b.Balance > 0)[1];
    await bills();
    const paths = await asked(async () => {
      const r = await api(t.url, 'POST', '/api/bill-approval/approvals', {
        body: { companyId, billIds: [bill.Id] },
        token: admin,
      });
      expect(r.status).toBe(201);
    });
    expect(paths).not.toContain('cdc');
    expect(paths.length).toBeLessThanOrEqual(4);
  });
});
