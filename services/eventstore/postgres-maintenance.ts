// What the operations side asks of the log: which transaction holds readers back now.
import type pg from 'pg';
import { APPEND_LOCK_CLASS } from '../shared/advisory-locks.js';

/** Characters of the holder's query text kept: enough to recognise it, not a whole statement's data. */
const LOG_HOLDER_QUERY_CHARS = 120;

/** A transaction that holds the log back (see PostgresEventStore.logHolder). */
export interface LogHolder {
  pid: number;
  /** Since its transaction began. */
  ageSeconds: number;
  /** Its current or last statement, truncated. */
  query: string;
  /** pg_stat_activity's state, e.g. 'active' or 'idle in transaction'. */
  state: string;
}

/**
 * The oldest transaction that holds back readers now: it holds an append lock and has written
 * (has a transaction id), so nothing it may commit can be passed. Null when none. For the metrics,
 * the detailed health and the operations page: a long age means a stuck appender.
 */
export async function logHolder(pool: pg.Pool): Promise<LogHolder | null> {
  const r = await pool.query(
    `SELECT a.pid, extract(epoch FROM clock_timestamp() - a.xact_start)::float8 AS age,
            left(a.query, ${LOG_HOLDER_QUERY_CHARS}) AS query, a.state
     FROM pg_stat_activity a
     WHERE a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid() AND a.datname = current_database()
       AND a.pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = ${APPEND_LOCK_CLASS}
                       AND objsubid = 2 AND granted)
     ORDER BY age(a.backend_xid) DESC LIMIT 1`,
  );
  if (!r.rowCount) return null;
  const row = r.rows[0] as { pid: number; age: number; query: string | null; state: string | null };
  return { pid: row.pid, ageSeconds: row.age, query: row.query ?? '', state: row.state ?? 'unknown' };
}
