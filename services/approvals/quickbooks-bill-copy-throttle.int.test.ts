// While QuickBooks asks Billflow to wait (a 429 blocks the realm for Intuit's minute), what Billflow
// holds answers: /bills is the company's bill copy as it stands, saying how old it is and how long
// the wait is (REST, GraphQL and the OpenAPI document alike), and a create takes its bills from the
// copy. What only QuickBooks can answer still answers 503: a bill the copy does not hold, and a
// company with no copy yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { connectedCompany } from '../../test/support/payments.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
const qbApp = { clientId: 'billflow-copy-throttle', clientSecret: 'copy-throttle-secret-value-1' };

type Candidate = {
  id: string;
  vendorQbId: string;
  source: string;
  copyAsOf: string;
  quickbooksRetryAfterSeconds: number | null;
};

const simPost = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const simLog = async () =>
  (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
    path: string;
    status: number;
    realmId: string | null;
  }>;
/** What the realm was asked (path's last part and status) while `fn` ran. */
async function asked(realmId: string, fn: () => Promise<unknown>) {
  const seen = (await simLog()).length;
  await fn();
  return (await simLog())
    .slice(seen)
    .filter((x) => x.realmId === realmId)
    .map((x) => `${x.status} ${x.path.split('/').at(-1)}`);
}
const bills = (companyId: number) =>
  api<Candidate[]>(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token: admin });
/** Intuit's 429 on the realm's next read (a CDC or a query). */
const throttleNextRead = (realmId: string) =>
  simPost('/__sim/faults', { rules: [{ path: '/(query|cdc)$', realmId, kind: 'throttle', count: 1 }] });

