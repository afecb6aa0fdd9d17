// One active runner per consumer (projection or process manager) across processes: a Postgres
// advisory lock held on a connection of its own, plus a heartbeat lease.
//
// Why both: the lock goes when its connection goes, but a host that died leaves its connection open
// until TCP gives up (hours by default), and a frozen host (SIGSTOP, a VM paused) still acks TCP
// keepalives. So the lock connection uses short keepalives (client and server side), and the active
// runner touches its lease row twice a second through that same connection; a standby that finds
// the lease older than `staleMs` (2.5 s) terminates the holder's backend, which frees the lock at
// once. Take-over then lands within 5 s of a host dying or freezing (projections/takeover.int.test.ts).
//
// A holder that wakes up after being replaced cannot double anything: every batch moves its
// checkpoint by compare-and-set, so its next batch fails (the new holder moved the row) and it stands
// by again; it also notices its lock connection is gone and stops on its own.

import { createHash } from 'node:crypto';
import { type Kysely, type QueryExecutorProvider, sql } from 'kysely';
import pg from 'pg';
import { STORAGE_SETUP_LOCK } from '../shared/advisory-locks.js';
import type { Logger } from '../shared/log.js';
import { ensureCheckpoints } from './checkpoints.js';
import { ensureParkedTable } from './parked.js';

export interface LeaseOptions {
  /** How often a standby tries to take the lock (ms). */
  standbyRetryMs: number;
  /** How often the active runner touches its lease (ms). */
  heartbeatMs: number;
  /** A lease not touched for this long is stale: a standby terminates its holder (ms). */
  staleMs: number;
}

export const DEFAULT_LEASE: LeaseOptions = { standbyRetryMs: 500, heartbeatMs: 500, staleMs: 2500 };

/** Waits `ms`, or less when the signal aborts (a stopping runner never waits out a backoff). */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** A stable 64-bit key per consumer name for pg_advisory_lock. */
export function lockKey(name: string): string {
  return BigInt.asIntN(
    64,
    BigInt(`0x${createHash('sha256').update(`projection:${name}`).digest('hex').slice(0, 16)}`),
  ).toString();
}

export async function ensureLeaseTable(db: QueryExecutorProvider) {
  await sql`CREATE TABLE IF NOT EXISTS consumer_leases (
    name text PRIMARY KEY,
    holder_pid int NOT NULL,
    heartbeat_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
}

/**
 * The tables every consumer runner needs. CREATE … IF NOT EXISTS races a concurrent twin (another
 * process starting at the same moment), so creation is serialised with the same advisory key as the
 * rest of the start-up storage (services/main.ts).
 */
export async function ensureConsumerTables(db: Kysely<any>) {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${STORAGE_SETUP_LOCK})`.execute(trx);
    await ensureCheckpoints(trx);
    await ensureParkedTable(trx);
    await ensureLeaseTable(trx);
  });
}

export interface SuperviseOptions {
  /** The consumer's name: projection name, or `pm:<name>`. */
  name: string;
  pool: pg.Pool;
  log: Logger;
  /** Ends the supervision (stop()). */
  signal: AbortSignal;
  lease: LeaseOptions;
  /** Pause before starting over after a failure (ms). */
  restartDelayMs: number;
  /** Log field naming the consumer ('projection' or 'processManager'). */
  kind: string;
  onActive(active: boolean): void;
  /** Runs while the lock is held; `signal` aborts on stop() and when the lock is lost. */
  run(signal: AbortSignal, lockLost: () => boolean): Promise<void>;
}

