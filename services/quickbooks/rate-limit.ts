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

/** A little more than a second: Redis' clock and Intuit's are not the same clock. */
const SECOND_MS = 1050;

/** How long a request in flight is counted at most: a process that dies mid-request frees its turn. */
const IN_FLIGHT_MS = 35_000;

// Answers {0, 0} (taken), {1, ms} (the per-second slot frees in ms), {2, ms} (the window or a
// block opens in ms). A request taken is scored `now + inFlightMs` (counted while in flight); its
// answer rescored to the answer's time (ANSWERED). A slot held only by requests in flight is asked
// again shortly: when it frees depends on their answers.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local perSecond, perWindow, windowMs, secondMs, inFlightMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[6])
local blocked = redis.call('PTTL', KEYS[3])
if blocked > 0 then return {2, blocked} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - windowMs)
if redis.call('ZCARD', KEYS[2]) >= perWindow then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2])
  if oldest > now then return {1, 50} end
  return {2, oldest + windowMs - now}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - secondMs)
if redis.call('ZCARD', KEYS[1]) >= perSecond then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  if oldest > now then return {1, 50} end
  return {1, oldest + secondMs - now}
end
redis.call('ZADD', KEYS[1], now + inFlightMs, ARGV[5])
redis.call('PEXPIRE', KEYS[1], inFlightMs + secondMs + 1000)
redis.call('ZADD', KEYS[2], now + inFlightMs, ARGV[5])
redis.call('PEXPIRE', KEYS[2], inFlightMs + windowMs + 1000)
return {0, 0}
`;

// The request's answer came back: counted from now (XX: a turn already trimmed stays gone).
const ANSWERED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
redis.call('ZADD', KEYS[2], 'XX', now, ARGV[1])
return 0
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class QbRateLimiter {
  /** This process's own logs, used only while Redis cannot be reached. */
  private readonly local = new Map<
    string,
    { second: Map<string, number>; window: Map<string, number>; blockedUntil: number }
  >();

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

  private async take(realmId: string, turn: string): Promise<[number, number]> {
    try {
      const r = (await this.redis.eval(
        TAKE,
        3,
        ...this.keys(realmId),
        this.limits.perSecond,
        this.limits.perMinute,
        this.windowMs,
        SECOND_MS,
        turn,
        IN_FLIGHT_MS,
      )) as [number, number];
      return [Number(r[0]), Number(r[1])];
    } catch {
      return this.takeLocally(realmId, turn);
    }
  }

  /** The same counting in this process's memory. */
  private takeLocally(realmId: string, turn: string): [number, number] {
    const now = Date.now();
    let s = this.local.get(realmId);
    if (!s) {
      s = { second: new Map(), window: new Map(), blockedUntil: 0 };
      this.local.set(realmId, s);
    }
    if (s.blockedUntil > now) return [2, s.blockedUntil - now];
    // The oldest turn counted when the log is full (null: a turn is free).
    const full = (log: Map<string, number>, ms: number, limit: number) => {
      for (const [id, at] of log) if (at <= now - ms) log.delete(id);
      return log.size < limit ? null : Math.min(...log.values());
    };
    const inWindow = full(s.window, this.windowMs, this.limits.perMinute);
    if (inWindow !== null) return inWindow > now ? [1, 50] : [2, inWindow + this.windowMs - now];
    const inSecond = full(s.second, SECOND_MS, this.limits.perSecond);
    if (inSecond !== null) return [1, inSecond > now ? 50 : inSecond + SECOND_MS - now];
    s.second.set(turn, now + IN_FLIGHT_MS);
    s.window.set(turn, now + IN_FLIGHT_MS);
    return [0, 0];
  }

  /** The request of `turn` was answered (or failed): it is counted from now for a second and the window. */
  async answered(realmId: string, turn: string): Promise<void> {
    const s = this.local.get(realmId);
    if (s) {
      const now = Date.now();
      if (s.second.has(turn)) s.second.set(turn, now);
      if (s.window.has(turn)) s.window.set(turn, now);
    }
    await this.redis.eval(ANSWERED, 2, ...this.keys(realmId).slice(0, 2), turn).catch(() => {});
  }

  /**
   * Takes one request of the realm's budget. The per-second slot is always waited for (a turn comes
   * within a second or a few, and the waiting caller holds nothing: no database connection); the
   * window is waited for only when it opens within `maxWaitMs`, otherwise QbRateLimited says how
   * long (a job is delayed that long, a request answers 503). Returns the turn, which the caller
   * hands to `answered` when the request's answer (or failure) comes back.
   */
  async acquire(realmId: string, maxWaitMs: number): Promise<string> {
    let windowWaited = 0;
    const turn = randomUUID();
    for (;;) {
      const [kind, ms] = await this.take(realmId, turn);
      if (kind === 0) return turn;
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
