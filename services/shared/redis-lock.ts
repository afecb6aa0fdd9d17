// A lock across processes in Redis (SET NX with a deadline): taking or waiting for it holds no
// database connection (a pooled connection held on pg_advisory_lock starved the pool). Released only
// by its holder; a crashed holder's lock ends by itself at its deadline.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/** The lock on `key` for at most `ttlMs`, with the function that releases it; null when another holds it. */
export async function tryRedisLock(
  redis: Redis,
  key: string,
  ttlMs: number,
): Promise<(() => Promise<void>) | null> {
  const holder = randomUUID();
  if ((await redis.set(key, holder, 'PX', ttlMs, 'NX')) !== 'OK') return null;
  return async () => {
    await redis.eval(RELEASE, 1, key, holder).catch(() => {});
  };
}