/** Standby until the lock is ours, then run; start over after any failure, until the signal. */
export async function superviseConsumer(o: SuperviseOptions): Promise<void> {
  const key = lockKey(o.name);
  while (!o.signal.aborted) {
    const client = new pg.Client({
      ...(o.pool.options as pg.ClientConfig),
      // The client side notices a vanished server; the server side (below) a vanished us.
      keepAlive: true,
      keepAliveInitialDelayMillis: 1000,
      query_timeout: Math.max(5000, o.lease.staleMs * 2),
    });
    const lost = new AbortController();
    const stopAll = () => lost.abort();
    o.signal.addEventListener('abort', stopAll, { once: true });
    client.on('error', () => lost.abort());
    let heartbeat: NodeJS.Timeout | undefined;
    let active = false;
    try {
      await client.connect();
      // Ignored on a Unix socket (same host: nothing to detect), honoured over TCP.
      await client.query(`SET tcp_keepalives_idle = 2; SET tcp_keepalives_interval = 1;
        SET tcp_keepalives_count = 3; SET tcp_user_timeout = 5000`);
      // Standby on this one connection (no new connection per try) until the lock is ours.
      for (;;) {
        if (lost.signal.aborted) {
          if (o.signal.aborted) return;
          throw new Error('lock connection lost while standing by');
        }
        const got = await client.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
        if (got.rows[0].ok) break;
        if (await takeOverIfStale(client, o, key)) continue;
        await sleep(o.lease.standbyRetryMs, lost.signal);
      }
      await client.query(
        `INSERT INTO consumer_leases (name, holder_pid, heartbeat_at) VALUES ($1, pg_backend_pid(), now())
         ON CONFLICT (name) DO UPDATE SET holder_pid = excluded.holder_pid, heartbeat_at = now()`,
        [o.name],
      );
      let beating = false;
      heartbeat = setInterval(() => {
        if (beating) return; // the previous one still waits: the query timeout will end it
        beating = true;
        client
          .query(
            'UPDATE consumer_leases SET heartbeat_at = now() WHERE name = $1 AND holder_pid = pg_backend_pid()',
            [o.name],
          )
          .then(
            (r) => {
              // Someone took the lease over: our lock connection is being terminated.
              if (r.rowCount !== 1) lost.abort();
            },
            () => lost.abort(),
          )
          .finally(() => {
            beating = false;
          });
      }, o.lease.heartbeatMs);
      active = true;
      o.onActive(true);
      await o.run(lost.signal, () => lost.signal.aborted && !o.signal.aborted);
      if (!o.signal.aborted) throw new Error('lock connection lost');
    } catch (err) {
      if (!o.signal.aborted) {
        o.log.error(
          { [o.kind]: o.name, err: String(err) },
          `${o.kind} failed; restarting from its checkpoint`,
        );
        await sleep(o.restartDelayMs, o.signal);
      }
    } finally {
      clearInterval(heartbeat);
      if (active) o.onActive(false);
      o.signal.removeEventListener('abort', stopAll);
      // Ending the lock connection releases the lock at once, so a standby can take over.
      await client.end().catch(() => {});
    }
  }
}

/**
 * As a standby: if the holder's lease is stale and that backend really holds our lock, terminate
 * it. Returns true when it did (the caller tries the lock again at once).
 */
async function takeOverIfStale(client: pg.Client, o: SuperviseOptions, key: string): Promise<boolean> {
  const stale = await client.query<{ pid: number; age_ms: number }>(
    `SELECT l.holder_pid AS pid, (extract(epoch FROM now() - l.heartbeat_at) * 1000)::int AS age_ms
       FROM consumer_leases l
      WHERE l.name = $1 AND l.heartbeat_at < now() - make_interval(secs => $2::float8 / 1000)
        AND EXISTS (SELECT 1 FROM pg_locks k
                     WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.holder_pid
                       AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                       AND k.objsubid = 1 AND ((k.classid::int8 << 32) | k.objid::int8) = $3::int8)`,
    [o.name, o.lease.staleMs, key],
  );
  const row = stale.rows[0];
  if (!row) return false;
  o.log.warn(
    { [o.kind]: o.name, holderPid: row.pid, heartbeatAgeMs: row.age_ms },
    'active runner stopped renewing its lease; taking over',
  );
  await client.query('SELECT pg_terminate_backend($1)', [row.pid]);
  // The lock goes when the backend has exited: a moment later.
  for (let i = 0; i < 40 && !o.signal.aborted; i++) {
    const gone = await client.query(
      'SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1) AS gone',
      [row.pid],
    );
    if (gone.rows[0].gone) break;
    await sleep(50, o.signal);
  }
  return true;
}
