// Failed sign-ins counted in Redis per e-mail and per client address, in a fixed window that opens
// at the first failure. Once a limit is reached, sign-in answers 429 without checking the password.
import type { Redis } from 'ioredis';

export class LoginRateLimit {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly maxFailures: number,
    private readonly windowSeconds: number,
  ) {}

  private keys(email: string, ip: string | null) {
    const keys = [`${this.prefix}:login-fail:email:${email.toLowerCase()}`];
    if (ip) keys.push(`${this.prefix}:login-fail:ip:${ip}`);
    return keys;
  }

  /** An address may try more than one account, but not endlessly: four times the per-e-mail limit. */
  private limitFor(key: string) {
    return key.includes(':ip:') ? this.maxFailures * 4 : this.maxFailures;
  }

  async isLimited(email: string, ip: string | null): Promise<boolean> {
    const keys = this.keys(email, ip);
    const counts = await this.redis.mget(...keys);
    return counts.some((c, i) => Number(c ?? 0) >= this.limitFor(keys[i]));
  }

  async recordFailure(email: string, ip: string | null): Promise<void> {
    const multi = this.redis.multi();
    for (const key of this.keys(email, ip)) {
      multi.incr(key);
      multi.expire(key, this.windowSeconds, 'NX');
    }
    await multi.exec();
  }

  async reset(email: string): Promise<void> {
    await this.redis.del(this.keys(email, null)[0]);
  }
}
