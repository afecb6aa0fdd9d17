// The hourly purge of stored idempotent answers: the gateway writes them (services/gateway/
// idempotency.ts), the maintenance worker deletes the old ones, so the purge sits below both.
import type pg from 'pg';

/** How long a first answer is kept: a retry after that is a new request. */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

/** Deletes answers older than the retention (the maintenance queue runs it hourly). */
export async function purgeIdempotencyKeys(pool: pg.Pool): Promise<number> {
  const r = await pool.query(
    'DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)',
    [IDEMPOTENCY_RETENTION_HOURS],
  );
  return r.rowCount ?? 0;
}
