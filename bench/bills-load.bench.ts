// The /bills screen under a mixed load against one realm (issue 37 item 7): 150 requests a second
// for DURATION_S seconds, of which 7.5 a second are /bills views, one create every 2 s (it reads the
// bills it names from QuickBooks), and the rest reads of the approvals list (no QuickBooks). The
// simulator keeps Intuit's limits (500 a minute, 10 a second per realm). Prints the statuses and how
// many answered 503, and what the realm was asked.
//
//   npm run bench -- --only=bills    (or npx vitest run --config bench/bills-load.config.ts;
//   BILLS_LOAD_SECONDS, default 65: past Intuit's one-minute window). A vitest file for its Postgres
//   and Redis set-up; not part of CI.
import { expect, it } from 'vitest';
import { startTestApp } from '../test/support/app.js';
import { api, signIn } from '../test/support/http.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import { startQboSandbox } from '../tools/qbo-sandbox/server.js';

const DURATION_S = Number(process.env.BILLS_LOAD_SECONDS ?? 65);
const RATE = 150;
const qbApp = { clientId: 'billflow-bills-load', clientSecret: 'bills-load-secret-value-1' };

async function main() {
  const sim = await startQboSandbox({ clients: [qbApp], billsPerRealm: 400 });
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
    // Out of the realm's minute before the load starts (the connection's own calls).
    await new Promise((r) => setTimeout(r, 61_000));
    const before = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests.length as number;
    const statuses = new Map<string, number>();
    const count = (kind: string, status: number) =>
      statuses.set(`${kind} ${status}`, (statuses.get(`${kind} ${status}`) ?? 0) + 1);
    const pending: Promise<void>[] = [];
    let next = 0;
    const started = Date.now();
    const total = RATE * DURATION_S;
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
          (r) => void count(kind, r.status),
          () => void count(kind, 0),
        ),
      );
    }
    await Promise.all(pending);
    const elapsed = (Date.now() - started) / 1000;
    const asked = (
      (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
        path: string;
        realmId: string | null;
        status: number;
      }>
    )
      .slice(before)
      .filter((x) => x.realmId === realmId);
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
          quickbooksAsked: asked.length,
          quickbooks: Object.fromEntries([...byPath].sort()),
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
