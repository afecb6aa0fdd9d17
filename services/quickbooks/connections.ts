// A company's QuickBooks secrets: the app's client secret and the OAuth tokens. Kept out of the log
// (they change every hour and must never be replayed) in one table, each value sealed with the
// company's data key (AES-256-GCM, the column's name and the company in the AAD), so forgetting the
// company shreds them and a row copied to another company does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { companySubject } from '../../schema/companies/events.js';
import type { SubjectKeys } from '../privacy/subject-keys.js';

export interface QbTokens {
  realmId: string;
  accessToken: string;
  refreshToken: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date | null;
  /** The refresh token's hard cap (Intuit's `x_refresh_token_hard_expires_in`): re-consent by then. */
  refreshHardExpiresAt?: Date | null;
  /** When this pair was issued (intuit-oauth's createdAt). */
  issuedAt: Date;
}

export interface QbConnection {
  companyId: number;
  clientId: string | null;
  clientSecret: string | null;
  isSandbox: boolean;
  tokens: QbTokens | null;
  /**
   * Credentials of an OAuth flow started but not yet completed: kept apart, they replace the working
   * ones only when a callback succeeds (an abandoned start with a wrong secret changes nothing).
   */
  pending: { clientId: string; clientSecret: string; isSandbox: boolean } | null;
}

type Sealable = 'client_secret' | 'access_token' | 'refresh_token' | 'pending_client_secret';

export class QbConnections {
  constructor(
    private readonly pool: pg.Pool,
    private readonly keys: SubjectKeys,
  ) {}