beforeAll(async () => {
  // Intuit's own window: a 429 asks for 60 s, and the realm stays blocked for the whole file.
  sim = await startQboSandbox({ clients: [qbApp] });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('a company whose bill copy exists', () => {
  let companyId = 0;
  let realmId = '';
  let before: Candidate[] = [];

  beforeAll(async () => {
    ({ companyId, realmId } = await connectedCompany({
      url: t.url,
      sim,
      token: admin,
      app: qbApp,
      name: 'Copy While Throttled Co',
    }));
    // Its vendors synced (their e-mail and phone in the vendors read model), then the first view
    // makes the copy.
    const sync = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId }, token: admin });
    expect(sync.status).toBe(202);
    let status = 'queued';
    for (let i = 0; i < 300 && (status === 'queued' || status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await api(t.url, 'GET', `/api/vendors/sync/${sync.body.data.syncId}`, { token: admin })).body
        .data.status;
    }
    expect(status).toBe('completed');
    const first = await bills(companyId);
    expect(first.status).toBe(200);
    before = first.body.data!;
    expect(before.length).toBeGreaterThan(2);
    for (const b of before) {
      expect(b.source).toBe('quickbooks');
      expect(b.quickbooksRetryAfterSeconds).toBeNull();
    }
  }, 60_000);

  it('answers /bills from the copy with its age and the wait while QuickBooks asks to wait', async () => {
    await throttleNextRead(realmId);
    let r: Awaited<ReturnType<typeof bills>> | null = null;
    // The view asks CDC once, QuickBooks answers 429, and the copy answers.
    expect(
      await asked(realmId, async () => {
        r = await bills(companyId);
      }),
    ).toEqual(['429 cdc']);
    const view = r!;
    expect(view.status).toBe(200);
    const shown = view.body.data!;
    expect(shown.map((b) => b.id)).toEqual(before.map((b) => b.id));
    for (const b of shown) {
      expect(b.source).toBe('copy');
      // As of the last read that matched QuickBooks: the first view's.
      expect(b.copyAsOf).toBe(before[0].copyAsOf);
      expect(b.quickbooksRetryAfterSeconds).toBeGreaterThan(55);
      expect(b.quickbooksRetryAfterSeconds).toBeLessThanOrEqual(60);
    }
    expect(Date.parse(shown[0].copyAsOf)).toBeLessThanOrEqual(Date.now());
    // The realm is blocked for the wait: further views ask QuickBooks nothing and still answer.
    expect(
      await asked(realmId, async () => {
        for (let i = 0; i < 5; i++) {
          const again = await bills(companyId);
          expect(again.status).toBe(200);
          expect(again.body.data![0].source).toBe('copy');
        }
      }),
    ).toEqual([]);
  });

  it('says the same over GraphQL, and the OpenAPI document names the fields', async () => {
    const r = await gql<{
      approvalBillCandidates: Array<{
        id: string;
        source: string;
        copyAsOf: string;
        quickbooksRetryAfterSeconds: number | null;
      }>;
    }>(
      t.url,
      `query ($companyId: Int!) { approvalBillCandidates(companyId: $companyId) { id source copyAsOf quickbooksRetryAfterSeconds } }`,
      { companyId },
      admin,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data!.approvalBillCandidates.length).toBe(before.length);
    expect(r.data!.approvalBillCandidates[0]).toMatchObject({ source: 'copy', copyAsOf: before[0].copyAsOf });
    expect(r.data!.approvalBillCandidates[0].quickbooksRetryAfterSeconds).toBeGreaterThan(0);
    const doc = JSON.stringify(await (await fetch(`${t.url}/api/openapi.json`)).json());
    for (const field of ['copyAsOf', 'quickbooksRetryAfterSeconds', '"copy"']) expect(doc).toContain(field);
  });

  it('creates an approval on the copy’s facts, asking QuickBooks nothing', async () => {
    // A bill whose vendor the last sync found with an e-mail.
    const vendors = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, {
      token: admin,
    });
    const withEmail = new Map(
      (vendors.body.data as Array<{ qbVendorId: string; email: string | null }>)
        .filter((v) => v.email)
        .map((v) => [v.qbVendorId, v.email]),
    );
    const bill = before.slice(1).find((b) => withEmail.has(b.vendorQbId))!;
    expect(bill).toBeDefined();
    let created: Awaited<ReturnType<typeof api<{ id: string }>>> | null = null;
    expect(
      await asked(realmId, async () => {
        created = await api(t.url, 'POST', '/api/bill-approval/approvals', {
          body: { companyId, billIds: [bill.id] },
          token: admin,
        });
      }),
    ).toEqual([]);
    expect(created!.status, JSON.stringify(created!.body)).toBe(201);
    const detail = await api(t.url, 'GET', `/api/bill-approval/approvals/${created!.body.data!.id}`, {
      token: admin,
    });
    expect(detail.status).toBe(200);
    const [snap] = detail.body.data.billsParsed;
    expect(snap.Id).toBe(bill.id);
    expect(snap.TotalAmt).toBeGreaterThan(0);
    // The vendor's contact as the last vendor sync found it (the copy keeps no personal fields).
    expect(snap.VendorInfo.Email).toBe(withEmail.get(bill.vendorQbId));
    // The bill is now in an open approval: the copy's view says so, still from the copy.
    const after = (await bills(companyId)).body.data as Array<Candidate & { inOpenApproval: boolean }>;
    expect(after.find((b) => b.id === bill.id)).toMatchObject({ inOpenApproval: true, source: 'copy' });
  });

  it('still answers 503 for a bill the copy does not hold: only QuickBooks can say what it is', async () => {
    const free = (await bills(companyId)).body.data as Array<Candidate & { inOpenApproval: boolean }>;
    const r = await api(t.url, 'POST', '/api/bill-approval/approvals', {
      body: { companyId, billIds: [free.find((b) => !b.inOpenApproval)!.id, '987654'] },
      token: admin,
    });
    expect(r.status).toBe(503);
    expect(r.body.message).toMatch(/QuickBooks is limiting requests for this company; try again in \d+ s/);
  });
});

describe('a company without a copy yet', () => {
  it('answers 503 to /bills and to a create while QuickBooks asks to wait', async () => {
    const { companyId, realmId, realm } = await connectedCompany({
      url: t.url,
      sim,
      token: admin,
      app: qbApp,
      name: 'No Copy Yet Co',
      realmIndex: 1,
    });
    await throttleNextRead(realmId);
    const view = await bills(companyId);
    expect(view.status).toBe(503);
    expect(view.body.message).toMatch(/QuickBooks is limiting requests for this company; try again in \d+ s/);
    const open = realm.bills.find((b) => b.Balance > 0)!;
    const created = await api(t.url, 'POST', '/api/bill-approval/approvals', {
      body: { companyId, billIds: [open.Id] },
      token: admin,
    });
    expect(created.status).toBe(503);
    expect(created.body.message).toMatch(/QuickBooks is limiting requests/);
  });
});
