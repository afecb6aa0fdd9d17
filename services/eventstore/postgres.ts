// Postgres event store: one append-only table with a gap-free global order.
//
// A sequence value is taken at insert, not at commit, so under concurrent writers position 11 can
// become visible before 10. Readers therefore order by (transaction_id, global_position) and only
// take rows whose transaction is older than every transaction still running
// (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`): nothing can later appear before a
// position a reader has passed. (Same approach as Emmett's readMessagesBatch; see
// shared/reference/event-store.md.)
import { EventEmitter } from 'node:events';
import pg from 'pg';
import {
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  START,
  type StoredEvent,
  type SubscribeOptions,
  type SubscriptionMessage,
  streamTypeOf,
  WrongExpectedVersionError,
} from './port.js';

const CHANNEL = 'es_events';

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS es_streams(
  stream_id text PRIMARY KEY,
  stream_type text NOT NULL,
  version bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now());
-- The expected version of the latest claim: lets one upsert check a different expectation per stream.
ALTER TABLE es_streams ADD COLUMN IF NOT EXISTS claim_expected bigint;
CREATE SEQUENCE IF NOT EXISTS es_global_position;
CREATE TABLE IF NOT EXISTS es_events(
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  global_position bigint NOT NULL DEFAULT nextval('es_global_position'),
  stream_id text NOT NULL,
  stream_version bigint NOT NULL,
  event_id uuid NOT NULL UNIQUE,
  event_type text NOT NULL,
  schema_version int NOT NULL DEFAULT 1,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream_id, stream_version));
CREATE INDEX IF NOT EXISTS es_events_global_order ON es_events(transaction_id, global_position);
`;

const PAD = 20;
export function encodePosition(txid: string, globalPosition: string): Position {
  return `${txid.padStart(PAD, '0')}:${globalPosition.padStart(PAD, '0')}`;
}
export function decodePosition(position: Position): { txid: string; globalPosition: string } {
  if (position === START) return { txid: '0', globalPosition: '0' };
  const m = /^(\d+):(\d+)$/.exec(position);
  if (!m) throw new Error(`Not a Postgres event store position: ${position}`);
  return { txid: BigInt(m[1]).toString(), globalPosition: BigInt(m[2]).toString() };
}

interface EventRow {
  transaction_id: string;
  global_position: string;
  stream_id: string;
  stream_version: string;
  event_id: string;
  event_type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  created_at: Date;
}

// Careful: these output names shadow the table's columns in ORDER BY, and as text they sort '10' before
// '2'. Every ORDER BY below therefore names the table's column (es_events.x), never the bare name.
const EVENT_COLUMNS =
  'transaction_id::text, global_position::text, stream_id, stream_version::text, event_id, event_type, schema_version, data, metadata, created_at';

function toStored(row: EventRow): StoredEvent {
  return {
    id: row.event_id,
    type: row.event_type,
    schemaVersion: row.schema_version,
    streamId: row.stream_id,
    streamVersion: Number(row.stream_version),
    position: encodePosition(row.transaction_id, row.global_position),
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}

/**
 * Per-stream order in the global log. Readers order by transaction id, and Postgres hands out a
 * transaction id at the first write. Were a transaction to write first and then wait for another
 * writer of the same stream, it would hold the older id yet the newer stream version, and the log
 * would show version 6 before version 5. So an append takes an advisory lock per stream (held to
 * commit; taking it assigns no transaction id) before it writes anything: whoever wrote the stream
 * before has committed, with an older id. Two-key form, so it never meets our single-key locks.
 *
 * One statement appends to many streams (group commit): `lock` takes every stream's lock in one
 * sorted pass (no deadlock); `claim` moves each stream's version only where its expected version
 * holds — the check runs in ON CONFLICT DO UPDATE, which sees the newest committed row even though
 * the statement's snapshot predates the lock wait; `ins` writes the events of the claimed streams in
 * append order. Expected versions: -1 any, -2 stream exists, 0 no stream, n > 0 exactly n.
 * (`seen` comes from the older snapshot; it only refuses a version expected of a stream that did not
 * exist then — if it was created meanwhile, the caller gets a conflict and decides again.)
 */
const APPEND_MANY = `
WITH lock AS MATERIALIZED (
  SELECT count(pg_advisory_xact_lock(7262, k)) AS locked
  FROM (SELECT DISTINCT hashtext(s) AS k FROM unnest($1::text[]) AS s ORDER BY 1) AS keys),
req AS MATERIALIZED (
  SELECT r.stream_id, r.stream_type, r.expected, r.n, r.idx, s.version AS seen
  FROM lock,
       unnest($1::text[], $2::text[], $3::bigint[], $4::int[]) WITH ORDINALITY
         AS r(stream_id, stream_type, expected, n, idx)
       LEFT JOIN es_streams s ON s.stream_id = r.stream_id),
