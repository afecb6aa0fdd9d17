// Postgres event store: one append-only table with a gap-free global order.
//
// A sequence value is taken at insert, not at commit, so under concurrent writers position 11 can
// become visible before 10. Readers therefore order by (epoch, transaction_id, global_position) and
// only take rows below a horizon that no append still running can fall under (see HORIZON_SQL). Only
// transactions that append count: a transaction left open elsewhere (psql, a long report, a
// projection batch) no longer holds the log back. The epoch keeps the order growing across a
// logical restore (see init). Background: shared/reference/event-store.md.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { APPEND_LOCK_CLASS, EVENT_STORE_SETUP_LOCK } from '../shared/advisory-locks.js';
import { eventDigest } from './chain.js';
import {
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type LoggedHash,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  START,
  type StoredEvent,
  type SubscribeOptions,
  type SubscriptionMessage,
  WrongExpectedVersionError,
} from './port.js';

const CHANNEL = 'es_events';

// The store's append lock: pg_advisory_xact_lock(APPEND_LOCK_CLASS, hashtext(stream)).
export { APPEND_LOCK_CLASS } from '../shared/advisory-locks.js';

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

const SCHEMA_SQL = `
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

/** Reads of a settling readAll or headPosition after the first (2, 7, 12, 17, 22 ms apart: 60 ms at most). */
const SETTLE_TRIES = 5;
/** The pause before a settling read's try number `tries` (from 0). */
const settlePause = (tries: number) => new Promise((r) => setTimeout(r, 2 + tries * 5));
const PAD = 20;
/**
 * Epoch 0 keeps the original `txid:position` (zero-padded) so existing checkpoints stay valid; later
 * epochs are `E0001:txid:position`, which sorts after every epoch-0 position ('E' > '9').
 */
export function encodePosition(epoch: number, txid: string, globalPosition: string): Position {
  const tail = `${txid.padStart(PAD, '0')}:${globalPosition.padStart(PAD, '0')}`;
  return epoch === 0 ? tail : `E${String(epoch).padStart(4, '0')}:${tail}`;
}
export function decodePosition(position: Position): { epoch: number; txid: string; globalPosition: string } {
  if (position === START) return { epoch: 0, txid: '0', globalPosition: '0' };
  const m = /^(?:E(\d{4}):)?(\d+):(\d+)$/.exec(position);
  if (!m) throw new Error(`Not a Postgres event store position: ${position}`);
  return {
    epoch: m[1] ? Number(m[1]) : 0,
    txid: BigInt(m[2]).toString(),
    globalPosition: BigInt(m[3]).toString(),
  };
}

/**
 * An event as EVENT_JSON sends it: one JSON array per row, as text. The position comes in its three
 * parts (a LoggedEvent pads and joins them if asked: a rebuild asks for one per batch), the time as
 * whole epoch milliseconds. One JSON value per event instead of nine columns: pg slices and converts
 * each column of each row apart, and reading the log is what a rebuild spends its time on (one
 * JSON.parse per row cost a fifth less CPU than nine columns). The data's JSON is part of it, so it
 * is parsed once, not twice. The hash comes only with a stream's events (STREAM_EVENT_JSON): nothing
 * that reads the log needs it (anchors read hashes alone, readLogHashes).
 */
type EventRow = [
  epoch: number,
  txid: string,
  globalPosition: string,
  streamId: string,
  streamVersion: number,
  eventId: string | null,
  eventType: string,
  schemaVersion: number,
  data: unknown,
  metadata: string,
  createdMs: number,
  hash?: string | null,
];

// Careful: output names could shadow the table's columns in ORDER BY. Every ORDER BY below therefore
// names the table's column (es_events.x), never a bare name.
/** An event's position as text (see Position in port.ts), over a row of es_events named es_events. */
export const POSITION_SQL = `(CASE WHEN es_events.epoch = 0 THEN '' ELSE 'E' || lpad(es_events.epoch::text, 4, '0') || ':' END
      || lpad(es_events.transaction_id::text, ${PAD}, '0') || ':' || lpad(es_events.global_position::text, ${PAD}, '0'))`;

/** The log's order, over a row of es_events named es_events (its index: es_events_log_order). */
export const LOG_ORDER_SQL = 'es_events.epoch, es_events.transaction_id, es_events.global_position';

/**
 * Rows after (`>`) or up to (`<=`) a position in log order, by the log-order index, the position
 * given as three parameters from `$first` (`positionParams`). The positions' text form has no index:
 * compared as text, every such read scanned the whole log.
 */
export const logOrderSql = (op: '>' | '<=', first: number) =>
  `(${LOG_ORDER_SQL}) ${op} ($${first}, $${first + 1}::xid8, $${first + 2}::bigint)`;

/** A position as logOrderSql's three parameters. */
export function positionParams(position: Position): [number, string, string] {
  const { epoch, txid, globalPosition } = decodePosition(position);
  return [epoch, txid, globalPosition];
}

/**
 * The JSON array joined as text rather than by json_build_array, which looks up each element's type
 * and converts it anew on every row: reading 100,000 events cost Postgres about a third less this
 * way (COPY of both to /dev/null, six alternating rounds). Every column here is NOT NULL but the
 * hash, so the join is never null; strings that could hold a quote go through to_json.
 * The time: date_part's float8 seconds carry an error under half a microsecond, so adding half a
 * microsecond's worth before the floor gives the exact whole millisecond (as new Date() truncates the
 * exact value), without extract's numeric, which cost Postgres a fifth of the read.
 */
const eventJson = (hash: boolean) => `('[' || es_events.epoch || ',"' || es_events.transaction_id || '","'
    || es_events.global_position || '",' || to_json(es_events.stream_id)::text
    || ',' || es_events.stream_version || ',"' || es_events.event_id || '",' || to_json(es_events.event_type)::text
    || ',' || es_events.schema_version || ',' || es_events.data::text || ',' || to_json(es_events.metadata::text)::text
    || ',' || floor(date_part('epoch', es_events.created_at) * 1000 + 0.0005)::int8
    ${hash ? `|| ',' || coalesce('"' || encode(es_events.hash, 'hex') || '"', 'null')` : ''} || ']') AS event`;
/** An event of the log (readAll, subscribe): without its hash. */
const EVENT_JSON = eventJson(false);
/** An event of a stream (readStream, readStreams): with its hash. */
const STREAM_EVENT_JSON = eventJson(true);

/**
 * An event read from the log. The metadata stays text until asked for: most consumers never read
 * it, and a rebuild's time went to the garbage collector (a parsed object per event). A class, not
 * an object literal with a getter: the literal made a closure per event, and a replay reads
 * 100,000 of them.
 */
class LoggedEvent implements StoredEvent {
  id: string;
  type: string;
  schemaVersion: number;
  streamId: string;
  streamVersion: number;
  data: unknown;
  createdAt: Date;
  hash: string | undefined;
  #epoch: number;
  #txid: string;
  #globalPosition: string;
  #position: string | undefined;
  #metadata: unknown;
  constructor(row: EventRow) {
    this.#epoch = row[0];
    this.#txid = row[1];
    this.#globalPosition = row[2];
    this.streamId = row[3];
    this.streamVersion = row[4];
    this.id = row[5] as string;
    this.type = row[6];
    this.schemaVersion = row[7];
    this.data = row[8];
    this.#metadata = row[9];
    this.createdAt = new Date(row[10]);
    this.hash = row[11] ?? undefined;
  }
  get position(): Position {
    this.#position ??= encodePosition(this.#epoch, this.#txid, this.#globalPosition);
    return this.#position;
  }
  get metadata(): StoredEvent['metadata'] {
    if (typeof this.#metadata === 'string') this.#metadata = JSON.parse(this.#metadata);
    return this.#metadata as StoredEvent['metadata'];
  }
}

/** The events of rows whose second column is EVENT_JSON or STREAM_EVENT_JSON (null where a join found none). */
function toStored(rows: Array<[unknown, string | null]>): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (const row of rows) if (row[1] !== null) events.push(new LoggedEvent(JSON.parse(row[1]) as EventRow));
  return events;
}

/**
 * The head of the stream whose id is `streamId` (an SQL expression): its last event, found by the
 * primary key read backwards, one index probe. Written once for the append and both stream reads.
 */
const streamHeadSql = (streamId: string, columns: string) =>
  `SELECT ${columns} FROM es_events WHERE es_events.stream_id = ${streamId}
     ORDER BY es_events.stream_version DESC LIMIT 1`;

/**
 * Per-stream order in the global log. Readers order by transaction id, and Postgres hands out a
 * transaction id at the first write. Were a transaction to write first and then wait for another
 * writer of the same stream, it would hold the older id yet the newer stream version, and the log
 * would show version 6 before version 5. So an append takes an advisory lock per stream (held to
 * commit; taking it assigns no transaction id) before it writes anything: whoever wrote the stream
 * before has committed, with an older id. Two-key form, so it never meets our single-key locks.
 *
 * One statement appends to many streams (group commit): `lock` takes every stream's lock in one
 * sorted pass (no deadlock); `req` reads each stream's head, its last event (version and hash), by
 * the primary key, and keeps the appends whose expected version holds; `ins` writes their events in
 * append order, chaining each stream's first new event to the head's hash (the row trigger chains
 * the later events of a multi-event append: it sees the rows its own statement inserted before).
 * Expected versions: -1 any, -2 stream exists, 0 no stream, n > 0 exactly n.
 *
 * There is no table of streams: the events' primary key (stream_id, stream_version) is the version
 * check. es_streams, one row per stream rewritten by every append, cost a quarter of the statement's
 * Postgres CPU (560 against 750 µs for 16 appends) and a fifth of its time.
 * The head is read in the statement's snapshot, which is taken before the lock wait: an append to
 * the same stream that committed meanwhile is not seen. Then the new event takes a version that
 * exists, the primary key refuses it (23505) and nothing of the statement is written; each append is
 * tried again alone in a new snapshot (commitBatch, appendAlone). It cannot pass unseen: the version
 * it would take is exactly the one the unseen append wrote. And an expected version that the stale
 * head does not match is a true conflict: a caller who expects version n has read n, so the append
 * that wrote n committed before this statement began, and its snapshot shows it. (Only "stream
 * exists" can be refused for a stream created meanwhile; the caller gets a conflict and decides again.)
 * The head lookup is LATERAL with LIMIT 1, which keeps Postgres from flattening it into a join: a
 * connection keeps the generic plan of its first append (services/shared/db.ts), and one made on an empty
 * log hash-joined full scans of es_events, read again by every append until autovacuum's ANALYZE
 * replanned it.
 * `wake` notifies subscribers at commit on every append, even one that wrote no event (a version
 * conflict): such an append still held readers back (es_horizon) while it ran, and its end must wake
 * the readers that were waiting behind it.
 */
const APPEND_MANY = `
WITH lock AS MATERIALIZED (
  SELECT count(pg_advisory_xact_lock(${APPEND_LOCK_CLASS}, k)) AS locked
  FROM (SELECT DISTINCT hashtext(s) AS k FROM unnest($1::text[]) AS s ORDER BY 1) AS keys),
