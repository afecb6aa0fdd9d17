// One limiter per realm for every process of a deployment (in Redis), so that gateways and workers
// together stay within Intuit's throttles: 500 requests a minute per realm and 10 a second per
// realm and app (developer.intuit.com "Limits and throttles"; Intuit's blog 2016-08-08 "QuickBooks
// Online API throttling changes"; reference/quickbooks.md §6). Sliding windows (a log of request
// times per realm, trimmed and counted in one Lua script on Redis' clock): fixed windows let twice
// the limit through across a window's edge, which a sliding count at Intuit refuses. A 429 that
// QuickBooks sends anyway blocks the realm here for the wait it asked for, so no process spends
// requests that would only be refused. While Redis is down each process keeps the limits by itself.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface QbRateLimits {
  perMinute: number;
  perSecond: number;
  /** The long window, seconds (Intuit: 60). Tests shorten it. */
  windowSeconds: number;
}

export const INTUIT_LIMITS: QbRateLimits = { perMinute: 500, perSecond: 10, windowSeconds: 60 };

/** The realm's budget is spent: wait `retryAfterMs` (the caller's job is delayed, a request answers 503). */
export class QbRateLimited extends Error {
  constructor(public readonly retryAfterMs: number) {
    super(
      `QuickBooks allows no more requests for this company right now; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
    );
    this.name = 'QbRateLimited';
  }
}

/** A little more than a second: requests reach Intuit a little after they are counted here. */
const SECOND_MS = 1050;

// Answers {0, 0} (taken), {1, ms} (the per-second slot frees in ms), {2, ms} (the window or a
// block opens in ms).
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local perSecond, perWindow, windowMs, secondMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local blocked = redis.call('PTTL', KEYS[3])
if blocked > 0 then return {2, blocked} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - windowMs)
if redis.call('ZCARD', KEYS[2]) >= perWindow then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {2, tonumber(oldest[2]) + windowMs - now}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - secondMs)
if redis.call('ZCARD', KEYS[1]) >= perSecond then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, tonumber(oldest[2]) + secondMs - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], secondMs + 1000)
redis.call('ZADD', KEYS[2], now, ARGV[5])
redis.call('PEXPIRE', KEYS[2], windowMs + 1000)
return {0, 0}
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class QbRateLimiter {
  /** This process's own logs, used only while Redis cannot be reached. */
  private readonly local = new Map<string, { second: number[]; window: number[]; blockedUntil: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: QbRateLimits = INTUIT_LIMITS,
  ) {}

  private keys(realmId: string) {
    const base = `${this.prefix}:qb-rate:${realmId}`;
    return [`${base}:second`, `${base}:window`, `${base}:block`];
  }

  /** The window with the same margin as the second: one request's latency may exceed another's. */
  private get windowMs() {
    return this.limits.windowSeconds * 1000 + (SECOND_MS - 1000);
  }

  private async take(realmId: string): Promise<[number, number]> {
    try {
      const r = (await this.redis.eval(
        TAKE,
        3,
        ...this.keys(realmId),
        this.limits.perSecond,
        this.limits.perMinute,
        this.windowMs,
        SECOND_MS,
        randomUUID(),
      )) as [number, number];
      return [Number(r[0]), Number(r[1])];
    } catch {
      return this.takeLocally(realmId);
    }
  }

  private takeLocally(realmId: string): [number, number] {
    const now = Date.now();
    let s = this.local.get(realmId);
    if (!s) {
      s = { second: [], window: [], blockedUntil: 0 };
      this.local.set(realmId, s);
    }
    if (s.blockedUntil > now) return [2, s.blockedUntil - now];
    s.window = s.window.filter((at) => at > now - this.windowMs);
    if (s.window.length >= this.limits.perMinute) return [2, s.window[0] + this.windowMs - now];
    s.second = s.second.filter((at) => at > now - SECOND_MS);
    if (s.second.length >= this.limits.perSecond) return [1, s.second[0] + SECOND_MS - now];
    s.second.push(now);
    s.window.push(now);
    return [0, 0];
  }

  /**
   * Takes one request of the realm's budget. The per-second slot is always waited for (a turn comes
   * within a second or a few, and the waiting caller holds nothing: no database connection); the
   * window is waited for only when it opens within `maxWaitMs`, otherwise QbRateLimited says how
   * long (a job is delayed that long, a request answers 503).
   */
  async acquire(realmId: string, maxWaitMs: number): Promise<void> {
    let windowWaited = 0;
    for (;;) {
      const [kind, ms] = await this.take(realmId);
      if (kind === 0) return;
      const wait = Math.max(10, ms);
      if (kind === 2) {
        if (windowWaited + wait > maxWaitMs) throw new QbRateLimited(wait);
        windowWaited += wait;
      }
      // A little jitter: waiters of several processes do not all come back at the same instant.
      await sleep(wait + Math.floor(Math.random() * 20));
    }
  }

  /** QuickBooks answered 429: nobody calls this realm again before the wait it asked for. */
  async blockFor(realmId: string, ms: number): Promise<void> {
    const s = this.local.get(realmId);
    if (s) s.blockedUntil = Date.now() + ms;
    await this.redis.set(this.keys(realmId)[2], '1', 'PX', Math.max(1, Math.ceil(ms))).catch(() => {});
  }
}
