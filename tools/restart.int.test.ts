// A second start keeps the demo whole: the pieces of `npm start` (tools/start.ts:
// the QuickBooks simulator with its state file, the bank sandbox with its state folder, the product,
// the demo seed) are started, stopped and
// started again on the same database, Redis prefix and state file. Every demo company is found as it
// was: Sunrise connected with its QuickBooks calls working, Harbor's tokens refreshable, Pinecrest
// disconnected, Northwind inactive; the mail inbox (the SMTP catcher on its file) still lists the
// mails of the first start. Then a simulator that lost its state (as if its file were gone):
// the lost grant shows as needing a reconnect, never as connected.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedApp, startApp } from '../services/main.js';
import { loadConfig } from '../services/shared/config.js';
import { testAppEnv } from '../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { api, signIn } from '../test/support/http.js';
import { createTestRedis } from '../test/support/redis.js';
import { demoBankRules, demoBankUsers } from './bank-sandbox/demo.js';
import { type BankSandbox, startBankSandbox } from './bank-sandbox/server.js';
import { type QboSandbox, startQboSandbox } from './qbo-sandbox/server.js';
import { seedDemoData } from './seed.js';
import { type SmtpCatcher, startSmtpCatcher } from './smtp-catcher.js';

const demoApp = { clientId: 'billflow-demo', clientSecret: 'billflow-demo-secret' };
const shortLivedApp = { clientId: 'billflow-demo-2min', clientSecret: 'billflow-demo-2min-secret' };
const admin = { email: 'admin@restart.test', password: 'Restart-Passw0rd!' };
const dir = mkdtempSync(path.join(tmpdir(), 'billflow-restart-'));
const stateFile = path.join(dir, 'qbo-sandbox.json');
const mailFile = path.join(dir, 'smtp-catcher.jsonl');
const bankDir = path.join(dir, 'bank-sandbox');

let db: TestDatabase;
let redis: Awaited<ReturnType<typeof createTestRedis>>;
let env: Record<string, string>;
let running: { sim: QboSandbox; app: StartedApp; catcher: SmtpCatcher; bank: BankSandbox } | null = null;

/**
 * What tools/start.ts does: the SMTP catcher (with its file), the simulator (with its state file),
 * the product, the demo seed.
 */
async function start(file: string | undefined = stateFile) {
  const catcher = await startSmtpCatcher({ smtpPort: 0, httpPort: 0, file: mailFile });
  const bank = await startBankSandbox({ stateDir: bankDir, users: demoBankUsers, rules: demoBankRules });
  const sim = await startQboSandbox({
    clients: [demoApp, { ...shortLivedApp, accessTtlSeconds: 120 }],
    ...(file ? { stateFile: file } : {}),
  });
  const app = await startApp(
    loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      ...env,
      QBO_OAUTH_BASE: sim.url,
      QBO_API_BASE: sim.url,
      SMTP_URL: catcher.smtpUrl,
    }),
  );
  await seedDemoData(app.app, { url: sim.url, gatewayUrl: app.url!, app: demoApp, shortLivedApp }, bank);
  running = { sim, app, catcher, bank };
  return running;
}

async function stop() {
  await running?.app.close();
  await running?.sim.close();
  await running?.catcher.stop();
  await running?.bank.close();
  running = null;
}

async function companies(url: string, token: string) {
  const list = await api(url, 'GET', '/api/company/companies?limit=10', { token });
  return Object.fromEntries(
    (list.body.data as Array<Record<string, unknown>>).map((c) => [
      c.name as string,
      {
        id: c.id as number,
        status: c.status,
        qbRealmId: c.qbRealmId,
        qbConnectionStatus: c.qbConnectionStatus,
        qbPaymentAccountReference: c.qbPaymentAccountReference,
        nachaConfigured: c.nachaConfigured,
      },
    ]),
  );
}

