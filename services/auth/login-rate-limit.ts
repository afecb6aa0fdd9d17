// Failed sign-ins, counted per e-mail and address, per address, and per e-mail from anywhere, in a
// fixed window that opens at the first attempt (rate-limiter-flexible on Redis). Every attempt takes
// its point before the password is checked, in one atomic increment, so a burst of parallel guesses
// cannot slip past the limit; a successful sign-in gives its points back, and so does an attempt that
// ended before its password was compared (the database failed first): that was no guess. While Redis
// is down the counts move to an in-memory limiter in this process: the limit holds per process and
// never fails open.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** The answer to one attempt: refused outright (429), or allowed after a delay. */
export type LoginAttempt = { allowed: false } | { allowed: true; delayMs: number };

/** Longest wait a guessed-at e-mail puts on each attempt. */
export const MAX_LOGIN_DELAY_MS = 5000;

export class LoginRateLimit {
  private readonly byPair: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;
  private readonly byEmail: RateLimiterRedis;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly maxFailures: number,
    windowSeconds: number,
  ) {
    const limiter = (keyPrefix: string, points: number) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix,
        points,
        duration: windowSeconds,
        // Not connected: straight to the in-memory limiter, no waiting on a reconnect.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds }),
      });
    // Locked out: this e-mail from this address. Guesses from elsewhere do not lock the owner out.
    this.byPair = limiter(`${prefix}:login-fail:pair`, maxFailures);
    // An address may try more than one account, but not endlessly: four times the per-e-mail limit.
    this.byAddress = limiter(`${prefix}:login-fail:ip`, maxFailures * 4);
    // Guesses at one e-mail from anywhere: counted only, to slow each further attempt down.
    this.byEmail = limiter(`${prefix}:login-fail:email`, 1_000_000);
  }

  /** Keys are digests: no e-mail or address in plain text in Redis. */
  private static key(...values: string[]) {
    return createHash('sha256').update(values.join('\u0000')).digest('base64url').slice(0, 32);
  }

  /** The counts an attempt takes a point from, each with its key; the per-e-mail one last. */
  private counters(email: string, ip: string | null): Array<[RateLimiterRedis, string]> {
    const mail = email.toLowerCase();
    return [
      [this.byPair, LoginRateLimit.key(mail, ip ?? '')],
      ...(ip ? [[this.byAddress, LoginRateLimit.key(ip)] as [RateLimiterRedis, string]] : []),
      [this.byEmail, LoginRateLimit.key(mail)],
    ];
  }

  /**
   * Counts one sign-in attempt (or a check of the current password) before the password is checked,
   * atomically. Refused when this e-mail from this address, or this address, is over its limit.
   * Allowed otherwise, after a delay once the e-mail has had more failures than the limit from
   * anywhere: doubling from 250 ms up to MAX_LOGIN_DELAY_MS, so a spread-out guessing attack crawls
   * while the owner, from their own address, still gets in.
   */
  async attempt(email: string, ip: string | null): Promise<LoginAttempt> {
    const results = await Promise.allSettled(
      this.counters(email, ip).map(([limiter, key]) => limiter.consume(key)),
    );
    let failures = 0;
    for (const [i, r] of results.entries()) {
      if (r.status === 'fulfilled') {
        if (i === results.length - 1) failures = r.value.consumedPoints - 1;
        continue;
      }
      if (r.reason instanceof RateLimiterRes) return { allowed: false };
      // Neither Redis nor the in-memory limiter could count: refuse rather than fail open.
      throw r.reason;
    }
    const over = failures - this.maxFailures;
    return { allowed: true, delayMs: over <= 0 ? 0 : Math.min(250 * 2 ** (over - 1), MAX_LOGIN_DELAY_MS) };
  }

  /** A correct password: this e-mail starts clean, and the address gets its point back. */
  async succeeded(email: string, ip: string | null): Promise<void> {
    const mail = email.toLowerCase();
    await Promise.allSettled([
      this.byPair.delete(LoginRateLimit.key(mail, ip ?? '')),
      this.byEmail.delete(LoginRateLimit.key(mail)),
      ...(ip ? [this.byAddress.reward(LoginRateLimit.key(ip))] : []),
    ]);
  }

  /**
   * An allowed attempt that ended before its password was compared (no connection in the pool, the
   * database failed): it gives back the point it took from each count, so an outage does not lock
   * the owner out. A count whose window ended meanwhile holds nothing of this attempt's and is left
   * alone (never below zero, which would hand out a free guess). Never throws: a point it cannot
   * give back stays counted, erring on the side of the limit.
   */
  async giveBack(email: string, ip: string | null): Promise<void> {
    await Promise.allSettled(
      this.counters(email, ip).map(async ([limiter, key]) => {
        const counted = await limiter.get(key);
        if (counted && counted.consumedPoints > 0) await limiter.reward(key);
      }),
    );
  }
}