wake AS MATERIALIZED (SELECT pg_notify('${CHANNEL}', '') AS sent),
req AS MATERIALIZED (
  SELECT r.stream_id, r.n, r.idx, coalesce(h.version, 0) AS base, h.hash AS head_hash
  FROM lock, wake,
       unnest($1::text[], $2::bigint[], $3::int[]) WITH ORDINALITY AS r(stream_id, expected, n, idx)
       LEFT JOIN LATERAL (${streamHeadSql('r.stream_id', 'stream_version AS version, hash')}) h ON true
  WHERE CASE r.expected WHEN -1 THEN true WHEN -2 THEN h.version IS NOT NULL
                        ELSE coalesce(h.version, 0) = r.expected END),
ins AS (
  INSERT INTO es_events(stream_id, stream_version, event_id, event_type, schema_version, data, metadata, digest, hash)
  SELECT r.stream_id, r.base + e.ord, e.id, e.type, e.sv, e.data, e.meta, g.digest,
         CASE WHEN e.ord = 1 AND length(g.digest) = 32 AND (r.base = 0 OR r.head_hash IS NOT NULL)
              THEN sha256(COALESCE(r.head_hash, ''::bytea) || int8send(r.base + 1) || g.digest) END
  FROM ROWS FROM (unnest($4::int[]), unnest($5::int[]), unnest($6::uuid[]), unnest($7::text[]),
                  unnest($8::int[]), json_array_elements($9::json), json_array_elements($10::json))
         WITH ORDINALITY AS e(idx, ord, id, type, sv, data, meta, i)
       CROSS JOIN LATERAL (SELECT substring($11::bytea FROM (e.i::int - 1) * 32 + 1 FOR 32) AS digest) g
       JOIN req r ON r.idx = e.idx
  ORDER BY e.idx, e.ord
  RETURNING es_events.stream_id, es_events.stream_version, es_events.epoch, es_events.transaction_id,
    es_events.global_position)