beforeAll(async () => {
  db = await createTestDatabase('restart');
  await db.pool.end();
  redis = await createTestRedis('restart');
  env = testAppEnv(db, redis, admin);
});
afterAll(async () => {
  await stop().catch(() => {});
  await redis?.cleanup();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a second start', () => {
  let before: Awaited<ReturnType<typeof companies>>;

  it('finds every demo company as it was: Sunrise connected and working, Harbor refreshable', async () => {
    const first = await start();
    const token = (await signIn(first.app.url!, admin.email, admin.password)).tokens.accessToken;
    before = await companies(first.app.url!, token);
    expect(Object.keys(before).sort()).toEqual([
      'Harbor Logistics Inc',
      'Northwind Builders Co',
      'Pinecrest Dental Group',
      'Sunrise Bakery LLC',
    ]);
    // The demo's mails (the managers' notices of new approvals, …) reach the inbox.
    await first.catcher.waitFor(() => true, 20_000);
    const mails = first.catcher.messages().map((m) => [m.id, m.subject, m.receivedAt]);
    await stop();

    const second = await start();
    const url = second.app.url!;
    // The inbox a second start shows still has the first start's mails, under the same ids.
    const listed = (await (await fetch(`${second.catcher.inboxUrl}/api/messages`)).json()) as Array<{
      id: string;
      subject: string;
      receivedAt: string;
    }>;
    expect(listed.map((m) => [m.id, m.subject, m.receivedAt])).toEqual(expect.arrayContaining(mails));
    const again = (await signIn(url, admin.email, admin.password)).tokens.accessToken;
    expect(await companies(url, again)).toEqual(before);
    // The bank kept what it received (its state folder): the demo's one file (its two approvals'
    // batches), not sent again.
    const received = (await (await fetch(`${second.bank.hooksUrl}/__bank/received`)).json()) as {
      received: unknown[];
    };
    expect(received.received).toHaveLength(1);
    const sunrise = before['Sunrise Bakery LLC'].id;
    // Its QuickBooks calls work with the tokens kept on both sides: bank accounts, open bills.
    const info = await api(url, 'GET', `/api/quickbooks/${sunrise}/company-info`, { token: again });
    expect(info.status).toBe(200);
    const bills = await api(url, 'GET', `/api/bill-approval/bills?companyId=${sunrise}`, { token: again });
    expect(bills.status).toBe(200);
    expect(bills.body.data.length).toBeGreaterThan(0);
    // Harbor's grant is still the simulator's: its refresh token rotates.
    const harbor = before['Harbor Logistics Inc'].id;
    const refreshed = await api(url, 'POST', `/api/company/companies/${harbor}/refresh-qb-token`, {
      token: again,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data).toMatchObject({ hasTokens: true, isExpired: false });
    const after = await companies(url, again);
    expect(after['Harbor Logistics Inc'].qbConnectionStatus).toBe('connected');
    expect(after['Pinecrest Dental Group'].qbConnectionStatus).toBe('disconnected');
    await stop();
    // Two starts of everything npm start runs, the first seeding the whole demo from nothing (its
    // bills, payments and mails): 45 s and more on a busy 2-core host, past vitest's 30 s.
  }, 180_000);

  it('shows a grant the simulator lost as needing a reconnect, never as connected', async () => {
    // A simulator with no state: every grant the product holds is unknown to it.
    const lost = await start(path.join(dir, 'elsewhere.json'));
    const url = lost.app.url!;
    const token = (await signIn(url, admin.email, admin.password)).tokens.accessToken;
    const harbor = before['Harbor Logistics Inc'].id;
    const r = await api(url, 'POST', `/api/company/companies/${harbor}/refresh-qb-token`, { token });
    expect(r.status).toBe(409);
    const now = await companies(url, token);
    expect(now['Harbor Logistics Inc'].qbConnectionStatus).toBe('disconnected');
    const status = await api(url, 'GET', `/api/company/companies/${harbor}/qb-token-status`, { token });
    expect(status.body.data.hasTokens).toBe(false);
    await stop();
    // One start, which a busy host may take longer than vitest's 30 s over.
  }, 90_000);
});
