// Short-lived access tokens: HS256 JWTs carrying only the user id. The role is read fresh from the
// users read model on every call, so a role change or deactivation takes effect at once.
import { jwtVerify, SignJWT } from 'jose';

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

  /** The claims, or null for a missing, malformed, forged or expired token. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        issuer: 'billflow',
        algorithms: ['HS256'],
      });
      const userId = Number(payload.sub);
      return Number.isInteger(userId) && userId > 0 ? { userId } : null;
    } catch {
      return null;
    }
  }
}
