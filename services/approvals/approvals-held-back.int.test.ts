// An approval write answers from the approvals read model once it has caught up with the write's
// events (services/app/answer-after-write.ts), never from the decider's state: with the read model
// held back, an update waits and then answers the row a read gives (company name included, which
// the command's state never knew); a create the read model does not show after two waits answers
// 503, and the retry with the same Idempotency-Key answers the one approval it created.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { approvalsProjection } from '../../projections/approvals/approvals.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { testAppEnv } from '../../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { api, signIn } from '../../test/support/http.js';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { SAVED_NOT_YET_SHOWN } from '../app/answer-after-write.js';
import { type StartedApp, startApp } from '../main.js';
import { loadConfig } from '../shared/config.js';

const A = '/api/bill-approval/approvals';
const admin = { email: 'admin@billflow.test', password: 'Admin-Passw0rd!' };
const qbApp = { clientId: 'billflow-held-back', clientSecret: 'held-back-secret-value-789' };

let sim: QboSandbox;
let db: TestDatabase;
let redis: TestRedis;
let gateway: StartedApp;
let runner: ProjectionRunner | undefined;
let token = '';
let companyId = 0;
let approvalId = '';
let openBills: string[] = [];

/** The approvals projection alone, as a projector would run it. */
async function startApprovalsProjector() {
  const { app } = gateway;
  runner = new ProjectionRunner({
    pool: app.pool,
    store: app.store,
    projections: [approvalsProjection],
    redis: app.redis,
    prefix: app.config.REDIS_PREFIX,
    log: app.log,
  });
  await runner.start();
}

const setTimeoutMs = (ms: number) => {
  (gateway.app.config as { READ_YOUR_WRITES_TIMEOUT_MS: number }).READ_YOUR_WRITES_TIMEOUT_MS = ms;
};

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  db = await createTestDatabase('approvalsheld');
  await db.pool.end();
  redis = await createTestRedis('approvalsheld');
  const env = testAppEnv(db, redis, admin, {
    HOST: '127.0.0.1',
    PORT: '0',
    QBO_OAUTH_BASE: sim.url,
    QBO_API_BASE: sim.url,
  });
  // The whole product once: a connected company, its policy and one approval in every read model.
  const all = await startApp(loadConfig(env));
  try {
    const url = all.url!;
    // A fresh database: the admin made at start reaches the users read model (which a sign-in reads)
    // when the projector has applied it, later than the start on a busy host.
    for (const deadline = Date.now() + 60_000; ; ) {
      const row = await all.app.db
        .selectFrom('users')
        .select('id')
        .where('email_lower', '=', admin.email.toLowerCase())
        .executeTakeFirst();
      if (row) break;
      if (Date.now() > deadline)
        throw new Error('the admin made at start never reached the users read model');
      await new Promise((r) => setTimeout(r, 100));
    }
    token = (await signIn(url, admin.email, admin.password)).tokens.accessToken;
    const c = await api(url, 'POST', '/api/company/companies', { body: { name: 'Held Back Bakery' }, token });
    companyId = c.body.data.id;
    const { realmId } = await connectOverHttp({
      gatewayUrl: url,
      simUrl: sim.url,
      token,
      companyId,
      app: qbApp,
    });
    const policy = await api(url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
      body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
      token,
    });
    expect(policy.status).toBe(200);
    const realm = sim.realms().find((r) => r.realmId === realmId)!;
    openBills = realm.bills.filter((b) => b.Balance > 0).map((b) => b.Id);
    const created = await api(url, 'POST', A, { body: { companyId, billIds: [openBills[0]] }, token });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    approvalId = created.body.data.id;
  } finally {
    await all.close();
  }
  // Then a gateway alone: no projector runs until a test starts one.
  gateway = await startApp(loadConfig({ ...env, ROLE: 'gateway', READ_YOUR_WRITES_TIMEOUT_MS: '300' }));
}, 120_000);

afterAll(async () => {
  await runner?.stop();
  await gateway?.close();
  await redis?.cleanup();
  await db?.drop();
  await sim?.close();
});

it('an update waits for the held-back read model and answers the row once it has caught up', async () => {
  setTimeoutMs(20_000);
  const started = Date.now();
  const answer = api(gateway.url!, 'PUT', `${A}/${approvalId}`, { body: { priority: 'URGENT' }, token });
  // The read model catches up only after a while: the answer waits for it.
  await new Promise((r) => setTimeout(r, 500));
  await startApprovalsProjector();
  const r = await answer;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  // The read model's row: the company's name comes from the companies read model, not the command.
  expect(r.body.data).toMatchObject({
    id: approvalId,
    priority: 'URGENT',
    companyName: 'Held Back Bakery',
    company: { id: companyId, name: 'Held Back Bakery' },
    billIdList: [openBills[0]],
    viewerMayApprove: true,
  });
  expect(r.body.data.billsParsed.map((b: { Id: string }) => b.Id)).toEqual([openBills[0]]);
  const read = await api(gateway.url!, 'GET', `${A}/${approvalId}`, { token });
  expect(r.body.data).toEqual(read.body.data);
  await runner?.stop();
  runner = undefined;
});

it('a create the read model does not show answers 503; the retry with its key answers that approval', async () => {
  setTimeoutMs(300);
  const headers = { 'idempotency-key': 'approval-held-back-1' };
  const body = { companyId, billIds: [openBills[1]] };
  const first = await api(gateway.url!, 'POST', A, { body, token, headers });
  expect(first.status, JSON.stringify(first.body)).toBe(503);
  expect(first.body.message).toBe(SAVED_NOT_YET_SHOWN);
  // Stored, not yet shown: one new approval stream, no row.
  const count = async () =>
    (await gateway.app.db.selectFrom('approvals').select('id').where('company_id', '=', companyId).execute())
      .length;
  expect(await count()).toBe(1);

  await startApprovalsProjector();
  const retry = await api(gateway.url!, 'POST', A, { body, token, headers });
  expect(retry.status, JSON.stringify(retry.body)).toBe(201);
  expect(retry.body.data).toMatchObject({
    companyName: 'Held Back Bakery',
    status: 'PENDING',
    billIdList: [openBills[1]],
  });
  // The retry found the approval the first request created: no second one.
  expect(await count()).toBe(2);
  const streams = await gateway.app.pool.query(
    "SELECT count(DISTINCT stream_id)::int AS n FROM es_events WHERE stream_id LIKE 'approval-%' AND event_type = 'ApprovalCreated'",
  );
  expect(streams.rows[0].n).toBe(2);
});
