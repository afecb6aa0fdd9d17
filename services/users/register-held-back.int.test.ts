// Once its events are stored a mutation never answers 500: with no projector running (the users read
// model held back), register answers 503 "saved, not yet shown" (a write answers from its read model,
// never from the decider's state: services/app/answer-after-write.ts), and a retry with the same
// Idempotency-Key finds that user instead of answering 409: once the read model shows it, 201 with
// it. And a mutation waits only for the read model its answer reads: a held-back activity projection
// does not delay it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProjectionRunner } from '../../projections/runner.js';
import { usersProjection } from '../../projections/users/users.js';
import { testAppEnv } from '../../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { api, signIn } from '../../test/support/http.js';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { SAVED_NOT_YET_SHOWN } from '../app/answer-after-write.js';
import { type StartedApp, startApp } from '../main.js';
import { loadConfig } from '../shared/config.js';

let db: TestDatabase;
let redis: TestRedis;
let gateway: StartedApp;
const admin = { email: 'admin@billflow.test', password: 'Admin-Passw0rd!' };
let usersOnly: ProjectionRunner | undefined;

beforeAll(async () => {
  db = await createTestDatabase('heldback');
  await db.pool.end();
  redis = await createTestRedis('heldback');
  const env = testAppEnv(db, redis, admin, { HOST: '127.0.0.1', PORT: '0' });
  // The whole product once, so that the admin exists in the read model; then a gateway alone.
  const all = await startApp(loadConfig(env));
  await all.close();
  gateway = await startApp(loadConfig({ ...env, ROLE: 'gateway', READ_YOUR_WRITES_TIMEOUT_MS: '300' }));
});
afterAll(async () => {
  await usersOnly?.stop();
  await gateway?.close();
  await redis?.cleanup();
  await db?.drop();
});

/** A projector that runs the users projection alone: activity stays behind for good. */
async function startUsersOnly() {
  const { app } = gateway;
  usersOnly = new ProjectionRunner({
    pool: app.pool,
    store: app.store,
    projections: [usersProjection],
    redis: app.redis,
    prefix: app.config.REDIS_PREFIX,
    log: app.log,
  });
  await usersOnly.start();
}

it('answers 503 "saved" while the users read model is held back; a retry is no 409, and 201 once shown', async () => {
  const token = (await signIn(gateway.url!, admin.email, admin.password)).tokens.accessToken;
  const body = {
    email: 'held-back@billflow.test',
    password: 'Passw0rd-123',
    firstName: 'Held',
    role: 'USER',
  };
  const headers = { 'idempotency-key': 'register-held-back-1' };
  const first = await api(gateway.url!, 'POST', '/api/auth/register', { body, token, headers });
  expect(first.status, JSON.stringify(first.body)).toBe(503);
  expect(first.body).toMatchObject({ success: false, code: 'UNAVAILABLE', message: SAVED_NOT_YET_SHOWN });
  // Stored, though not in the read model.
  const claimed = await gateway.app.db
    .selectFrom('users')
    .select('id')
    .where('email_lower', '=', body.email)
    .executeTakeFirst();
  expect(claimed).toBeUndefined();
  const held = await api(gateway.url!, 'POST', '/api/auth/register', { body, token, headers });
  expect(held.status, JSON.stringify(held.body)).toBe(503);
  // Once the read model runs, the same retry answers with the user the first attempt stored.
  await startUsersOnly();
  (gateway.app.config as { READ_YOUR_WRITES_TIMEOUT_MS: number }).READ_YOUR_WRITES_TIMEOUT_MS = 20_000;
  const retry = await api(gateway.url!, 'POST', '/api/auth/register', { body, token, headers });
  expect(retry.status, JSON.stringify(retry.body)).toBe(201);
  expect(retry.body.data).toMatchObject({
    email: 'held-back@billflow.test',
    firstName: 'Held',
    lastName: null,
    role: 'USER',
    isActive: true,
  });
  // One user, one claim: the retries appended nothing.
  const stream = await gateway.app.store.readStream(`user-${retry.body.data.id}`);
  expect(stream.events.map((e) => e.type)).toEqual(['UserRegistered']);
});

it('waits for the users read model only: an edit answers with its effect while activity is held back', async () => {
  const { app } = gateway;
  if (!usersOnly) await startUsersOnly();
  // A generous time-out, so that waiting for activity too would show as a wait of seconds.
  (app.config as { READ_YOUR_WRITES_TIMEOUT_MS: number }).READ_YOUR_WRITES_TIMEOUT_MS = 20_000;
  const token = (await signIn(gateway.url!, admin.email, admin.password)).tokens.accessToken;
  const me = await api(gateway.url!, 'GET', '/api/auth/me', { token });
  const started = Date.now();
  const r = await api(gateway.url!, 'PUT', '/api/user/profile', { body: { lastName: 'Fast' }, token });
  const took = Date.now() - started;
  expect(r.status).toBe(200);
  expect(r.body.data).toMatchObject({ id: me.body.data.id, lastName: 'Fast' });
  expect(took).toBeLessThan(10_000);
});
