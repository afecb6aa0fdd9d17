// The public vendor links' limits (rate-limiter-flexible on Redis, as sign-ins are counted): every
// read or press of a vendor link takes a point from its client address, and every press one from its
// link too, in a fixed window. A link is a credential that needs no sign-in; the decider's tries stop
// a guess at the micro-deposits, and these stop a flood of presses or a walk over tokens. While Redis
// is down the counts move to an in-memory limiter in this process: the limit never fails open.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../shared/errors.js';

/** Reads and presses of vendor links from one address in a window. */
export const LINK_CALLS_PER_ADDRESS = 60;
/** Presses of one link in a window (a verification's own tries are fewer: micro-deposit-rules.ts). */
export const PRESSES_PER_LINK = 10;
export const LINK_WINDOW_SECONDS = 15 * 60;

export const TOO_MANY = 'Too many attempts with vendor links: please try again in a few minutes';

interface Limiters {
  byAddress: RateLimiterRedis;
  byLink: RateLimiterRedis;
}

const limiters = new WeakMap<Redis, Map<string, Limiters>>();

function limitersOf(redis: Redis, prefix: string): Limiters {
  let byPrefix = limiters.get(redis);
  if (!byPrefix) {
    byPrefix = new Map();
    limiters.set(redis, byPrefix);
  }
  let l = byPrefix.get(prefix);
  if (!l) {
    const limiter = (keyPrefix: string, points: number) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix,
        points,
        duration: LINK_WINDOW_SECONDS,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: LINK_WINDOW_SECONDS }),
      });
    l = {
      byAddress: limiter(`${prefix}:vendor-link:ip`, LINK_CALLS_PER_ADDRESS),
      byLink: limiter(`${prefix}:vendor-link:press`, PRESSES_PER_LINK),
    };
    byPrefix.set(prefix, l);
  }
  return l;
}

/** Keys are digests: no address or token in plain text in Redis. */
const digest = (v: string) => createHash('sha256').update(v).digest('base64url').slice(0, 32);

/**
 * Takes a point for this call from its address and, for a press, from its link (the token); refused
 * with 429 past either limit.
 */
export async function countLinkCall(
  app: { redis: Redis; config: { REDIS_PREFIX: string } },
  call: { ip: string | null; token: unknown; press: boolean },
): Promise<void> {
  const l = limitersOf(app.redis, app.config.REDIS_PREFIX);
  const counts: Array<Promise<unknown>> = [];
  if (call.ip) counts.push(l.byAddress.consume(digest(call.ip)));
  if (call.press && typeof call.token === 'string' && call.token)
    counts.push(l.byLink.consume(digest(call.token)));
  const results = await Promise.allSettled(counts);
  for (const r of results) {
    if (r.status === 'fulfilled') continue;
    if (r.reason instanceof RateLimiterRes) throw new AppError('RATE_LIMITED', TOO_MANY);
    // Neither Redis nor the in-memory limiter could count: refuse rather than fail open.
    throw r.reason;
  }
}
