// The event store's tables and views (es_events, es_epochs, es_anchors, es_horizon), and how a store
// follows a logical restore into a new epoch. Run once per start under the setup lock (postgres.ts).
import type pg from 'pg';
import { APPEND_LOCK_CLASS } from '../shared/advisory-locks.js';

/** The channel every append notifies at commit (APPEND_MANY) and subscribers listen on. */
export const CHANNEL = 'es_events';

/**
 * The visibility horizon: es_horizon gives (epoch, xid); a reader takes the rows before it, i.e.
 * rows of older epochs (all committed: see followRestore) and rows of the current epoch whose
 * transaction_id < xid. Only appends can hold it back, not any other open transaction.
 *
 * Used inside the reading statement, so both use that statement's snapshot S; the lock table is read
 * during the statement, at a moment T after S. xid = the lowest id in S's running list that, at T,
 * holds an append lock or shows no lock on its own id; or S's xmax if there is none.
 * Why nothing below it can still appear: a row S does not show was written by a transaction running
 * at S (in S's list; ids >= xmax are above the horizon anyway). Every append takes its stream's lock
 * before its first write, so before it has an id, and holds it to commit. So such a transaction,
 * still running at T, holds an append lock then and counts; if it finished between S and T (or is
 * between taking its id and recording its own lock) it shows no lock and counts too, which at worst
 * holds readers back until the next read. Only a transaction seen running at T without an append
 * lock, and still in progress after T, is passed: it has not appended and, by the rule above, never
 * will under that id. The "still in progress" matters: a commit ends the transaction for new snapshots
 * first and releases its locks after, one lock partition at a time, so the lock table at T can show
 * a committing append with its own id's lock and without its append lock. Its rows are committed yet
 * not in S; passing it skipped them for good (the 8-writers contract test lost a whole group append
 * about one run in five). pg_xact_status reads the commit log after T: such a transaction shows
 * committed there, and counts.
 * Reading the locks before taking S instead would pass an append that commits in between, forever.
 * Everything comes from one statement, so this holds in any isolation level. pg_locks shows 32-bit
 * ids: S's list holds ids within 2^31 of each other, so their low 32 bits match them one to one.
 * Rows written without the append lock (by hand) are outside this promise.
 * Only this database's append locks count: pg_locks and the snapshot span the whole cluster, and an
 * append to another database's store (another deployment, or another test file running beside this
 * one) can never write here. Counting them held every store on the cluster behind the slowest append
 * anywhere (the 8-writers contract test stalled for 20 s while another file's app was appending).
 */
const HORIZON_SQL = `
CREATE OR REPLACE VIEW es_horizon AS
WITH locks AS MATERIALIZED (
  SELECT virtualtransaction, locktype, database, classid, objsubid, transactionid, mode FROM pg_locks WHERE granted),
own_ids AS (
  SELECT t.transactionid::text::bigint AS xid32,
         EXISTS (SELECT 1 FROM locks a
                 WHERE a.virtualtransaction = t.virtualtransaction AND a.locktype = 'advisory'
                   AND a.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND a.classid = ${APPEND_LOCK_CLASS} AND a.objsubid = 2) AS appends
  FROM locks t WHERE t.locktype = 'transactionid' AND t.mode = 'ExclusiveLock')
SELECT (SELECT max(epoch) FROM es_epochs) AS epoch,
       coalesce((SELECT min(running.xid)
                 FROM pg_snapshot_xip(pg_current_snapshot()) AS running(xid)
                 LEFT JOIN own_ids ON own_ids.xid32 = running.xid::text::bigint % 4294967296
                 WHERE own_ids.appends IS NOT FALSE
                    OR pg_xact_status(running.xid) IS DISTINCT FROM 'in progress'),
                pg_snapshot_xmax(pg_current_snapshot())) AS xid;
`;

