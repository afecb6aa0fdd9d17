// Failed sign-ins, counted per e-mail and per client address in a fixed window that opens at the
// first attempt (rate-limiter-flexible on Redis). Every attempt takes its point before the password
// is checked, in one atomic increment, so a burst of parallel guesses cannot slip past the limit;
// a successful sign-in gives its points back. While Redis is down the counts move to an in-memory
// limiter in this process: the limit holds per process and never fails open.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export class LoginRateLimit {
  private readonly byEmail: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;

  constructor(redis: Redis, prefix: string, maxFailures: number, windowSeconds: number) {
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
    this.byEmail = limiter(`${prefix}:login-fail:email`, maxFailures);
    // An address may try more than one account, but not endlessly: four times the per-e-mail limit.
    this.byAddress = limiter(`${prefix}:login-fail:ip`, maxFailures * 4);
  }

  /** Keys are digests: no e-mail or address in plain text in Redis. */
  private static key(value: string) {
    return createHash('sha256').update(value).digest('base64url').slice(0, 32);
  }

  /**
   * Counts one sign-in attempt for this e-mail and address; false when either is over its limit
   * (then answer 429 without checking the password).
   */
  async attempt(email: string, ip: string | null): Promise<boolean> {
    const results = await Promise.allSettled([
      this.byEmail.consume(LoginRateLimit.key(email.toLowerCase())),
      ...(ip ? [this.byAddress.consume(LoginRateLimit.key(ip))] : []),
    ]);
    for (const r of results) {
      if (r.status === 'fulfilled') continue;
      if (r.reason instanceof RateLimiterRes) return false;
      // Neither Redis nor the in-memory limiter could count: refuse rather than fail open.
      throw r.reason;
    }
    return true;
  }

  /** A correct password: this e-mail starts clean, and the address gets its point back. */
  async succeeded(email: string, ip: string | null): Promise<void> {
    await Promise.allSettled([
      this.byEmail.delete(LoginRateLimit.key(email.toLowerCase())),
      ...(ip ? [this.byAddress.reward(LoginRateLimit.key(ip))] : []),
    ]);
  }
}
