// The OAuth `state`: a random token bound to one company and the user who started the flow, valid
// for 15 minutes and taken once. Only its hash is stored. The callback takes it atomically, so a
// repeated callback (popup and page both loading it) cannot exchange the authorization code twice,
// which would spoil the grant (reference/quickbooks.md §4, oauth-jsclient#173).
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';

const TTL_MS = 15 * 60_000;
const hash = (state: string) => createHash('sha256').update(state).digest('hex');

export interface OAuthState {
  companyId: number;
  userId: number;
  redirectUri: string;
  /** Set once the exchange finished: what a repeated callback answers. */
  outcome: 'success' | 'error' | null;
  /** This call took the state (false: an earlier callback did). */
  taken: boolean;
}

export class OAuthStates {
  constructor(private readonly pool: pg.Pool) {}

  static async setup(pool: pg.Pool | pg.PoolClient) {
    await pool.query(`CREATE TABLE IF NOT EXISTS qb_oauth_states (
      state_hash text PRIMARY KEY,
      company_id integer NOT NULL,
      user_id integer NOT NULL,
      redirect_uri text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      outcome text
    )`);
  }

  async issue(companyId: number, userId: number, redirectUri: string): Promise<string> {
    const state = randomBytes(32).toString('base64url');
    await this.pool.query(
      `INSERT INTO qb_oauth_states (state_hash, company_id, user_id, redirect_uri, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [hash(state), companyId, userId, redirectUri, TTL_MS / 1000],
    );
    // Old states go as new ones come (a handful a day).
    await this.pool.query(`DELETE FROM qb_oauth_states WHERE expires_at < now() - interval '1 day'`);
    return state;
  }

  /** Takes the state if unused and unexpired; a used one comes back with `taken: false`. Unknown: null. */
  async take(state: string): Promise<OAuthState | null> {
    const h = hash(state);
    const taken = await this.pool.query(
      `UPDATE qb_oauth_states SET used_at = now() WHERE state_hash = $1 AND used_at IS NULL AND expires_at > now()
       RETURNING company_id, user_id, redirect_uri, outcome`,
      [h],
    );
    const row = taken.rows[0];
    if (row)
      return {
        companyId: row.company_id,
        userId: row.user_id,
        redirectUri: row.redirect_uri,
        outcome: null,
        taken: true,
      };
    const used = await this.pool.query(
      'SELECT company_id, user_id, redirect_uri, outcome FROM qb_oauth_states WHERE state_hash = $1 AND used_at IS NOT NULL',
      [h],
    );
    const u = used.rows[0];
    return u
      ? {
          companyId: u.company_id,
          userId: u.user_id,
          redirectUri: u.redirect_uri,
          outcome: u.outcome,
          taken: false,
        }
      : null;
  }

  async finish(state: string, outcome: 'success' | 'error') {
    await this.pool.query('UPDATE qb_oauth_states SET outcome = $2 WHERE state_hash = $1', [
      hash(state),
      outcome,
    ]);
  }
}
