// The Redis lock on real Redis: one holder at a time, released only by its holder, and ended by its
// deadline when the holder never releases it (a crashed process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { tryRedisLock } from './redis-lock.js';

let r: TestRedis;
beforeAll(async () => {
  r = await createTestRedis('lock');
});
afterAll(async () => {
  await r?.cleanup();
});

describe('tryRedisLock', () => {
  it('gives the lock to one holder at a time; another may take it once released', async () => {
    const key = `${r.prefix}:a`;
    const first = await tryRedisLock(r.client, key, 10_000);
    expect(first).not.toBeNull();
    expect(await tryRedisLock(r.client, key, 10_000)).toBeNull();
    await first!();
    const second = await tryRedisLock(r.client, key, 10_000);
    expect(second).not.toBeNull();
    await second!();
  });

  it('is released only by its holder: a late release of an ended lock leaves the next holder’s', async () => {
    const key = `${r.prefix}:b`;
    const crashed = await tryRedisLock(r.client, key, 50);
    expect(crashed).not.toBeNull();
    // Its deadline ends it (the holder never released it).
    await expect.poll(async () => r.client.exists(key), { timeout: 5_000 }).toBe(0);
    const next = await tryRedisLock(r.client, key, 10_000);
    expect(next).not.toBeNull();
    await crashed!();
    expect(await tryRedisLock(r.client, key, 10_000)).toBeNull();
    await next!();
    expect(await r.client.exists(key)).toBe(0);
  });
});
