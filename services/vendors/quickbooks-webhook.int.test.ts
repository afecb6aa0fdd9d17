// QuickBooks webhooks: POST /api/quickbooks/webhook checks Intuit's
// `intuit-signature` (base64 HMAC-SHA256 of the raw body with the app's verifier token), refuses a
// bad one with 401 changing nothing, and queues the incremental vendor sync (CDC only) for the
// companies of the realms named, once per notification however often Intuit delivers it.
// Without a verifier token configured the endpoint is not there (404).
import { createHmac } from 'node:crypto';
import pg from 'pg';
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
const VERIFIER = 'verifier-token-0123456789abcdef';
const qbApp = { clientId: 'billflow-webhook', clientSecret: 'webhook-secret-value-123' };

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}
const requests = async () =>
  (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
    path: string;
    realmId: string | null;
  }>;
const syncRequests = async () =>
  Number(
    (await sql(`SELECT count(*)::int AS n FROM es_events WHERE event_type = 'VendorSyncRequested'`))[0].n,
  );
const deliver = (url: string, body: string, signature: string | null) =>
  fetch(`${url}/api/quickbooks/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { 'intuit-signature': signature } : {}) },
    body,
  });
const sign = (body: string, key = VERIFIER) => createHmac('sha256', key).update(body).digest('base64');
const notification = (realm: string, id: string) =>
  JSON.stringify({
    eventNotifications: [
      {
        realmId: realm,
        dataChangeEvent: {
          entities: [{ name: 'Vendor', id, operation: 'Update', lastUpdated: new Date().toISOString() }],
        },
      },
    ],
  });
const activeOf = async (qbVendorId: string) =>
  (
    await sql<{ active: boolean }>(`SELECT active FROM vendors WHERE company_id = $1 AND qb_vendor_id = $2`, [
      companyId,
      qbVendorId,
    ])
  )[0]?.active;

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], rateWindowSeconds: 1 });
  t = await startTestApp({
    env: {
      QBO_OAUTH_BASE: sim.url,
      QBO_API_BASE: sim.url,
      QBO_RATE_WINDOW_SECONDS: '1',
      QBO_WEBHOOK_VERIFIER_TOKEN: VERIFIER,
      // The bill copy stays an hour unless the webhook's sync brings it up to date.
      QBO_BILLS_FRESH_SECONDS: '3600',
    },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const c = await api(t.url, 'POST', '/api/company/companies', { body: { name: 'Hooked Co' }, token: admin });
  companyId = c.body.data.id as number;
  ({ realmId } = await connectOverHttp({
    gatewayUrl: t.url,
    simUrl: sim.url,
    token: admin,
    companyId,
    app: qbApp,
    realmIndex: 0,
  }));
  // The first sync reads everything; what follows asks CDC.
  const r = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId }, token: admin });
  for (let i = 0; i < 200; i++) {
    const s = await api(t.url, 'GET', `/api/vendors/sync/${r.body.data.syncId}`, { token: admin });
    if (s.body.data.status === 'completed') break;
    await new Promise((res) => setTimeout(res, 100));
  }
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('QuickBooks webhook', () => {
  it('refuses a bad or missing signature with 401 and changes nothing', async () => {
    const target = sim
      .realms()
      .find((r) => r.realmId === realmId)!
      .vendors.find((v) => v.Active)!;
    const body = notification(realmId, target.Id);
    const before = await syncRequests();
    const seen = (await requests()).length;
    expect((await deliver(t.url, body, sign(body, 'another-verifier-token-xyz'))).status).toBe(401);
    expect((await deliver(t.url, body, null)).status).toBe(401);
    expect((await deliver(t.url, body, sign(`${body} `))).status).toBe(401);
    await new Promise((res) => setTimeout(res, 300));
    expect(await syncRequests()).toBe(before);
    expect((await requests()).length).toBe(seen);
  });

  it('queues the incremental sync for the realm named, once per notification; it asks CDC only', async () => {
    const target = sim
      .realms()
      .find((r) => r.realmId === realmId)!
      .vendors.find((v) => v.Active)!;
    expect(await activeOf(target.Id)).toBe(true);
    await fetch(`${sim.url}/__sim/vendors/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ realmId, vendorId: target.Id, active: false }),
    });
    const before = await syncRequests();
    const seen = (await requests()).length;
    const body = notification(realmId, target.Id);
    const first = await deliver(t.url, body, sign(body));
    expect(first.status).toBe(200);
    expect((await first.json()).data).toEqual({ queued: 1 });
    for (let i = 0; i < 100 && (await activeOf(target.Id)) !== false; i++)
      await new Promise((res) => setTimeout(res, 100));
    expect(await activeOf(target.Id)).toBe(false);
    // Intuit delivers again (it retries when unsure): nothing more is queued.
    const again = await deliver(t.url, body, sign(body));
    expect(again.status).toBe(200);
    expect((await again.json()).data).toEqual({ queued: 0 });
    expect(await syncRequests()).toBe(before + 1);
    const asked = (await requests())
      .slice(seen)
      .filter((x) => x.realmId === realmId)
      .map((x) => x.path.replace(`/v3/company/${realmId}/`, ''));
    expect(asked).toEqual(['cdc']);
    // A realm no company here is connected to: accepted, nothing queued.
    const other = notification('4620816365000000000', '1');
    expect((await (await deliver(t.url, other, sign(other))).json()).data).toEqual({ queued: 0 });
  });

  it('brings the copy of open bills up to date too: a bill deleted in QuickBooks leaves /bills', async () => {
    const openIds = async () =>
      (
        (await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token: admin })).body
          .data as Array<{ id: string }>
      ).map((b) => b.id);
    const first = await openIds();
    const gone = first[0];
    await fetch(`${sim.url}/__sim/bills/delete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ realmId, billId: gone }),
    });
    // Fresh for an hour: the view alone does not see it.
    expect(await openIds()).toContain(gone);
    const body = JSON.stringify({
      eventNotifications: [
        {
          realmId,
          dataChangeEvent: {
            entities: [
              { name: 'Bill', id: gone, operation: 'Delete', lastUpdated: new Date().toISOString() },
            ],
          },
        },
      ],
    });
    const r = await deliver(t.url, body, sign(body));
    expect((await r.json()).data).toEqual({ queued: 1 });
    // The sync job, then the approvals module's reaction to its completion, refresh the copy.
    let ids = await openIds();
    for (const deadline = Date.now() + 30_000; ids.includes(gone) && Date.now() < deadline; ) {
      await new Promise((res) => setTimeout(res, 100));
      ids = await openIds();
    }
    expect(ids).not.toContain(gone);
    expect(ids).toHaveLength(first.length - 1);
  });

  it('is not there without a verifier token (404)', async () => {
    const bare = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
    try {
      const body = notification(realmId, '1');
      expect((await deliver(bare.url, body, sign(body))).status).toBe(404);
    } finally {
      await bare.stop();
    }
  });
});