export const SCHEMA_SQL = `
-- Stream versions live in es_events alone (its primary key): es_streams, a row per stream rewritten
-- by every append, is gone (see APPEND_MANY). Dropped where an older store still has it.
DROP TABLE IF EXISTS es_streams;
CREATE SEQUENCE IF NOT EXISTS es_global_position;
CREATE TABLE IF NOT EXISTS es_events(
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  global_position bigint NOT NULL DEFAULT nextval('es_global_position'),
  stream_id text NOT NULL,
  stream_version bigint NOT NULL,
  event_id uuid NOT NULL UNIQUE,
  event_type text NOT NULL,
  schema_version int NOT NULL DEFAULT 1,
  data json NOT NULL,
  metadata json NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream_id, stream_version));
-- The log's order is (epoch, transaction_id, global_position). A logical restore (pg_dump) lands in a
-- cluster whose transaction counter may be lower than the restored ids: init() then starts a new
-- epoch, so whatever is appended next still sorts after everything restored. The current epoch is
-- the newest row of es_epochs and the column default (a constant: no lookup per insert).
-- (Checked first: ALTER TABLE would lock out every reader and appender on each start.)
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute
                 WHERE attrelid = 'es_events'::regclass AND attname = 'epoch' AND NOT attisdropped) THEN
    ALTER TABLE es_events ADD COLUMN epoch int NOT NULL DEFAULT 0;
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS es_epochs(
  epoch int PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  -- the cluster's next transaction id when the epoch began, and the highest stored one then
  next_xid xid8 NOT NULL,
  restored_max_xid xid8);
INSERT INTO es_epochs(epoch, next_xid) VALUES (0, '0') ON CONFLICT DO NOTHING;
-- Tamper evidence (chain.ts): the writer sends each event's digest; the insert chains it to the
-- stream's previous event, read under the stream's append lock. The append statement chains each
-- stream's first new event itself (APPEND_MANY); this trigger chains whatever comes without a hash:
-- the later events of a multi-event append (a row-level trigger sees the rows its own statement
-- inserted before), a first event whose previous one the statement's snapshot did not see yet, and
-- rows written by other tools. WHEN keeps PL/pgSQL out of the common insert altogether.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute
                 WHERE attrelid = 'es_events'::regclass AND attname = 'hash' AND NOT attisdropped) THEN
    ALTER TABLE es_events ADD COLUMN digest bytea, ADD COLUMN hash bytea;
  END IF;
END $$;
CREATE OR REPLACE FUNCTION es_chain() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE previous bytea;
BEGIN
  -- A row that comes with its hash (pg_restore copies rows in no particular version order) keeps
  -- it: verify-log checks every hash, so a wrong one is found, not trusted.
  IF NEW.hash IS NOT NULL THEN RETURN NEW; END IF;
  IF NEW.digest IS NULL OR length(NEW.digest) <> 32 THEN
    RAISE EXCEPTION 'es_events: event % has no digest (services/eventstore/chain.ts)', NEW.event_id;
  END IF;
  IF NEW.stream_version > 1 THEN
    SELECT hash INTO previous FROM es_events
     WHERE stream_id = NEW.stream_id AND stream_version = NEW.stream_version - 1;
    IF previous IS NULL THEN
      RAISE EXCEPTION 'es_events: % has no chained event at version % (run npm run migrate)',
        NEW.stream_id, NEW.stream_version - 1;
    END IF;
  END IF;
  NEW.hash := sha256(COALESCE(previous, ''::bytea) || int8send(NEW.stream_version) || NEW.digest);
  RETURN NEW;
END $fn$;
CREATE OR REPLACE TRIGGER es_events_chain BEFORE INSERT ON es_events FOR EACH ROW WHEN (NEW.hash IS NULL) EXECUTE FUNCTION es_chain();
-- Anchors over the global log (anchors.ts), written by a periodic job.
CREATE TABLE IF NOT EXISTS es_anchors(
  seq bigint PRIMARY KEY,
  first_position text NOT NULL,
  last_position text NOT NULL,
  event_count int NOT NULL,
  digest bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS es_events_log_order ON es_events(epoch, transaction_id, global_position);
DROP INDEX IF EXISTS es_events_global_order;
${HORIZON_SQL}
`;

/**
 * A logical restore (pg_dump) carries the events but not the cluster's transaction counter, which
 * can be lower in the new cluster: new appends would get lower ids than restored events and sort
 * before them. In a live cluster every stored id is below the next id, so stored ids at or above it
 * mean a restore: start a new epoch, which sorts after all of the old one. Appends take the epoch
 * from the column default (set here), readers from es_epochs. Also puts the default back in line
 * with es_epochs should the two ever differ (a partial restore).
 */
export async function followRestore(client: pg.PoolClient): Promise<void> {
  const r = await client.query(`
    SELECT cur.epoch,
           (SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
              JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
             WHERE d.adrelid = 'es_events'::regclass AND a.attname = 'epoch') AS column_default,
           newest.transaction_id::text AS newest_xid,
           newest.transaction_id >= pg_snapshot_xmax(pg_current_snapshot()) AS restored,
           pg_snapshot_xmax(pg_current_snapshot())::text AS next_xid
    FROM (SELECT greatest((SELECT max(epoch) FROM es_epochs),
                          (SELECT max(epoch) FROM es_events))::int AS epoch) cur
    LEFT JOIN LATERAL (
      SELECT transaction_id FROM es_events WHERE es_events.epoch = cur.epoch
      ORDER BY es_events.epoch DESC, es_events.transaction_id DESC LIMIT 1) newest ON true`);
  const row = r.rows[0] as {
    epoch: number;
    column_default: string | null;
    newest_xid: string | null;
    restored: boolean | null;
    next_xid: string;
  };
  const epoch = row.restored ? row.epoch + 1 : row.epoch;
  if (!row.restored && row.column_default === String(epoch)) return;
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO es_epochs(epoch, next_xid, restored_max_xid) VALUES ($1, $2::xid8, $3::xid8)
       ON CONFLICT (epoch) DO NOTHING`,
      [epoch, row.next_xid, row.restored ? row.newest_xid : null],
    );
    // A constant default: appends pay no lookup. (The number is ours, not input: safe to inline.)
    await client.query(`ALTER TABLE es_events ALTER COLUMN epoch SET DEFAULT ${Number(epoch)}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
