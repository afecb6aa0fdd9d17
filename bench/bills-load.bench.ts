// The /bills screen under a mixed load against one realm: 150 requests a second
// for DURATION_S seconds, of which 7.5 a second are /bills views, one create every 2 s (it reads the
// bills it names from QuickBooks), and the rest reads of the approvals list (no QuickBooks). The
// simulator keeps Intuit's limits (500 a minute, 10 a second per realm). Meanwhile another app of the
// company creates bills in the same QuickBooks (WRITES_PER_SECOND, sharing the realm's minute), and
// QuickBooks answers Billflow's first read of the load with a 429, which blocks the realm for
// Intuit's minute: the views and creates of that minute are answered from Billflow's bill copy. Prints
// the statuses and how many answered 503, how many views came from the copy, what the realm was asked
// (by Billflow, and the bills the other app created) and how many 429s Billflow met.
//
//   npm run bench -- --only=bills    (or npx vitest run --config bench/bills-load.config.ts;
//   BILLS_LOAD_SECONDS, default 65: past Intuit's one-minute window; BILLS_LOAD_QB_WRITES_PER_SECOND,
//   default 5). A vitest file for its Postgres and Redis set-up; not part of CI.
import { expect, it } from 'vitest';
import { startTestApp } from '../test/support/app.js';
import { api, signIn } from '../test/support/http.js';
import { connectOverHttp, grantFromConsent } from '../tools/qbo-sandbox/connect.js';
import { startQboSandbox } from '../tools/qbo-sandbox/server.js';

const DURATION_S = Number(process.env.BILLS_LOAD_SECONDS ?? 65);
const RATE = 150;
/** Bills the company's other app creates in QuickBooks each second of the load. */
const WRITES_PER_SECOND = Number(process.env.BILLS_LOAD_QB_WRITES_PER_SECOND ?? 5);
const qbApp = { clientId: 'billflow-bills-load', clientSecret: 'bills-load-secret-value-1' };
/** Another app the company connected to its QuickBooks (a bill-capture tool): it creates bills. */
const writerApp = { clientId: 'bills-load-capture-app', clientSecret: 'bills-load-capture-secret-1' };

/**
 * The other app's bill creates in QuickBooks, WRITES_PER_SECOND until `until`, each for an active
 * vendor; resolves to their statuses (status → count) and the ids created.
 */
async function createBillsInQuickBooks(
  simUrl: string,
  realmId: string,
  accessToken: string,
  vendorIds: string[],
  expenseAccountId: string,
  until: number,
) {
  const statuses = new Map<number, number>();
  const created: string[] = [];
  const pending: Promise<void>[] = [];
  const started = Date.now();
  for (let i = 0; ; i++) {
    const due = started + (i * 1000) / WRITES_PER_SECOND;
    if (due >= until) break;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      fetch(`${simUrl}/v3/company/${realmId}/bill?minorversion=75`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          VendorRef: { value: vendorIds[i % vendorIds.length] },
          DocNumber: `CAP-${i + 1}`,
          Line: [
            {
              Amount: 100 + (i % 50),
              DetailType: 'AccountBasedExpenseLineDetail',
              Description: 'Captured by the other app during the load',
              AccountBasedExpenseLineDetail: { AccountRef: { value: expenseAccountId } },
            },
          ],
        }),
      }).then(
        async (r) => {
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          const body = (await r.json().catch(() => null)) as { Bill?: { Id?: string } } | null;
          if (r.ok && body?.Bill?.Id) created.push(body.Bill.Id);
        },
        () => void statuses.set(0, (statuses.get(0) ?? 0) + 1),
      ),
    );
  }
  await Promise.all(pending);
  return { statuses, created };
}