claim AS (
  INSERT INTO es_streams AS st (stream_id, stream_type, version, claim_expected)
  SELECT stream_id, stream_type, n, expected FROM req
  WHERE NOT ((expected > 0 OR expected = -2) AND seen IS NULL)
  ON CONFLICT (stream_id) DO UPDATE
    SET version = st.version + excluded.version, claim_expected = excluded.claim_expected, updated_at = now()
    WHERE excluded.claim_expected < 0 OR st.version = excluded.claim_expected
  RETURNING st.stream_id, st.version),
ins AS (
  INSERT INTO es_events(stream_id, stream_version, event_id, event_type, schema_version, data, metadata)
  SELECT c.stream_id, c.version - r.n + e.ord, e.id, e.type, e.sv, e.data, e.meta
  FROM unnest($5::int[], $6::int[], $7::uuid[], $8::text[], $9::int[], $10::jsonb[], $11::jsonb[])
         AS e(idx, ord, id, type, sv, data, meta)
       JOIN req r ON r.idx = e.idx
       JOIN claim c ON c.stream_id = r.stream_id
  ORDER BY e.idx, e.ord
  RETURNING es_events.stream_id, es_events.stream_version, es_events.transaction_id, es_events.global_position)
SELECT ins.stream_id, max(ins.stream_version)::text AS stream_version,
       min(ins.transaction_id::text) AS transaction_id, max(ins.global_position)::text AS global_position,
       pg_notify('${CHANNEL}', '') AS notified
