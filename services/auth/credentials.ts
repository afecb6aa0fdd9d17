// Password hashes live here, never in the event log: an event only names the credential it set
// (`credentialId`), so the log says that, when and by whom a password changed, and nothing an
// attacker with a copy of the log could crack.
//
// A credential is stored before the event that names it. A crash between the two leaves a row no
// event names, which nothing reads (the users read model names the current one) and the
// maintenance queue purges; the reverse order could leave an event naming a hash that is not there.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { hashPassword, verifyPassword } from './passwords.js';

export class Credentials {
  constructor(private readonly pool: pg.Pool) {}

  static async setup(pool: pg.Pool | pg.PoolClient) {
    await pool.query(`CREATE TABLE IF NOT EXISTS user_credentials (
      id text PRIMARY KEY,
      user_id integer NOT NULL,
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await pool.query('CREATE INDEX IF NOT EXISTS user_credentials_user ON user_credentials (user_id)');
  }

  /** Hashes and stores a new password for the user; answers the id the event will name. */
  async create(userId: number, password: string): Promise<string> {
    return this.store(userId, await hashPassword(password));
  }

  /** Stores a ready hash (a migration moving hashes out of old events keeps them as they were). */
  async store(userId: number, passwordHash: string, id: string = randomUUID()): Promise<string> {
    await this.pool.query(
      'INSERT INTO user_credentials (id, user_id, password_hash) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
      [id, userId, passwordHash],
    );
    return id;
  }

  /** True when the password matches the named credential (false when there is none). */
  async verify(credentialId: string | null | undefined, password: string): Promise<boolean> {
    const hash = credentialId ? await this.hashOf(credentialId) : null;
    if (!hash) return false;
    return verifyPassword(hash, password);
  }

  private async hashOf(credentialId: string): Promise<string | null> {
    const r = await this.pool.query<{ password_hash: string }>(
      'SELECT password_hash FROM user_credentials WHERE id = $1',
      [credentialId],
    );
    return r.rows[0]?.password_hash ?? null;
  }

  /** Deletes every credential of a forgotten user. */
  async deleteAllOf(userId: number): Promise<void> {
    await this.pool.query('DELETE FROM user_credentials WHERE user_id = $1', [userId]);
  }

  /**
   * Deletes credentials that are not the current one of their user and are older than `olderThanMs`
   * (replaced passwords, and rows a crash left before their event). Current ones are those the users
   * read model names; a credential too new for the read model to show is kept by the age bound.
   */
  async purgeUnused(olderThanMs: number, currentTable = 'users'): Promise<number> {
    const r = await this.pool.query(
      `DELETE FROM user_credentials c
        WHERE c.created_at < now() - make_interval(secs => $1::double precision / 1000)
          AND NOT EXISTS (SELECT 1 FROM ${currentTable} u WHERE u.credential_id = c.id)`,
      [olderThanMs],
    );
    return r.rowCount ?? 0;
  }
}
