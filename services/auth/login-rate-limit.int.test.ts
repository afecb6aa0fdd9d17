// The failed-sign-in limit against a real Redis: a burst of parallel attempts cannot overrun it (each
// attempt takes its point atomically before the password is checked), an attempt never checked gives
// its points back (in the product too, on a real pool and database), and with Redis stopped it still
// holds, in this process's memory, instead of failing open or hanging.
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { startTestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { createTestRedis } from '../../test/support/redis.js';
import { startScratchRedis } from '../../test/support/scratch-services.js';
import { createRedis, REDIS_COMMAND_TIMEOUT_MS, RedisMonitor, redisReady } from '../shared/redis.js';
import { type LoginAttempt, LoginRateLimit, MAX_LOGIN_DELAY_MS } from './login-rate-limit.js';

const quiet = { info() {}, warn() {}, error() {} };
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

const allowed = (a: LoginAttempt) => a.allowed;

it('lets exactly the limit through when attempts arrive all at once', async () => {
  const shared = await createTestRedis('loginlimit');
  cleanups.push(() => shared.cleanup());
  const redis = createRedis(shared.url, new RedisMonitor(quiet));
  cleanups.push(async () => redis.disconnect());
  expect(await redisReady(redis, 5000)).toBe(true);
  const limit = new LoginRateLimit(redis, shared.prefix, 3, 60);

  const burst = await Promise.all(
    Array.from({ length: 20 }, () => limit.attempt('Burst@x.test', '10.0.0.1')),
  );
  expect(burst.filter(allowed)).toHaveLength(3);
  // The e-mail is counted case-insensitively, and kept in Redis only as a digest.
  expect(await limit.attempt('burst@X.test', '10.0.0.1')).toEqual({ allowed: false });
  const keys = await shared.client.keys(`${shared.prefix}*`);
  expect(keys.length).toBeGreaterThan(0);
  expect(keys.join(' ')).not.toMatch(/burst|10\.0\.0/i);

  // The address allows four times the per-e-mail limit across accounts; a success gives its point back.
  const other = await Promise.all(
    Array.from({ length: 12 }, (_, i) => limit.attempt(`acct${i}@x.test`, '10.0.0.3')),
  );
  expect(other.filter(allowed)).toHaveLength(12);
  await limit.succeeded('acct0@x.test', '10.0.0.3');
  expect((await limit.attempt('acct0@x.test', '10.0.0.3')).allowed).toBe(true);
  expect((await limit.attempt('acct1@x.test', '10.0.0.3')).allowed).toBe(false);
});

it('guesses from elsewhere slow an e-mail down but do not lock its owner out', async () => {
  const shared = await createTestRedis('loginslow');
  cleanups.push(() => shared.cleanup());
  const redis = createRedis(shared.url, new RedisMonitor(quiet));
  cleanups.push(async () => redis.disconnect());
  expect(await redisReady(redis, 5000)).toBe(true);
  const limit = new LoginRateLimit(redis, shared.prefix, 3, 60);
  // Three guesses from each of two addresses: each address is locked out of this e-mail...
  for (const ip of ['198.51.100.1', '198.51.100.2'])
    for (let i = 0; i < 3; i++) expect((await limit.attempt('owner@x.test', ip)).allowed).toBe(true);
  expect((await limit.attempt('owner@x.test', '198.51.100.1')).allowed).toBe(false);
  // ...while the owner, from their own address, still gets a try, after a delay that grows.
  const first = await limit.attempt('owner@x.test', '203.0.113.9');
  const second = await limit.attempt('owner@x.test', '203.0.113.10');
  expect(first.allowed && second.allowed).toBe(true);
  if (!first.allowed || !second.allowed) return;
  expect(first.delayMs).toBeGreaterThan(0);
  expect(second.delayMs).toBeGreaterThan(first.delayMs);
  expect(second.delayMs).toBeLessThanOrEqual(MAX_LOGIN_DELAY_MS);
  // Their sign-in ends the slow-down.
  await limit.succeeded('owner@x.test', '203.0.113.10');
  expect(await limit.attempt('owner@x.test', '203.0.113.11')).toEqual({ allowed: true, delayMs: 0 });
});

it('an attempt whose password was never checked gives its points back, and never more than it took', async () => {
  const shared = await createTestRedis('loginback');
  cleanups.push(() => shared.cleanup());
  const redis = createRedis(shared.url, new RedisMonitor(quiet));
  cleanups.push(async () => redis.disconnect());
  expect(await redisReady(redis, 5000)).toBe(true);
  const limit = new LoginRateLimit(redis, shared.prefix, 2, 60);
  const ip = '192.0.2.7';
  // Five attempts that ended before the password was compared: no lock-out, no slow-down.
  for (let i = 0; i < 5; i++) {
    expect(await limit.attempt('back@x.test', ip)).toEqual({ allowed: true, delayMs: 0 });
    await limit.giveBack('back@x.test', ip);
  }
  // Nothing left to give (a count at zero, or none at all): no free guess is handed out.
  await limit.giveBack('back@x.test', ip);
  await limit.giveBack('fresh@x.test', ip);
  for (const email of ['back@x.test', 'fresh@x.test']) {
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await limit.attempt(email, ip));
    expect(guesses.map(allowed)).toEqual([true, true, false]);
  }
});

