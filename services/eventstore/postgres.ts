// Postgres event store: one append-only table with a gap-free global order.
//
// A sequence value is taken at insert, not at commit, so under concurrent writers position 11 can
// become visible before 10. Readers therefore order by (epoch, transaction_id, global_position) and
// only take rows below a horizon that no append still running can fall under (see HORIZON_SQL). Only
// transactions that append count: a transaction left open elsewhere (psql, a long report, a
// projection batch) no longer holds the log back. The epoch keeps the order growing across a
// logical restore (see init). Background: shared/reference/event-store.md.
import type pg from 'pg';
import { EVENT_STORE_SETUP_LOCK } from '../shared/advisory-locks.js';
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
import {
  type AppendRow,
  appendManyQuery,
  type PendingAppend,
  partsOf,
  STALE_HEAD_TRIES,
} from './postgres-append.js';
import { LogListener } from './postgres-listen.js';
import { type LogHolder, logHolder } from './postgres-maintenance.js';
import {
  EVENT_JSON,
  encodePosition,
  LOG_ORDER_SQL,
  logOrderSql,
  POSITION_SQL,
  positionParams,
  STREAM_EVENT_JSON,
  streamHeadSql,
  toStored,
} from './postgres-rows.js';
import { followRestore, SCHEMA_SQL } from './postgres-schema.js';
import { SharedReads } from './postgres-tail.js';
import type { TailWitness } from './tail-witness.js';

// The store's append lock: pg_advisory_xact_lock(APPEND_LOCK_CLASS, hashtext(stream)).
export { APPEND_LOCK_CLASS } from '../shared/advisory-locks.js';
export { appendManyQuery } from './postgres-append.js';
export type { LogHolder } from './postgres-maintenance.js';
export {
  decodePosition,
  encodePosition,
  LOG_ORDER_SQL,
  logOrderSql,
  POSITION_SQL,
  positionParams,
} from './postgres-rows.js';

/** Reads of a settling readAll or headPosition after the first (2, 7, 12, 17, 22 ms apart: 60 ms at most). */
const SETTLE_TRIES = 5;
/** The pause before a settling read's try number `tries` (from 0). */
const settlePause = (tries: number) => new Promise((r) => setTimeout(r, 2 + tries * 5));

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

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly listener: LogListener;
  private readonly reads: SharedReads;
  private closed = false;
  private readonly pollIntervalMs: number;
  private readonly groupCommit: boolean;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly pending: PendingAppend[] = [];
  private inFlight = 0;
  /** Told each stream's new last version after a commit (tail-witness.ts); none in tests that need none. */
  private witness: TailWitness | null = null;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.groupCommit = options.groupCommit ?? true;
    this.maxBatch = options.maxBatch ?? 1000;
    this.maxInFlight = options.maxInFlight ?? 1;
    this.listener = new LogListener(pool);
    this.reads = new SharedReads(this.listener, this.pollIntervalMs, (after, limit, o) =>
      this.readAllHeld(after, limit, o),
    );
  }

  async init(): Promise<void> {
    // Advisory lock: several processes may start at once and CREATE ... IF NOT EXISTS is not race-free.
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [EVENT_STORE_SETUP_LOCK]);
      await client.query(SCHEMA_SQL);
      await followRestore(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [EVENT_STORE_SETUP_LOCK]).catch(() => {});
      client.release();
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
    let parts: PendingAppend['parts'];
    try {
      parts = events.map((e) => partsOf(streamId, e));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ streamId, events, expected, parts, resolve, reject });
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
    p: Pick<PendingAppend, 'streamId' | 'events' | 'expected' | 'parts'>,
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

  /** The log's end is witnessed outside the database from now on (tail-witness.ts). */
  witnessTail(witness: TailWitness | null): void {
    this.witness = witness;
  }

  /** No row: the expected version did not hold — unless these very events are already there. */
  private async settle(
    p: Pick<PendingAppend, 'streamId' | 'events' | 'expected'>,
    row: AppendRow | null,
  ): Promise<AppendResult> {
    if (row) {
      const nextVersion = Number(row.stream_version);
      this.witness?.committed([[p.streamId, nextVersion]]);
      return { nextVersion, position: encodePosition(row.epoch, row.transaction_id, row.global_position) };
    }
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
   * The oldest transaction that holds back readers now (see logHolder in postgres-maintenance.ts).
   */
  logHolder(): Promise<LogHolder | null> {
    return logHolder(this.pool);
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
    await this.listener.ensure();
    while (!signal?.aborted && !this.closed) {
      const wakesBefore = this.listener.wakes;
      const sentSince = caughtUpAnnounced ? undefined : began;
      const { events: batch, held } =
        options.types && options.types.length > 0
          ? await this.reads.readShared(position, batchSize, options, sentSince)
          : await this.reads.readTail(position, batchSize, sentSince);
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
      if (this.listener.wakes !== wakesBefore) {
        heldDelay = 0;
        continue;
      }
      await this.listener.ensure();
      if (held) {
        heldDelay = heldDelay === 0 ? 3 : Math.min(heldDelay * 2, this.pollIntervalMs);
        await this.listener.waitForWake(heldDelay, signal);
        continue;
      }
      heldDelay = 0;
      await this.listener.waitForWake(this.pollIntervalMs, signal);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener.close();
  }
}
