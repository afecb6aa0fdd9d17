// Short-lived access tokens: HS256 JWTs carrying the user id and the session id (`sid`). The role is
// read fresh from the users read model on every call, so a role change or deactivation takes effect
// at once, and the session is checked too, so a sign-out ends the token with its session.

import { jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';

export interface AccessTokenClaims {
  userId: number;
  sessionId: string;
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

  async sign(userId: number, sessionId: string): Promise<string> {
    return new SignJWT({ sid: sessionId })
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
  private readonly verified = new LRUCache<string, AccessTokenClaims>({ max: 10_000 });

  /** The claims, or null for a missing, malformed, forged or expired token. */
  /** When the token expires (ms since the epoch), for a socket to end with it; null if unreadable. */
  expiresAt(token: string): number | null {
    try {
      const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
      return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
    } catch {
      return null;
    }
  }

  async verify(token: string): Promise<AccessTokenClaims | null> {
    const known = this.verified.get(token);
    if (known) return { ...known };
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        issuer: 'billflow',
        algorithms: ['HS256'],
      });
      const userId = Number(payload.sub);
      const sessionId = payload.sid;
      // A token from before sessions (no sid) is refused: the client refreshes and gets one with it.
      if (!Number.isInteger(userId) || userId <= 0 || typeof payload.exp !== 'number') return null;
      if (typeof sessionId !== 'string' || sessionId.length === 0) return null;
      // jose's rule: expired once exp <= now (seconds); the entry lives until then.
      this.verified.set(token, { userId, sessionId }, { ttl: payload.exp * 1000 - Date.now() });
      return { userId, sessionId };
    } catch {
      return null;
    }
  }
}