it('holds while Redis is down, answering at once, and never fails open', async () => {
  const scratch = await startScratchRedis();
  cleanups.push(() => scratch.close());
  const redis = createRedis(scratch.url, new RedisMonitor(quiet));
  cleanups.push(async () => redis.disconnect());
  expect(await redisReady(redis, 5000)).toBe(true);
  const limit = new LoginRateLimit(redis, 'down', 3, 60);
  await scratch.stop();

  const t = performance.now();
  const results = await Promise.all(Array.from({ length: 10 }, () => limit.attempt('a@x.test', null)));
  expect(performance.now() - t).toBeLessThan(1000);
  expect(results.filter(allowed)).toHaveLength(3);
  expect((await limit.attempt('a@x.test', null)).allowed).toBe(false);
  // Another e-mail has its own count.
  expect((await limit.attempt('b@x.test', null)).allowed).toBe(true);
});

it('does not wait on a Redis that hangs: each attempt answers within the command time-out', async () => {
  const scratch = await startScratchRedis();
  cleanups.push(() => scratch.close());
  const redis = createRedis(scratch.url, new RedisMonitor(quiet));
  cleanups.push(async () => redis.disconnect());
  expect(await redisReady(redis, 5000)).toBe(true);
  const limit = new LoginRateLimit(redis, 'hung', 2, 60);
  scratch.pause();
  cleanups.push(async () => scratch.resume());

  const t = performance.now();
  const results = await Promise.all(Array.from({ length: 5 }, () => limit.attempt('h@x.test', null)));
  expect(performance.now() - t).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + 1000);
  expect(results.filter(allowed)).toHaveLength(2);
});

it('a sign-in the server never checked is not a failed guess: a pool shortage or a failing database locks no one out', async () => {
  // A product of its own: the counts of its one address (this test's) start at zero.
  const t = await startTestApp({ env: { LOGIN_MAX_FAILURES: '3' } });
  cleanups.push(() => t.stop());
  const admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const email = 'unchecked@billflow.test';
  const password = 'Right-passw0rd';
  const created = await api(t.url, 'POST', '/api/auth/register', {
    token: admin,
    body: { email, password, role: 'USER' },
  });
  expect(created.status).toBe(201);
  const login = (pw: string) => api(t.url, 'POST', '/api/auth/login', { body: { email, password: pw } });

  // Every connection of the product's own pool held: a sign-in waits for one, gives up, and answers
  // 503 before it could read the user. Twice three at once: six attempts, twice the limit of three.
  const pool = t.started.app.pool;
  const held: pg.PoolClient[] = [];
  try {
    while (held.length < (pool.options.max ?? 10)) held.push(await pool.connect());
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all([0, 1, 2].map(() => login(password)));
      expect(answers.map((r) => r.status)).toEqual([503, 503, 503]);
    }
  } finally {
    for (const client of held) client.release();
  }
  expect((await login(password)).status).toBe(200);

  // The database failing while the hash is read (after the user was found): four times, over the limit.
  const sql = new pg.Client({ connectionString: t.env.DATABASE_URL });
  await sql.connect();
  cleanups.push(() => sql.end());
  const breakHashes = () => sql.query('ALTER TABLE user_credentials RENAME TO user_credentials_broken');
  const mendHashes = () => sql.query('ALTER TABLE user_credentials_broken RENAME TO user_credentials');
  await breakHashes();
  try {
    for (let i = 0; i < 4; i++) expect((await login(password)).status).toBe(500);
  } finally {
    await mendHashes();
  }
  expect((await login(password)).status).toBe(200);

  // Wrong passwords still count, and unchecked attempts between them neither add nor take away:
  // two wrong, two the server could not check, one more wrong, and the right one is refused.
  for (let i = 0; i < 2; i++) expect((await login('wrong-password')).status).toBe(401);
  await breakHashes();
  try {
    for (let i = 0; i < 2; i++) expect((await login('wrong-password')).status).toBe(500);
  } finally {
    await mendHashes();
  }
  expect((await login('wrong-password')).status).toBe(401);
  expect((await login(password)).status).toBe(429);
}, 60_000);
