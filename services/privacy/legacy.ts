// Logs written before personal data was sealed hold password hashes and plain personal fields, and
// logs from before the hash chain have events without a hash.
// They are copied into a new log by `npm run migrate` (tools/migrate.ts); the product refuses to
// run on one, rather than read hashes it no longer knows where to find.
import type pg from 'pg';

/** Events of the old shape: a password hash inside (schema version 1 of these two types). */
export const LEGACY_TYPES = ['UserRegistered', 'UserPasswordChanged'] as const;

/** True when the log holds events of the old shape, or events from before the hash chain. */
export async function legacyEventsPresent(pool: pg.Pool | pg.PoolClient): Promise<boolean> {
  const r = await pool.query(
    `SELECT EXISTS (SELECT 1 FROM es_events WHERE event_type = ANY($1::text[]) AND schema_version = 1)
         OR EXISTS (SELECT 1 FROM es_events WHERE hash IS NULL) AS found`,
    [LEGACY_TYPES],
  );
  return r.rows[0].found as boolean;
}

export class LegacyLogError extends Error {
  constructor() {
    super(
      'This event log predates sealed personal data (it holds password hashes). Run `npm run migrate` to copy it into the new form first.',
    );
    this.name = 'LegacyLogError';
  }
}

export async function assertNoLegacyEvents(pool: pg.Pool): Promise<void> {
  if (await legacyEventsPresent(pool)) throw new LegacyLogError();
}
