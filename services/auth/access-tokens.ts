// Short-lived access tokens: HS256 JWTs carrying only the user id. The role is read fresh from the
// users read model on every call, so a role change or deactivation takes effect at once.

import { jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';

export interface AccessTokenClaims {
  userId: number;
}

export class AccessTokens {
  /** Imported once: jose would otherwise import raw key bytes on every sign and verify. */
  private readonly key: Promise<CryptoKey>;
  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
  }

  async sign(userId: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(userId))
      .setIssuer('billflow')
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(await this.key);
  }

  /**
   * Tokens whose signature was checked, each kept until its own expiry: a signed-in client sends the
   * same token with every request for its lifetime, and the HMAC check (through WebCrypto's job
   * queue) was 4 % of the gateway's time. Equivalent to verifying again: the key does not change in
   * a process, and the cache drops a token once it expires. Failed tokens are never kept.
   */
  private readonly verified = new LRUCache<string, { userId: number }>({ max: 10_000 });

  /** The claims, or null for a missing, malformed, forged or expired token. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    const known = this.verified.get(token);
    if (known) return { userId: known.userId };
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        issuer: 'billflow',
        algorithms: ['HS256'],
      });
      const userId = Number(payload.sub);
      if (!Number.isInteger(userId) || userId <= 0 || typeof payload.exp !== 'number') return null;
      // jose's rule: expired once exp <= now (seconds); the entry lives until then.
      this.verified.set(token, { userId }, { ttl: payload.exp * 1000 - Date.now() });
      return { userId };
    } catch {
      return null;
    }
  }
}
