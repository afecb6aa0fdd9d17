// Sessions and their refresh tokens. A sign-in starts a session (`auth_sessions`, its id travels in
// every access token as `sid`); its refresh tokens are random, stored only as a SHA-256 hash, and
// rotated on every use. Presenting a token that was already rotated away is treated as theft and
// ends the session, except within a short window right after the rotation, where the same token
// gets the same successor again: two tabs that refresh at once must not sign each other out. The
// successor is derived from its predecessor with a key (HMAC), so it can be answered again without
// ever storing a token in the clear. A session also has an absolute end, however often it refreshes.
import { createHash, createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { type Kysely, type QueryExecutorProvider, sql } from 'kysely';

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

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
}

/** The two tables this file owns (projections/database.ts adds them to the read-model database). */
type Db = Kysely<{ auth_refresh_tokens: RefreshTokensTable; auth_sessions: SessionsTable }>;

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

/** How long a rotated token still gets its successor again (a second tab refreshing at once). */
export const REUSE_WINDOW_MS = 10_000;

export type RotateResult =
  | { ok: true; userId: number; token: string; familyId: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' }
  /** Theft suspected: the session was ended (the caller announces it). */
  | { ok: false; reason: 'reused'; userId: number; familyId: string };

export class RefreshTokens {
  private readonly successorKey: Buffer;

  private readonly db: Db;

  constructor(
    // The read-model database, of which this file uses its two tables.
    db: Kysely<any>,
    private readonly ttlSeconds: number,
    options: { secret: string; sessionMaxAgeSeconds: number },
  ) {
    this.db = db;
    this.successorKey = Buffer.from(
      hkdfSync('sha256', options.secret, 'billflow', 'refresh-token successor', 32),
    );
    this.sessionMaxAgeMs = options.sessionMaxAgeSeconds * 1000;
  }

  private readonly sessionMaxAgeMs: number;

  static async setup(db: QueryExecutorProvider) {
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
    await sql`CREATE TABLE IF NOT EXISTS auth_sessions (
      id uuid PRIMARY KEY,
      user_id integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      ended_at timestamptz
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS auth_sessions_user ON auth_sessions (user_id)`.execute(db);
  }

  /** Starts a session (a sign-in): its id and its first refresh token. */
  async issue(userId: number): Promise<{ token: string; familyId: string }> {
    const familyId = randomUUID();
    await this.db
      .insertInto('auth_sessions')
      .values({
        id: familyId,
        user_id: userId,
        created_at: new Date(),
        expires_at: new Date(Date.now() + this.sessionMaxAgeMs),
        ended_at: null,
      })
      .execute();
    const token = randomBytes(32).toString('base64url');
    await this.insert(userId, familyId, token, this.db);
    return { token, familyId };
  }

  private successorOf(token: string) {
    return createHmac('sha256', this.successorKey).update(token).digest('base64url');
  }

  private async insert(userId: number, familyId: string, token: string, db: Db) {
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
      .onConflict((oc) => oc.column('token_hash').doNothing())
      .execute();
  }

  /**
   * Exchanges a token for its successor. The same token again within REUSE_WINDOW_MS gets the same
   * successor (unless that one was used in turn); later, or a revoked one, ends the session.
   */
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
      const session = await trx
        .selectFrom('auth_sessions')
        .select(['expires_at', 'ended_at'])
        .where('id', '=', row.family_id)
        .executeTakeFirst();
      if (!session || session.ended_at) return { ok: false, reason: 'revoked' } as const;
      const now = Date.now();
      if (session.expires_at.getTime() <= now || row.expires_at.getTime() <= now)
        return { ok: false, reason: 'expired' } as const;
      const successor = this.successorOf(token);
      if (row.used_at) {
        if (now - row.used_at.getTime() <= REUSE_WINDOW_MS) {
          const next = await trx
            .selectFrom('auth_refresh_tokens')
            .select(['used_at', 'revoked_at'])
            .where('token_hash', '=', sha256(successor))
            .executeTakeFirst();
          if (next && !next.used_at && !next.revoked_at)
            return { ok: true, userId: row.user_id, token: successor, familyId: row.family_id } as const;
        }
        await endSession(trx, row.family_id);
        return { ok: false, reason: 'reused', userId: row.user_id, familyId: row.family_id } as const;
      }
      await trx
        .updateTable('auth_refresh_tokens')
        .set({ used_at: new Date() })
        .where('id', '=', row.id)
        .execute();
      await this.insert(row.user_id, row.family_id, successor, trx);
      return { ok: true, userId: row.user_id, token: successor, familyId: row.family_id } as const;
    });
  }

  /**
   * Sign-out: ends the session the token belongs to. With `userId` given, only that user's token
   * counts. Returns the owner and the session, or null when the token is unknown or someone else's.
   */
  async revokeFamilyOf(
    token: string,
    userId: number | null,
  ): Promise<{ userId: number; sessionId: string } | null> {
    const row = await this.db
      .selectFrom('auth_refresh_tokens')
      .select(['family_id', 'user_id'])
      .where('token_hash', '=', sha256(token))
      .executeTakeFirst();
    if (!row || (userId !== null && row.user_id !== userId)) return null;
    await endSession(this.db, row.family_id);
    return { userId: row.user_id, sessionId: row.family_id };
  }

  /** Ends one session by its id (sign-out with the access token only). */
  async endSession(sessionId: string, userId: number): Promise<void> {
    const s = await this.db
      .selectFrom('auth_sessions')
      .select('user_id')
      .where('id', '=', sessionId)
      .executeTakeFirst();
    if (s?.user_id === userId) await endSession(this.db, sessionId);
  }

  /** Ends every session of a user but `except` (deactivation, deletion, a password change). */
  async revokeAllFor(userId: number, except?: string): Promise<string[]> {
    const ended = await this.db
      .updateTable('auth_sessions')
      .set({ ended_at: new Date() })
      .where('user_id', '=', userId)
      .where('ended_at', 'is', null)
      .$if(except !== undefined, (q) => q.where('id', '<>', except!))
      .returning('id')
      .execute();
    await this.db
      .updateTable('auth_refresh_tokens')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .$if(except !== undefined, (q) => q.where('family_id', '<>', except!))
      .execute();
    return ended.map((r) => r.id);
  }

  /** Whether the session an access token names is still on (not ended, not past its absolute end). */
  async isLive(sessionId: string, userId: number): Promise<boolean> {
    const s = await this.db
      .selectFrom('auth_sessions')
      .select(['user_id', 'expires_at', 'ended_at'])
      .where('id', '=', sessionId)
      .executeTakeFirst();
    return !!s && s.user_id === userId && !s.ended_at && s.expires_at.getTime() > Date.now();
  }

  /** Housekeeping (a repeatable worker job): drops tokens and sessions that ended over a day ago. */
  async purgeExpired(): Promise<number> {
    const dayAgo = new Date(Date.now() - 86_400_000);
    const r = await this.db
      .deleteFrom('auth_refresh_tokens')
      .where('expires_at', '<', dayAgo)
      .executeTakeFirst();
    await this.db
      .deleteFrom('auth_sessions')
      .where((eb) => eb.or([eb('expires_at', '<', dayAgo), eb('ended_at', '<', dayAgo)]))
      .execute();
    return Number(r.numDeletedRows);
  }
}

async function endSession(db: Db, sessionId: string) {
  await db
    .updateTable('auth_sessions')
    .set({ ended_at: new Date() })
    .where('id', '=', sessionId)
    .where('ended_at', 'is', null)
    .execute();
  await db
    .updateTable('auth_refresh_tokens')
    .set({ revoked_at: new Date() })
    .where('family_id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}