async function main() {
  const sim = await startQboSandbox({ clients: [qbApp, writerApp], billsPerRealm: 400 });
  const t = await startTestApp({
    // Production's freshness (the test default asks CDC on every view).
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, QBO_BILLS_FRESH_SECONDS: '30' },
  });
  try {
    const token = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
    const c = await api(t.url, 'POST', '/api/company/companies', { body: { name: 'Load Co' }, token });
    const companyId = c.body.data.id as number;
    const { realmId } = await connectOverHttp({
      gatewayUrl: t.url,
      simUrl: sim.url,
      token,
      companyId,
      app: qbApp,
      realmIndex: 0,
    });
    const realm = sim.realms().find((r) => r.realmId === realmId)!;
    const open = realm.bills.filter((b) => b.Balance > 0).map((b) => b.Id);
    // The other app's grant on the same company (the consent page's first, as Billflow chose).
    const writer = await grantFromConsent(sim.url, writerApp);
    if (writer.realmId !== realmId) throw new Error('the other app was granted another company');
    const activeVendors = realm.vendors.filter((v) => v.Active).map((v) => v.Id);
    const expense = realm.accounts.find((a) => a.AccountType === 'Expense')!;
    // The screen was opened before: Billflow holds a copy of the company's bills.
    const warm = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token });
    if (warm.status !== 200) throw new Error(`the first /bills view answered ${warm.status}`);
    // Out of the realm's minute before the load starts (the connection's own calls).
    await new Promise((r) => setTimeout(r, 61_000));
    const before = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests.length as number;
    // QuickBooks refuses Billflow's next read with a 429: the realm is blocked for Intuit's minute.
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ path: '/(query|cdc)$', realmId, kind: 'throttle', count: 1 }] }),
    });
    const statuses = new Map<string, number>();
    const count = (kind: string, status: number) =>
      statuses.set(`${kind} ${status}`, (statuses.get(`${kind} ${status}`) ?? 0) + 1);
    let viewsFromCopy = 0;
    let lastView: Array<{ id: string }> = [];
    const pending: Promise<void>[] = [];
    let next = 0;
    const started = Date.now();
    const total = RATE * DURATION_S;
    const writes = createBillsInQuickBooks(
      sim.url,
      realmId,
      writer.accessToken,
      activeVendors,
      expense.Id,
      started + DURATION_S * 1000,
    );
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      // 1 in 20 a /bills view (7.5/s), 1 in 300 a create (0.5/s), the rest the approvals list.
      const kind = i % 20 === 0 ? 'bills' : i % 300 === 7 ? 'create' : 'list';
      const call =
        kind === 'bills'
          ? api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token })
          : kind === 'create'
            ? api(t.url, 'POST', '/api/bill-approval/approvals', {
                body: { companyId, billIds: [open[next++ % open.length]] },
                token,
              })
            : api(t.url, 'GET', `/api/bill-approval/approvals?companyId=${companyId}&limit=25`, { token });
      pending.push(
        call.then(
          (r) => {
            count(kind, r.status);
            if (kind === 'bills' && r.status === 200) {
              const rows = r.body.data as Array<{ id: string; source: string }>;
              if (rows[0]?.source === 'copy') viewsFromCopy++;
              lastView = rows;
            }
          },
          () => void count(kind, 0),
        ),
      );
    }
    await Promise.all(pending);
    const written = await writes;
    const elapsed = (Date.now() - started) / 1000;
    const realmAsked = (
      (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
        method: string;
        path: string;
        realmId: string | null;
        status: number;
      }>
    )
      .slice(before)
      .filter((x) => x.realmId === realmId);
    // Billflow's requests: everything but the other app's bill creates.
    const asked = realmAsked.filter((x) => !(x.method === 'POST' && x.path.endsWith('/bill')));
    const newBills = new Set(written.created);
    const byPath = new Map<string, number>();
    for (const a of asked) {
      const k = `${a.path.replace(`/v3/company/${realmId}/`, '')} ${a.status}`;
      byPath.set(k, (byPath.get(k) ?? 0) + 1);
    }
    const all = [...statuses.values()].reduce((s, n) => s + n, 0);
    const unavailable = [...statuses].filter(([k]) => k.endsWith(' 503')).reduce((s, [, n]) => s + n, 0);
    console.log(
      JSON.stringify(
        {
          seconds: Math.round(elapsed * 10) / 10,
          requests: all,
          perSecond: Math.round((all / elapsed) * 10) / 10,
          status503: unavailable,
          percent503: Math.round((unavailable / all) * 10000) / 100,
          statuses: Object.fromEntries([...statuses].sort()),
          viewsFromCopy,
          quickbooksAsked: asked.length,
          quickbooks429: asked.filter((a) => a.status === 429).length,
          quickbooks: Object.fromEntries([...byPath].sort()),
          billsCreatedInQuickBooks: written.created.length,
          billCreates: Object.fromEntries([...written.statuses].map(([k, n]) => [String(k), n])),
          createdBillsInLastView: lastView.filter((b) => newBills.has(b.id)).length,
        },
        null,
        2,
      ),
    );
  } finally {
    await t.stop();
    await sim.close();
  }
}

it('the mixed load', async () => {
  await main();
  expect(true).toBe(true);
}, 600_000);