FROM ins GROUP BY ins.stream_id`;

function expectedCode(expected: ExpectedVersion): number {
  if (expected === 'any') return -1;
  if (expected === 'stream_exists') return -2;
  if (expected === 'no_stream') return 0;
  return expected;
}

/** One statement for appends to distinct streams; rows come back per stream that was appended. */
function appendManyQuery(
  batch: ReadonlyArray<Pick<PendingAppend, 'streamId' | 'events' | 'expected'>>,
): pg.QueryConfig {
  const idx: number[] = [];
  const ord: number[] = [];
  const ids: string[] = [];
  const types: string[] = [];
  const versions: number[] = [];
  const data: string[] = [];
  const meta: string[] = [];
  for (const [i, p] of batch.entries())
    for (const [j, e] of p.events.entries()) {
      idx.push(i + 1);
      ord.push(j + 1);
      ids.push(e.id);
      types.push(e.type);
      versions.push(e.schemaVersion ?? 1);
      data.push(JSON.stringify(e.data ?? null));
      meta.push(JSON.stringify(e.metadata ?? {}));
    }
  return {
    name: 'es_append_many',
    text: APPEND_MANY,
    values: [
      batch.map((p) => p.streamId),
      batch.map((p) => streamTypeOf(p.streamId)),
      batch.map((p) => expectedCode(p.expected)),
      batch.map((p) => p.events.length),
      idx,
      ord,
      ids,
      types,
      versions,
      data,
      meta,
    ],
  };
}

export interface PostgresEventStoreOptions {
  /** Fallback poll when no notification arrives (ms). */
  pollIntervalMs?: number;
  /** Group commit: appends waiting at the same time share one transaction (default on). */
  groupCommit?: boolean;
  /** Most appends in one shared transaction. */
  maxBatch?: number;
  /** Shared transactions in flight at once (each holds one pooled connection). */
  maxInFlight?: number;
}

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

type AppendRow = { transaction_id: string; global_position: string; stream_version: string };

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
  private readonly sharedReads = new Map<string, { wakes: number; promise: Promise<StoredEvent[]> }>();

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    this.wake.setMaxListeners(0);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.groupCommit = options.groupCommit ?? true;
    this.maxBatch = options.maxBatch ?? 64;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  async init(): Promise<void> {
    // Advisory lock: several processes may start at once and CREATE ... IF NOT EXISTS is not race-free.
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(7261001)');
      await client.query(SCHEMA_SQL);
    } finally {
      await client.query('SELECT pg_advisory_unlock(7261001)').catch(() => {});
      client.release();
    }
  }

  /**
   * Appends under the expected-version rule. Each append is one statement (claim the versions on
   * es_streams, insert the events, notify). Appends that wait at the same time are committed together
   * in one transaction — one WAL flush for many — yet each keeps its own version check and result.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    if (!this.groupCommit) return this.appendAlone({ streamId, events, expected });
    return new Promise((resolve, reject) => {
      this.pending.push({ streamId, events, expected, resolve, reject });
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
      // Rare (an event id appended before, a lost connection): nothing of the batch committed, so
      // each append runs again on its own and gets its own answer.
      await Promise.all(batch.map((p) => this.appendAlone(p).then(p.resolve, p.reject)));
      return;
    }
    const byStream = new Map(rows.map((r) => [r.stream_id as string, r as AppendRow]));
    await Promise.all(
      batch.map((p) => this.settle(p, byStream.get(p.streamId) ?? null).then(p.resolve, p.reject)),
    );
  }

  private async appendAlone(
    p: Pick<PendingAppend, 'streamId' | 'events' | 'expected'>,
  ): Promise<AppendResult> {
    let row: AppendRow | null;
    try {
      const r = await this.pool.query(appendManyQuery([p]));
      row = (r.rows[0] as AppendRow | undefined) ?? null;
    } catch (err) {
      // The same event ids were appended before (a retried command): answer as the first time did.
      if ((err as { code?: string }).code !== '23505') throw err;
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
        position: encodePosition(row.transaction_id, row.global_position),
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
    const r = await client.query('SELECT version::text FROM es_streams WHERE stream_id = $1', [streamId]);
    return { version: r.rowCount ? Number(r.rows[0].version) : 0 };
  }

  /** The result of an earlier append of exactly these events to this stream, if there was one. */
  private async priorAppend(streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
    const r = await this.pool.query(
      `SELECT event_id, stream_id, stream_version::text, transaction_id::text, global_position::text
       FROM es_events WHERE event_id = ANY($1::uuid[]) ORDER BY es_events.stream_version`,
      [events.map((e) => e.id)],
    );
    if (r.rowCount !== events.length) return null;
    const rows = r.rows as Array<{
      event_id: string;
      stream_id: string;
      stream_version: string;
      transaction_id: string;
      global_position: string;
    }>;
    const same = rows.every((row, i) => row.stream_id === streamId && row.event_id === events[i].id);
    if (!same) return null;
    const last = rows[rows.length - 1];
    return {
      nextVersion: Number(last.stream_version),
      position: encodePosition(last.transaction_id, last.global_position),
    };
  }

  /** Events and version in one statement, so both come from one snapshot (a decision needs both). */
  async readStream(streamId: string, options: ReadStreamOptions = {}) {
    const r = await this.pool.query(
      `SELECT s.version::text AS head, e.*
       FROM (SELECT version FROM es_streams WHERE stream_id = $1) s
       LEFT JOIN LATERAL (
         SELECT ${EVENT_COLUMNS} FROM es_events
         WHERE stream_id = $1 AND stream_version >= $2 ORDER BY es_events.stream_version LIMIT $3) e ON true`,
      [streamId, options.fromVersion ?? 1, options.maxCount ?? null],
    );
    if (r.rowCount === 0) return { version: 0, events: [] };
    const rows = r.rows as Array<EventRow & { head: string }>;
    return {
      version: Number(rows[0].head),
      events: rows.filter((row) => row.event_id !== null).map(toStored),
    };
  }

  /**
   * Subscribers at the same position (every projection, usually) wake together and would send the
   * same query: they share one in flight, unless a notification arrived after it was sent.
   */
  private readShared(after: Position, limit: number, options: ReadAllOptions): Promise<StoredEvent[]> {
    const key = `${after}|${limit}|${options.types?.join(',') ?? ''}`;
    const running = this.sharedReads.get(key);
    if (running && running.wakes === this.wakes) return running.promise;
    const promise = this.readAll(after, limit, options).finally(() => {
      if (this.sharedReads.get(key)?.promise === promise) this.sharedReads.delete(key);
    });
    this.sharedReads.set(key, { wakes: this.wakes, promise });
    return promise;
  }

  async readAll(after: Position, limit: number, options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const { txid, globalPosition } = decodePosition(after);
    const typed = options.types && options.types.length > 0;
    const r = await this.pool.query(
      `SELECT ${EVENT_COLUMNS} FROM es_events
       WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         AND (transaction_id, global_position) > ($1::xid8, $2::bigint)
         ${typed ? 'AND event_type = ANY($4::text[])' : ''}
       ORDER BY es_events.transaction_id, es_events.global_position
       LIMIT $3`,
      typed ? [txid, globalPosition, limit, options.types] : [txid, globalPosition, limit],
    );
    return (r.rows as EventRow[]).map(toStored);
  }

  async headPosition(): Promise<Position> {
    const r = await this.pool.query(
      `SELECT transaction_id::text, global_position::text FROM es_events
       WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY es_events.transaction_id DESC, es_events.global_position DESC LIMIT 1`,
    );
    return r.rowCount ? encodePosition(r.rows[0].transaction_id, r.rows[0].global_position) : START;
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
    // After a wake-up the new event can still be hidden behind an older open transaction (any
    // writer, a projection batch too): re-read every few ms for a while instead of waiting for the
    // slow poll, since that other transaction's commit sends no notification.
    let eagerUntil = 0;
    await this.ensureListener();
    while (!signal?.aborted && !this.closed) {
      const batch = await this.readShared(position, batchSize, options);
      for (const event of batch) {
        if (signal?.aborted) return;
        position = event.position;
        yield { kind: 'event', event };
      }
      if (batch.length === batchSize) continue;
      if (batch.length > 0 || !caughtUpAnnounced) {
        caughtUpAnnounced = true;
        yield { kind: 'caughtUp', position };
      }
      if (batch.length > 0) {
        eagerUntil = 0;
        continue;
      }
      await this.ensureListener();
      const eager = Date.now() < eagerUntil;
      const woke = await this.waitForWake(eager ? 3 : this.pollIntervalMs, signal);
      if (woke) eagerUntil = Date.now() + 300;
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
