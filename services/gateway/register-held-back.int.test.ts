// Once its events are stored a mutation never answers 500: with no projector running (the users read
// model held back), register answers 201 with the new user from the command's own outcome, and a
// retry with the same Idempotency-Key finds that user instead of answering 409. And a mutation waits
// only for the read model its answer reads: a held-back activity projection does not delay it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProjectionRunner } from '../../projections/runner.js';
import { usersProjection } from '../../projections/users/users.js';
import { testAppEnv } from '../../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { api, signIn } from '../../test/support/http.js';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
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

it('answers 201 with the new user while the users read model is held back, and a retry is no 409', async () => {
  const token = (await signIn(gateway.url!, admin.email, admin.password)).tokens.accessToken;
  const body = {
    email: 'held-back@billflow.test',
    password: 'Passw0rd-123',
    firstName: 'Held',
    role: 'USER',
  };
  const headers = { 'idempotency-key': 'register-held-back-1' };
  const first = await api(gateway.url!, 'POST', '/api/auth/register', { body, token, headers });
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  expect(first.body.data).toMatchObject({
    email: 'held-back@billflow.test',
    firstName: 'Held',
    lastName: null,
    role: 'USER',
    isActive: true,
  });
  expect(first.body.data.id).toEqual(expect.any(Number));
  // Not in the read model: the answer came from the command's outcome.
  const row = await gateway.app.db
    .selectFrom('users')
    .select('id')
    .where('id', '=', first.body.data.id)
    .executeTakeFirst();
  expect(row).toBeUndefined();
  const retry = await api(gateway.url!, 'POST', '/api/auth/register', { body, token, headers });
  expect(retry.status, JSON.stringify(retry.body)).toBe(201);
  expect(retry.body.data.id).toBe(first.body.data.id);
  // One user, one claim: the retry appended nothing.
  const stream = await gateway.app.store.readStream(`user-${first.body.data.id}`);
  expect(stream.events.map((e) => e.type)).toEqual(['UserRegistered']);
});

it('waits for the users read model only: an edit answers with its effect while activity is held back', async () => {
  const { app } = gateway;
  // A projector that runs the users projection alone: activity stays behind for good.
  usersOnly = new ProjectionRunner({
    pool: app.pool,
    store: app.store,
    projections: [usersProjection],
    redis: app.redis,
    prefix: app.config.REDIS_PREFIX,
    log: app.log,
  });
  await usersOnly.start();
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