  static async setup(pool: pg.Pool | pg.PoolClient) {
    await pool.query(`CREATE TABLE IF NOT EXISTS qb_connections (
      company_id integer PRIMARY KEY,
      client_id text,
      client_secret bytea,
      is_sandbox boolean NOT NULL DEFAULT true,
      realm_id text,
      access_token bytea,
      refresh_token bytea,
      access_expires_at timestamptz,
      refresh_expires_at timestamptz,
      issued_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await pool.query(`ALTER TABLE qb_connections
      ADD COLUMN IF NOT EXISTS refresh_hard_expires_at timestamptz,
      ADD COLUMN IF NOT EXISTS pending_client_id text,
      ADD COLUMN IF NOT EXISTS pending_client_secret bytea,
      ADD COLUMN IF NOT EXISTS pending_is_sandbox boolean`);
  }

  private async seal(companyId: number, column: Sealable, value: string): Promise<Buffer> {
    const key = await this.keys.getOrCreate(companySubject(companyId));
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    c.setAAD(Buffer.from(`qb:${companyId}:${column}`));
    const ct = Buffer.concat([c.update(value, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), ct]);
  }

  /** Null when the company was forgotten (its key is gone). */
  private async open(companyId: number, column: Sealable, sealed: Buffer | null): Promise<string | null> {
    if (!sealed) return null;
    const key = await this.keys.get(companySubject(companyId));
    if (!key) return null;
    const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
    d.setAAD(Buffer.from(`qb:${companyId}:${column}`));
    d.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([d.update(sealed.subarray(28)), d.final()]).toString('utf8');
  }

  async get(companyId: number, client: pg.Pool | pg.PoolClient = this.pool): Promise<QbConnection | null> {
    const r = await client.query('SELECT * FROM qb_connections WHERE company_id = $1', [companyId]);
    const row = r.rows[0];
    if (!row) return null;
    const [clientSecret, accessToken, refreshToken, pendingSecret] = await Promise.all([
      this.open(companyId, 'client_secret', row.client_secret),
      this.open(companyId, 'access_token', row.access_token),
      this.open(companyId, 'refresh_token', row.refresh_token),
      this.open(companyId, 'pending_client_secret', row.pending_client_secret),
    ]);
    return {
      companyId,
      clientId: row.client_id,
      clientSecret,
      isSandbox: row.is_sandbox,
      tokens:
        row.realm_id && accessToken && refreshToken
          ? {
              realmId: row.realm_id,
              accessToken,
              refreshToken,
              accessExpiresAt: row.access_expires_at,
              refreshExpiresAt: row.refresh_expires_at,
              refreshHardExpiresAt: row.refresh_hard_expires_at ?? null,
              issuedAt: row.issued_at,
            }
          : null,
      pending:
        row.pending_client_id && pendingSecret
          ? {
              clientId: row.pending_client_id,
              clientSecret: pendingSecret,
              isSandbox: row.pending_is_sandbox,
            }
          : null,
    };
  }

  /** The credentials of an OAuth flow being started: beside the working ones, which stay. */
  async savePending(companyId: number, clientId: string, clientSecret: string, isSandbox: boolean) {
    const secret = await this.seal(companyId, 'pending_client_secret', clientSecret);
    await this.pool.query(
      `INSERT INTO qb_connections (company_id, pending_client_id, pending_client_secret, pending_is_sandbox)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (company_id) DO UPDATE SET pending_client_id = EXCLUDED.pending_client_id,
         pending_client_secret = EXCLUDED.pending_client_secret, pending_is_sandbox = EXCLUDED.pending_is_sandbox,
         updated_at = now()`,
      [companyId, clientId, secret, isSandbox],
    );
  }

  /**
   * A callback succeeded: its credentials become the working ones and its grant's tokens are stored,
   * in one statement (the old app's tokens go with the old credentials).
   */
  async connect(
    companyId: number,
    creds: { clientId: string; clientSecret: string; isSandbox: boolean },
    tokens: QbTokens,
  ) {
    const [secret, access, refresh] = await Promise.all([
      this.seal(companyId, 'client_secret', creds.clientSecret),
      this.seal(companyId, 'access_token', tokens.accessToken),
      this.seal(companyId, 'refresh_token', tokens.refreshToken),
    ]);
    await this.pool.query(
      `INSERT INTO qb_connections (company_id, client_id, client_secret, is_sandbox, realm_id, access_token,
         refresh_token, access_expires_at, refresh_expires_at, refresh_hard_expires_at, issued_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (company_id) DO UPDATE SET client_id = EXCLUDED.client_id,
         client_secret = EXCLUDED.client_secret, is_sandbox = EXCLUDED.is_sandbox, realm_id = EXCLUDED.realm_id,
         access_token = EXCLUDED.access_token, refresh_token = EXCLUDED.refresh_token,
         access_expires_at = EXCLUDED.access_expires_at, refresh_expires_at = EXCLUDED.refresh_expires_at,
         refresh_hard_expires_at = EXCLUDED.refresh_hard_expires_at, issued_at = EXCLUDED.issued_at,
         pending_client_id = NULL, pending_client_secret = NULL, pending_is_sandbox = NULL, updated_at = now()`,
      [
        companyId,
        creds.clientId,
        secret,
        creds.isSandbox,
        tokens.realmId,
        access,
        refresh,
        tokens.accessExpiresAt,
        tokens.refreshExpiresAt,
        tokens.refreshHardExpiresAt ?? null,
        tokens.issuedAt,
      ],
    );
  }

  /** New credentials drop the tokens of the old app: they belong to its grant. */
  async saveCredentials(companyId: number, clientId: string, clientSecret: string, isSandbox: boolean) {
    const secret = await this.seal(companyId, 'client_secret', clientSecret);
    await this.pool.query(
      `INSERT INTO qb_connections (company_id, client_id, client_secret, is_sandbox)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (company_id) DO UPDATE SET
         client_id = EXCLUDED.client_id, client_secret = EXCLUDED.client_secret, is_sandbox = EXCLUDED.is_sandbox,
         realm_id = CASE WHEN qb_connections.client_id = EXCLUDED.client_id THEN qb_connections.realm_id END,
         access_token = CASE WHEN qb_connections.client_id = EXCLUDED.client_id THEN qb_connections.access_token END,
         refresh_token = CASE WHEN qb_connections.client_id = EXCLUDED.client_id THEN qb_connections.refresh_token END,
         updated_at = now()`,
      [companyId, clientId, secret, isSandbox],
    );
  }

  async saveTokens(companyId: number, tokens: QbTokens, client: pg.Pool | pg.PoolClient = this.pool) {
    const [access, refresh] = await Promise.all([
      this.seal(companyId, 'access_token', tokens.accessToken),
      this.seal(companyId, 'refresh_token', tokens.refreshToken),
    ]);
    const r = await client.query(
      `UPDATE qb_connections SET realm_id = $2, access_token = $3, refresh_token = $4, access_expires_at = $5,
         refresh_expires_at = $6, issued_at = $7,
         refresh_hard_expires_at = COALESCE($8, refresh_hard_expires_at), updated_at = now()
       WHERE company_id = $1`,
      [
        companyId,
        tokens.realmId,
        access,
        refresh,
        tokens.accessExpiresAt,
        tokens.refreshExpiresAt,
        tokens.issuedAt,
        tokens.refreshHardExpiresAt ?? null,
      ],
    );
    if (r.rowCount === 0) throw new Error('No QuickBooks credentials for this company');
  }

  /** The grant is gone (revoked or expired): keep the app's credentials, drop the tokens. */
  async dropTokens(companyId: number, client: pg.Pool | pg.PoolClient = this.pool) {
    await client.query(
      `UPDATE qb_connections SET access_token = NULL, refresh_token = NULL, access_expires_at = NULL,
         refresh_expires_at = NULL, refresh_hard_expires_at = NULL, updated_at = now() WHERE company_id = $1`,
      [companyId],
    );
  }

  async remove(companyId: number) {
    await this.pool.query('DELETE FROM qb_connections WHERE company_id = $1', [companyId]);
  }
}
