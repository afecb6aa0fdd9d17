// Short-lived access tokens: HS256 JWTs carrying only the user id. The role is read fresh from the
// users read model on every call, so a role change or deactivation takes effect at once.
import { jwtVerify, SignJWT } from 'jose';

export interface AccessTokenClaims {
  userId: number;
}

export class AccessTokens {
  private readonly key: Uint8Array;
  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(userId: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(userId))
      .setIssuer('billflow')
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  /** The claims, or null for a missing, malformed, forged or expired token. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: 'billflow', algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      return Number.isInteger(userId) && userId > 0 ? { userId } : null;
    } catch {
      return null;
    }
  }
}
