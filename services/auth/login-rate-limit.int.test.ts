// The failed-sign-in limit against a real Redis: a burst of parallel attempts cannot overrun it (each
// attempt takes its point atomically before the password is checked), and with Redis stopped it
// still holds, in this process's memory, instead of failing open or hanging.
import { afterAll, expect, it } from 'vitest';
import { createTestRedis } from '../../test/support/redis.js';
import { startScratchRedis } from '../../test/support/scratch-services.js';
import { createRedis, REDIS_COMMAND_TIMEOUT_MS, RedisMonitor, redisReady } from '../redis.js';
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
