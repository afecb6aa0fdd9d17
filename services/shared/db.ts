// The read-model database's pool and kysely handle. pg returns int8 as string: keep ids in int4. The
// database type is composed above the modules (projections/database.ts): this file names none of them.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

export function createDb<DB>(pool: pg.Pool): Kysely<DB> {
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * How long an idle connection stays open. pg's default (10 s) closed connections between bursts,
 * and the next burst opened them again, each a new Postgres backend that had to fork and fill its
 * catalog caches while the host was busy: measured at 100 commands/s, that churn stalled every
 * command for 300 – 400 ms every 10 – 20 s, and it was the whole p99. Five minutes keeps a working
 * pool warm (at most `max` connections) and still lets an idle process shrink.
 */
export const POOL_IDLE_TIMEOUT_MS = 300_000;

/** How long a query waits for a connection (a new one, or a free one from a busy pool). */
export const POOL_CONNECT_TIMEOUT_MS = 5000;

/**
 * Our only prepared (named) statements are the event store's. Postgres plans a prepared statement
 * afresh for each of its first five runs and keeps doing so when the generic plan's estimate looks
 * worse, which it does for the log read (the horizon view): measured, that read cost 870 µs a call
 * replanned and 370 µs on its generic plan, and a projector runs it once per batch. kysely's
 * statements are unnamed and not affected.
 */
export const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan';

/**
 * A pool that survives a dropped connection. pg emits 'error' on a client whose connection dies
 * while checked out, and an 'error' event without a listener ends the process; the failing query
 * already rejects, so the event itself only needs to be logged.
 */
export function createPool(
  options: pg.PoolConfig,
  onError: (err: Error) => void = (err) => console.error(`postgres connection lost: ${err.message}`),
): pg.Pool {
  // Without a connection timeout a request queues forever while Postgres is unreachable (or the
  // pool is exhausted); with it the request fails and answers 503 (services/shared/errors.ts).
  const pool = new pg.Pool({
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    options: GENERIC_PLANS,
    ...options,
  });
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/**
 * How many other client connections this database has: the offline tools (`npm run migrate`,
 * `npm run rotate-key`) refuse to run while Billflow (or anyone) is connected. Their own pool is
 * made with one connection, which this one is.
 */
export async function otherConnections(client: pg.Pool | pg.PoolClient): Promise<number> {
  const r = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
  );
  return r.rows[0].n;
}