SELECT ins.stream_id, max(ins.stream_version)::text AS stream_version, max(ins.epoch) AS epoch,
       min(ins.transaction_id::text) AS transaction_id, max(ins.global_position)::text AS global_position
FROM ins GROUP BY ins.stream_id`;

function expectedCode(expected: ExpectedVersion): number {
  if (expected === 'any') return -1;
  if (expected === 'stream_exists') return -2;
  if (expected === 'no_stream') return 0;
  return expected;
}

const digestOf = (streamId: string, e: NewEvent) =>
  eventDigest({
    id: e.id,
    streamId,
    type: e.type,
    schemaVersion: e.schemaVersion ?? 1,
    data: e.data,
    metadata: e.metadata,
  });

/**
 * One statement for appends to distinct streams; rows come back per stream that was appended.
 * (Exported for the test of its plan.)
 */
export function appendManyQuery(
  batch: ReadonlyArray<Pick<PendingAppend, 'streamId' | 'events' | 'expected' | 'digests'>>,
): pg.QueryConfig {
  const idx: number[] = [];
  const ord: number[] = [];
  const ids: string[] = [];
  const types: string[] = [];
  const versions: number[] = [];
  const data: unknown[] = [];
  const meta: unknown[] = [];
  const digests: Buffer[] = [];
  for (const [i, p] of batch.entries())
    for (const [j, e] of p.events.entries()) {
      idx.push(i + 1);
      ord.push(j + 1);
      ids.push(e.id);
      types.push(e.type);
      versions.push(e.schemaVersion ?? 1);
      data.push(e.data ?? null);
      meta.push(e.metadata ?? {});
      digests.push(p.digests?.[j] ?? digestOf(p.streamId, e));
    }
  return {
    name: 'es_append_many',
    text: APPEND_MANY,
    values: [
      batch.map((p) => p.streamId),
      batch.map((p) => expectedCode(p.expected)),
      batch.map((p) => p.events.length),
      idx,
      ord,
      ids,
      types,
      versions,
      // Data and metadata as one JSON array each, the digests as one string of 32-byte digests: pg
      // writes a text[] or bytea[] literal by escaping every element in JavaScript, which was 5 % of
      // the gateway's CPU in a CSV import (1,000 events a statement); one JSON.stringify is native.
      JSON.stringify(data),
      JSON.stringify(meta),
      Buffer.concat(digests),
    ],
  };
}

/** Statements an append alone may run when each finds its stream's head moved under it (a hot stream). */
const STALE_HEAD_TRIES = 5;

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

export interface PostgresEventStoreOptions {
  /** Fallback poll when no notification arrives (ms). */
  pollIntervalMs?: number;
  /** Group commit: appends waiting at the same time share one transaction (default on). */
  groupCommit?: boolean;
  /**
   * Most appends in one shared transaction (default 1,000). Only a burst fills it: a 10,000-row
   * vendor import appended in 2.0 s with 256 against 2.8 s with 64, and took 2.7 – 3.0 s in all with
   * 1,000 against 3.1 – 3.2 s with 256; 16 writers never queue more than 16.
   */
  maxBatch?: number;
  /**
   * Shared transactions in flight at once (each holds one pooled connection). One: appends that
   * commit at the same time serialize anyway (NOTIFY holds a cluster-wide lock through each commit's
   * WAL flush), so a second statement in flight only halves the groups. Measured with 16 writers:
   * one in flight 13,700 – 14,000 events/s (1.1 ms a statement of 16 appends), two 9,300 – 10,000
   * (1.4 – 1.6 ms a statement of 7), four 7,000 (2.3 ms a statement of 4).
   */
  maxInFlight?: number;
}

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
  /** Taken as the append waits, while the statement before it runs, not after it (chain.ts). */
  digests?: Buffer[];
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

type AppendRow = { epoch: number; transaction_id: string; global_position: string; stream_version: string };

/** Events the shared tail keeps (readTail), and the least it reads at a time. */
const TAIL_MAX = 4096;
const TAIL_READ = 500;

/**
 * The end of the log as a process read it last, shared by its subscribers (readTail): the events
 * after `from`, read when `wakes` notifications had come; `held` and `complete` as that read said.
 */
interface LogTail {
  from: Position;
  events: StoredEvent[];
  wakes: number;
  held: boolean;
  complete: boolean;
  /** When its last read was sent: a subscriber polling (no notification came) reads afresh. */
  readAt: number;
}

/** The last position a tail holds. */
const tailEnd = (t: LogTail): Position => (t.events.length ? t.events[t.events.length - 1].position : t.from);

/** Index of the first event after `after` (events in log order). */
function firstAfter(events: StoredEvent[], after: Position): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid].position <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly wake = new EventEmitter();
  private listener: pg.Client | null = null;
  private listenerStarting: Promise<void> | null = null;
  private closed = false;
  private readonly pollIntervalMs: number;
  private readonly groupCommit: boolean;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly pending: PendingAppend[] = [];
  private inFlight = 0;
  /** Notifications seen so far: a shared read is reused only if no notification came after it began. */
  private wakes = 0;
  /** Bounded to TAIL_MAX events (trimmed from the front). */
  private tail: LogTail | null = null;
  private extending: Promise<void> | null = null;
  private readonly sharedReads = new Map<
    string,
    { wakes: number; sentAt: number; promise: Promise<{ events: StoredEvent[]; held: boolean }> }
  >();

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    this.wake.setMaxListeners(0);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.groupCommit = options.groupCommit ?? true;
    this.maxBatch = options.maxBatch ?? 1000;
    this.maxInFlight = options.maxInFlight ?? 1;
  }

  async init(): Promise<void> {
    // Advisory lock: several processes may start at once and CREATE ... IF NOT EXISTS is not race-free.
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [EVENT_STORE_SETUP_LOCK]);
      await client.query(SCHEMA_SQL);
      await this.followRestore(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [EVENT_STORE_SETUP_LOCK]).catch(() => {});
      client.release();
    }
  }

  /**
   * A logical restore (pg_dump) carries the events but not the cluster's transaction counter, which
   * can be lower in the new cluster: new appends would get lower ids than restored events and sort
   * before them. In a live cluster every stored id is below the next id, so stored ids at or above it
   * mean a restore: start a new epoch, which sorts after all of the old one. Appends take the epoch
   * from the column default (set here), readers from es_epochs. Also puts the default back in line
   * with es_epochs should the two ever differ (a partial restore).
   */
  private async followRestore(client: pg.PoolClient) {
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

  /**
   * Appends under the expected-version rule. Each append is one statement (lock the streams, read
   * their heads, insert the events, notify). Appends that wait at the same time are committed together
   * in one transaction — one WAL flush for many — yet each keeps its own version check and result.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    if (!this.groupCommit) return this.appendAlone({ streamId, events, expected });
    // The digests are computed here, as the append joins the queue, rather than when its statement
    // is built: with a statement in flight that work then overlaps it instead of delaying the next.
    let digests: Buffer[];
    try {
      digests = events.map((e) => digestOf(streamId, e));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ streamId, events, expected, digests, resolve, reject });
      this.drain();
    });
  }

  private drain() {
    while (this.pending.length > 0 && this.inFlight < this.maxInFlight) {
      // Distinct streams per batch (one statement claims each stream once); the rest wait their turn.
      const batch: PendingAppend[] = [];
      const streams = new Set<string>();
      for (let i = 0; i < this.pending.length && batch.length < this.maxBatch; ) {
        const p = this.pending[i];
        if (streams.has(p.streamId)) {
          i++;
          continue;
        }
        streams.add(p.streamId);
        batch.push(p);
        this.pending.splice(i, 1);
      }
      this.inFlight++;
      this.commitBatch(batch).finally(() => {
        this.inFlight--;
        this.drain();
      });
    }
  }

  private async commitBatch(batch: PendingAppend[]) {
    let rows: pg.QueryResult['rows'];
    try {
      rows = (await this.pool.query(appendManyQuery(batch))).rows;
    } catch {
      // Rare (an event id appended before, a head read stale, a lost connection): nothing of the batch
      // committed, so each append runs again on its own and gets its own answer.
      await Promise.all(batch.map((p) => this.appendAlone(p).then(p.resolve, p.reject)));
      return;
    }
    const byStream = new Map(rows.map((r) => [r.stream_id as string, r as AppendRow]));
    await Promise.all(
      batch.map((p) => this.settle(p, byStream.get(p.streamId) ?? null).then(p.resolve, p.reject)),
    );
  }

  private async appendAlone(
    p: Pick<PendingAppend, 'streamId' | 'events' | 'expected' | 'digests'>,
    tries = 1,
  ): Promise<AppendResult> {
    let row: AppendRow | null;
    try {
      const r = await this.pool.query(appendManyQuery([p]));
      row = (r.rows[0] as AppendRow | undefined) ?? null;
    } catch (err) {
      const { code, constraint } = err as { code?: string; constraint?: string };
      if (code !== '23505') throw err;
      // The head was read stale: another append to the stream committed while this one waited for
      // its lock (APPEND_MANY). A new statement reads it afresh.
      if (constraint === 'es_events_pkey' && tries < STALE_HEAD_TRIES) return this.appendAlone(p, tries + 1);
      // The same event ids were appended before (a retried command): answer as the first time did.
      row = null;
    }
    return this.settle(p, row);
  }

  /** No row: the expected version did not hold — unless these very events are already there. */
  private async settle(
    p: Pick<PendingAppend, 'streamId' | 'events' | 'expected'>,
    row: AppendRow | null,
  ): Promise<AppendResult> {
    if (row)
      return {
        nextVersion: Number(row.stream_version),
        position: encodePosition(row.epoch, row.transaction_id, row.global_position),
      };
    const prior = await this.priorAppend(p.streamId, p.events);
    if (prior) return prior;
    throw new WrongExpectedVersionError(
      p.streamId,
      p.expected,
      (await this.streamVersion(this.pool, p.streamId)).version,
    );
  }

  private async streamVersion(client: pg.PoolClient | pg.Pool, streamId: string) {
    const r = await client.query(
      'SELECT max(stream_version)::text AS version FROM es_events WHERE stream_id = $1',
      [streamId],
    );
    return { version: Number(r.rows[0]?.version ?? 0) };
  }

  /** The result of an earlier append of exactly these events to this stream, if there was one. */
  private async priorAppend(streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
    const r = await this.pool.query(
      `SELECT event_id, stream_id, stream_version::text, epoch, transaction_id::text, global_position::text
       FROM es_events WHERE event_id = ANY($1::uuid[]) ORDER BY es_events.stream_version`,
      [events.map((e) => e.id)],
    );
    if (r.rowCount !== events.length) return null;
    const rows = r.rows as Array<{
      event_id: string;
      stream_id: string;
      stream_version: string;
      epoch: number;
      transaction_id: string;
      global_position: string;
    }>;
    const same = rows.every((row, i) => row.stream_id === streamId && row.event_id === events[i].id);
    if (!same) return null;
    const last = rows[rows.length - 1];
    return {
      nextVersion: Number(last.stream_version),
      position: encodePosition(last.epoch, last.transaction_id, last.global_position),
    };
  }

  /** Events and version in one statement, so both come from one snapshot (a decision needs both). */
  async readStream(streamId: string, options: ReadStreamOptions = {}) {
    const r = await this.pool.query({
      text: `SELECT s.version::text AS head, e.*
       FROM (${streamHeadSql('$1', 'stream_version AS version')}) s
       LEFT JOIN LATERAL (
         SELECT ${STREAM_EVENT_JSON} FROM es_events
         WHERE stream_id = $1 AND stream_version >= $2 ORDER BY es_events.stream_version LIMIT $3) e ON true`,
      values: [streamId, options.fromVersion ?? 1, options.maxCount ?? null],
      rowMode: 'array',
    });
    if (r.rowCount === 0) return { version: 0, events: [] };
    const rows = r.rows as Array<[head: string, event: string | null]>;
    return { version: Number(rows[0][0]), events: toStored(rows) };
  }

  async readStreams(streamIds: string[]) {
    const r = await this.pool.query({
      text: `SELECT s.stream_id, s.version::text AS head, e.event
       FROM (SELECT DISTINCT unnest($1::text[]) AS stream_id) ids
       CROSS JOIN LATERAL (${streamHeadSql('ids.stream_id', 'es_events.stream_id, es_events.stream_version AS version')}) s
       LEFT JOIN LATERAL (
         SELECT ${STREAM_EVENT_JSON} FROM es_events
         WHERE es_events.stream_id = s.stream_id ORDER BY es_events.stream_version) e ON true`,
      values: [streamIds],
      rowMode: 'array',
    });
    const grouped = new Map<string, Array<[string, string | null]>>();
    for (const [streamId, head, event] of r.rows as Array<[string, string, string | null]>) {
      const rows = grouped.get(streamId) ?? [];
      rows.push([head, event]);
      grouped.set(streamId, rows);
    }
    const result = new Map<string, { version: number; events: StoredEvent[] }>();
    for (const [streamId, rows] of grouped)
      result.set(streamId, { version: Number(rows[0][0]), events: toStored(rows) });
    return result;
  }

  /**
   * Subscribers at the same position (every projection, usually) wake together and would send the
   * same query: they share one in flight, unless a notification arrived after it was sent, or it was
   * sent before `sentSince` (a new subscriber's first reads: see subscribe).
   */
  private readShared(
    after: Position,
    limit: number,
    options: ReadAllOptions,
    sentSince = Number.NEGATIVE_INFINITY,
  ): Promise<{ events: StoredEvent[]; held: boolean }> {
    const key = `${after}|${limit}|${options.types?.join(',') ?? ''}`;
    const running = this.sharedReads.get(key);
    if (running && running.wakes === this.wakes && running.sentAt >= sentSince) return running.promise;
    const sentAt = performance.now();
    const promise = this.readAllHeld(after, limit, options).finally(() => {
      if (this.sharedReads.get(key)?.promise === promise) this.sharedReads.delete(key);
    });
    this.sharedReads.set(key, { wakes: this.wakes, sentAt, promise });
    return promise;
  }

  /**
   * A subscriber's read. Consumers in one process (every projection, every process manager) follow
   * the same end of the log but each finishes its batch at its own time, so they rarely read at the
   * same position: each used to send its own read per append. They share one tail instead: served
   * from it when it holds everything they could read (no notification since it was read, nothing
   * held back), extended by one read for all of them otherwise. A subscriber behind the tail (a
   * catch-up, a restart) reads for itself.
   */
  private async readTail(
    after: Position,
    limit: number,
    sentSince = Number.NEGATIVE_INFINITY,
  ): Promise<{ events: StoredEvent[]; held: boolean }> {
    // The notifications this caller knows of: what it is given must have been read after them all
    // (an extension already in flight may have started before the last one: then another is sent).
    const known = this.wakes;
    for (let extended = false; ; extended = true) {
      const t = this.tail;
      if (!t || after < t.from || after > tailEnd(t)) break;
      const start = firstAfter(t.events, after);
      const events = t.events.slice(start, start + limit);
      if (events.length === limit) return { events, held: false };
      const covers = t.complete && t.wakes >= known && t.readAt >= sentSince;
      // Held back: the caller backs off and asks again (which extends again).
      if (covers && (extended || (!t.held && performance.now() - t.readAt < this.pollIntervalMs)))
        return { events, held: t.held };
      await this.extendTail(limit);
    }
    const readAt = performance.now();
    const read = await this.readShared(after, limit, {}, sentSince);
    // Read to the end of the log, past what the tail holds: the new tail.
    if (read.events.length < limit && (this.tail === null || after >= tailEnd(this.tail)))
      this.tail = {
        from: after,
        events: [...read.events],
        wakes: known,
        held: read.held,
        complete: true,
        readAt,
      };
    return read;
  }

  /** One read after the tail's end for every subscriber waiting on it. */
  private extendTail(limit: number): Promise<void> {
    if (this.extending) return this.extending;
    this.extending = (async () => {
      const t = this.tail;
      if (!t) return;
      const wakes = this.wakes;
      const readAt = performance.now();
      const size = Math.max(limit, TAIL_READ);
      const read = await this.readAllHeld(tailEnd(t), size, {});
      if (this.tail !== t) return;
      for (const e of read.events) t.events.push(e);
      t.wakes = wakes;
      t.readAt = readAt;
      t.held = read.held;
      t.complete = read.events.length < size;
      if (t.events.length > TAIL_MAX) {
        const drop = t.events.length - TAIL_MAX / 2;
        t.from = t.events[drop - 1].position;
        t.events = t.events.slice(drop);
      }
    })().finally(() => {
      this.extending = null;
    });
    return this.extending;
  }

  async readAll(after: Position, limit: number, options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    if (!options.settle) return (await this.readAllHeld(after, limit, options)).events;
    return this.settled(after, limit, (from, n) => this.readAllHeld(from, n, options));
  }

  /** A settling read of positions and hashes only (the anchor job's: it never reads the data). */
  async readLogHashes(after: Position, limit: number): Promise<LoggedHash[]> {
    return this.settled(after, limit, async (from, n) => {
      const { held, rows } = await this.readHeldRows<[string | null, string, string | null]>(
        from,
        n,
        undefined,
        'es_read_hashes_held',
        `${POSITION_SQL} AS position, event_id::text AS id, encode(es_events.hash, 'hex') AS hash`,
      );
      const events: LoggedHash[] = [];
      for (const [, position, id, hash] of rows) if (position !== null) events.push({ position, id, hash });
      return { held, events };
    });
  }

  /**
   * The horizon counts, besides this database's appends in flight, any transaction of the snapshot
   * that has ended since (which database it wrote to can no longer be told): on a busy cluster a
   * read now and then stops short for a moment. A one-shot reader reads on from where it stopped.
   */
  private async settled<T extends { position: Position }>(
    after: Position,
    limit: number,
    read: (after: Position, limit: number) => Promise<{ events: T[]; held: boolean }>,
  ): Promise<T[]> {
    let last = await read(after, limit);
    const events = [...last.events];
    for (let tries = 0; last.held && events.length < limit && tries < SETTLE_TRIES; tries++) {
      await settlePause(tries);
      last = await read(events.at(-1)?.position ?? after, limit - events.length);
      events.push(...last.events);
    }
    return events;
  }

  /**
   * The events after `after` below the horizon, and whether the horizon held anything back (it is
   * below the snapshot's xmax: an append, or the conservative case, was running). When nothing was
   * held back and fewer than `limit` came, everything committed so far has been read: the next
   * event comes with a notification, and a subscriber can wait for it without reading again.
   */
  private async readAllHeld(
    after: Position,
    limit: number,
    options: ReadAllOptions = {},
  ): Promise<{ events: StoredEvent[]; held: boolean }> {
    const typed = options.types && options.types.length > 0;
    const { held, rows } = await this.readHeldRows<[string | null]>(
      after,
      limit,
      options.types,
      typed ? 'es_read_all_held_typed' : 'es_read_all_held',
      EVENT_JSON,
    );
    return { held, events: toStored(rows) };
  }

  /**
   * One statement: the horizon must come from the snapshot the rows are read with (HORIZON_SQL).
   * Named, so each connection plans it once (planning the view costs more than running it). One row
   * with nulls when there are no events, so `held` always comes back. Each row: held, then `select`.
   */
  private async readHeldRows<Row extends unknown[]>(
    after: Position,
    limit: number,
    types: readonly string[] | undefined,
    name: string,
    select: string,
  ): Promise<{ held: boolean; rows: Array<[boolean, ...Row]> }> {
    const from = positionParams(after);
    const typed = types !== undefined && types.length > 0;
    const r = await this.pool.query({
      name,
      text: `WITH h AS MATERIALIZED (
         SELECT epoch, xid, xid < pg_snapshot_xmax(pg_current_snapshot()) AS held FROM es_horizon)
       SELECT h.held, e.* FROM h LEFT JOIN LATERAL (
         SELECT ${select} FROM es_events
         WHERE ${logOrderSql('>', 1)}
           AND (es_events.epoch, es_events.transaction_id) < (h.epoch, h.xid)
           ${typed ? 'AND event_type = ANY($5::text[])' : ''}
         ORDER BY ${LOG_ORDER_SQL}
         LIMIT $4) e ON true`,
      values: typed ? [...from, limit, types] : [...from, limit],
      rowMode: 'array',
    });
    const rows = r.rows as Array<[boolean, ...Row]>;
    return { held: rows[0]?.[0] ?? true, rows };
  }

  /**
   * Settled as a settling readAll is: on a busy cluster the horizon is often held back for a moment by
   * a transaction of any database that ended while the read ran (beside eight connections churning
   * short transactions in another database, 1,262 heads of 3,000 came back short). The callers (a
   * wait for the projections, a process manager starting "now", tests) want the head as it is, so a
   * held read is read again a few times, a few milliseconds apart; an append really open keeps it
   * where it is.
   */
  async headPosition(): Promise<Position> {
    for (let tries = 0; ; tries++) {
      const r = await this.pool.query({
        name: 'es_head',
        text: `WITH h AS MATERIALIZED (
           SELECT epoch, xid, xid < pg_snapshot_xmax(pg_current_snapshot()) AS held FROM es_horizon)
         SELECT h.held, e.epoch, e.transaction_id::text, e.global_position::text FROM h LEFT JOIN LATERAL (
           SELECT epoch, transaction_id, global_position FROM es_events
           WHERE (es_events.epoch, es_events.transaction_id) < (h.epoch, h.xid)
           ORDER BY es_events.epoch DESC, es_events.transaction_id DESC, es_events.global_position DESC
           LIMIT 1) e ON true`,
        rowMode: 'array',
      });
      const [held, epoch, txid, globalPosition] = r.rows[0] as [boolean, number | null, string, string];
      if (!held || tries === SETTLE_TRIES)
        return epoch === null ? START : encodePosition(epoch, txid, globalPosition);
      await settlePause(tries);
    }
  }

  /**
   * The oldest transaction that holds back readers now: it holds an append lock and has written
   * (has a transaction id), so nothing it may commit can be passed. Null when none. For the metrics,
   * the detailed health and the operations page: a long age means a stuck appender.
   */
  async logHolder(): Promise<LogHolder | null> {
    const r = await this.pool.query(
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

  /** One LISTEN connection per store, shared by every subscriber in this process. */
  private ensureListener(): Promise<void> {
    if (this.listener || this.closed) return Promise.resolve();
    if (this.listenerStarting) return this.listenerStarting;
    this.listenerStarting = (async () => {
      const client = new pg.Client(this.pool.options);
      client.on('notification', () => {
        this.wakes++;
        this.wake.emit('wake');
      });
      client.on('error', () => {
        // Polling keeps subscribers going; try to listen again on the next wait.
        this.listener = null;
        client.end().catch(() => {});
      });
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
    })()
      .catch(() => {
        /* polling fallback */
      })
      .finally(() => {
        this.listenerStarting = null;
      });
    return this.listenerStarting;
  }

  /** Resolves on a notification, after `ms`, or when aborted. */
  private waitForWake(ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woke: boolean) => {
        clearTimeout(timer);
        this.wake.off('wake', onWake);
        signal?.removeEventListener('abort', onAbort);
        resolve(woke);
      };
      const onWake = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      this.wake.on('wake', onWake);
      signal?.addEventListener('abort', onAbort);
    });
  }

  async *subscribe(options: SubscribeOptions): AsyncIterable<SubscriptionMessage> {
    const batchSize = options.batchSize ?? 500;
    const signal = options.signal;
    let position = options.after ?? START;
    let caughtUpAnnounced = false;
    // Until its first caughtUp, a subscriber is served only reads sent after it began: a shared read
    // or tail taken earlier can miss an append that committed before the subscription, whose
    // notification has not reached this process yet (it would then come after caughtUp, as live).
    const began = performance.now();
    // A read is taken again only when it may have missed something: a notification came while it
    // ran, or the horizon held events back. Held back by an append, its commit notifies; by the
    // horizon's conservative case (a transaction of any database that ended while the read ran) no
    // notification comes, so a held-back read is retried soon, backing off (3 ms doubling). Otherwise
    // everything committed has been read, and the next append's notification wakes the loop; the
    // poll interval only covers a lost listener.
    let heldDelay = 0;
    await this.ensureListener();
    while (!signal?.aborted && !this.closed) {
      const wakesBefore = this.wakes;
      const sentSince = caughtUpAnnounced ? undefined : began;
      const { events: batch, held } =
        options.types && options.types.length > 0
          ? await this.readShared(position, batchSize, options, sentSince)
          : await this.readTail(position, batchSize, sentSince);
      if (batch.length > 0 && options.prepareBatch) await options.prepareBatch(batch);
      for (const event of batch) {
        if (signal?.aborted) return;
        position = event.position;
        yield { kind: 'event', event };
      }
      if (batch.length === batchSize) continue;
      // The first caughtUp promises that nothing committed was left behind, so it waits for a read
      // the horizon held nothing back from (a held read is retried in a few ms, below); announced on
      // a held read, an event appended before the subscription came after it, as if live. Later
      // ones close each read, for consumers that flush a batch on them.
      if (caughtUpAnnounced ? batch.length > 0 : !held) {
        caughtUpAnnounced = true;
        yield { kind: 'caughtUp', position };
      }
      if (this.wakes !== wakesBefore) {
        heldDelay = 0;
        continue;
      }
      await this.ensureListener();
      if (held) {
        heldDelay = heldDelay === 0 ? 3 : Math.min(heldDelay * 2, this.pollIntervalMs);
        await this.waitForWake(heldDelay, signal);
        continue;
      }
      heldDelay = 0;
      await this.waitForWake(this.pollIntervalMs, signal);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake.emit('wake');
    const l = this.listener;
    this.listener = null;
    if (l) await l.end().catch(() => {});
  }
}
