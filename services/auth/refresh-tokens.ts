// Refresh tokens: random, stored only as a SHA-256 hash, rotated on every use. Each sign-in starts a
// family; presenting a token that was already used (rotated away) or revoked is treated as theft and
// revokes the whole family.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

export interface RefreshTokensTable {
  id: string;
  family_id: string;
  user_id: number;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

export type RotateResult =
  | { ok: true; userId: number; token: string; familyId: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' };

export class RefreshTokens {
  constructor(
    private readonly db: Kysely<{ auth_refresh_tokens: RefreshTokensTable }>,
    private readonly ttlSeconds: number,
  ) {}

  static async setup(db: Kysely<any>) {
    await sql`CREATE TABLE IF NOT EXISTS auth_refresh_tokens (
      id uuid PRIMARY KEY,
      family_id uuid NOT NULL,
      user_id integer NOT NULL,
      token_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS auth_refresh_tokens_family ON auth_refresh_tokens (family_id)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS auth_refresh_tokens_user ON auth_refresh_tokens (user_id)`.execute(
      db,
    );
  }

  /** Starts a new family (a sign-in). */
  issue(userId: number): Promise<{ token: string; familyId: string }> {
    return this.insert(userId, randomUUID(), this.db);
  }

  private async insert(
    userId: number,
    familyId: string,
    db: Kysely<{ auth_refresh_tokens: RefreshTokensTable }>,
  ) {
    const token = randomBytes(32).toString('base64url');
    await db
      .insertInto('auth_refresh_tokens')
      .values({
        id: randomUUID(),
        family_id: familyId,
        user_id: userId,
        token_hash: sha256(token),
        created_at: new Date(),
        expires_at: new Date(Date.now() + this.ttlSeconds * 1000),
        used_at: null,
        revoked_at: null,
      })
      .execute();
    return { token, familyId };
  }

  /** Exchanges a token for its successor. Exactly one of two concurrent uses wins; the other is reuse. */
  async rotate(token: string): Promise<RotateResult> {
    const hash = sha256(token);
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('auth_refresh_tokens')
        .selectAll()
        .where('token_hash', '=', hash)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'unknown' } as const;
      if (row.revoked_at) return { ok: false, reason: 'revoked' } as const;
      if (row.used_at) {
        await trx
          .updateTable('auth_refresh_tokens')
          .set({ revoked_at: new Date() })
          .where('family_id', '=', row.family_id)
          .where('revoked_at', 'is', null)
          .execute();
        return { ok: false, reason: 'reused' } as const;
      }
      if (row.expires_at.getTime() <= Date.now()) return { ok: false, reason: 'expired' } as const;
      await trx
        .updateTable('auth_refresh_tokens')
        .set({ used_at: new Date() })
        .where('id', '=', row.id)
        .execute();
      const next = await this.insert(row.user_id, row.family_id, trx);
      return { ok: true, userId: row.user_id, ...next } as const;
    });
  }

  /**
   * Sign-out: revokes the family the token belongs to. With `userId` given, only that user's token
   * counts. Returns the owner's id, or null when the token is unknown or someone else's.
   */
  async revokeFamilyOf(token: string, userId: number | null): Promise<number | null> {
    const row = await this.db
      .selectFrom('auth_refresh_tokens')
      .select(['family_id', 'user_id'])
      .where('token_hash', '=', sha256(token))
      .executeTakeFirst();
    if (!row || (userId !== null && row.user_id !== userId)) return null;
    await this.db
      .updateTable('auth_refresh_tokens')
      .set({ revoked_at: new Date() })
      .where('family_id', '=', row.family_id)
      .where('revoked_at', 'is', null)
      .execute();
    return row.user_id;
  }

  /** Ends every session of a user (deactivation, deletion, password change by an admin). */
  async revokeAllFor(userId: number): Promise<void> {
    await this.db
      .updateTable('auth_refresh_tokens')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Housekeeping (a repeatable worker job): drops tokens that expired over a day ago. */
  async purgeExpired(): Promise<number> {
    const r = await this.db
      .deleteFrom('auth_refresh_tokens')
      .where('expires_at', '<', new Date(Date.now() - 86_400_000))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
