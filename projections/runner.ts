// Runs projections: catch-up then live, one transaction per batch that applies the events and moves
// the checkpoint together (compare-and-set), so a crash anywhere never loses or doubles an event.
// Exactly one active runner per projection across processes: an advisory lock plus a heartbeat
// lease (lease.ts); the others stand by and take over when the holder goes away or freezes.
//
// An event the projection's own code keeps failing on (a poison event) must not hold the read model
// back: a failing batch is applied again one event at a time, the culprit is retried with backoff
// and then parked (parked.ts) in the transaction that moves the checkpoint past it. Operators retry
// it from the operations page; the active runner picks the request up. A lost connection is not
// poison: that restarts from the checkpoint.
import type { Redis } from 'ioredis';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import { LRUCache } from 'lru-cache';
import { moveCheckpoint, readCheckpoint } from '../services/consumers/checkpoints.js';
import {
  type ConsumerRunnerOptions,
  consumeLog,
  consumerPool,
  sleep,
} from '../services/consumers/consume.js';
import {
  DEFAULT_LEASE,
  ensureConsumerTables,
  lockKey,
  superviseConsumer,
} from '../services/consumers/lease.js';
import { claimRetry, parkEvent, retryFailed, retryRequests } from '../services/consumers/parked.js';
import {
  ConsumerCodeError,
  DEFAULT_RETRY,
  isPoison,
  type RetryPolicy,
  retryDelay,
} from '../services/consumers/poison.js';
import type { Position, StoredEvent } from '../services/eventstore/port.js';
import { START } from '../services/eventstore/port.js';
import { BatchWrites } from './batch-writes.js';
import type { Database } from './database.js';
import type { AnyProjection, ChangeNotice, ProjectionContext, ProjectionMemory } from './projection.js';
import { ChangePublisher } from './publisher.js';
import { lockTables, rebuildProjection } from './rebuild.js';

export { lockKey };

export interface RunnerOptions extends ConsumerRunnerOptions {
  projections: AnyProjection[];
  redis: Redis;
  prefix: string;
  /**
   * Fault injection for tests: called at each step of a batch; throwing there (or killing the
   * connection through `trx`) simulates a crash at that point.
   */
  faults?: (point: FaultPoint, trx?: Kysely<Database>) => void | Promise<void>;
}

/** 'checkpoint:moved' only where a batch's writes go as a transaction (batch-writes.ts). */
export type FaultPoint = 'batch:start' | 'checkpoint:moved' | 'batch:applied' | 'batch:committed';

/** Rows a live projection remembers between batches (it is their only writer), per projection. */
const LIVE_MEMORY_ROWS = 10_000;

/** One projection's live run: its batch writer and what it remembers of its rows. */
interface LiveRun {
  writes: BatchWrites;
  memory: ProjectionMemory & { complete: false };
}

export class ProjectionRunner {
  private readonly db: Kysely<Database>;
  /** Batches and their checkpoints: commits that need not wait for the WAL flush (consumerPool). */
  private readonly batches: Kysely<Database>;
  private readonly batchPool: ReturnType<typeof consumerPool>;
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly retry: RetryPolicy;
  private readonly publisher: ChangePublisher;
  /** Names of the projections this runner is actively applying (the others it stands by for). */
  readonly active = new Set<string>();

  constructor(private readonly opts: RunnerOptions) {
    this.db = new Kysely({ dialect: new PostgresDialect({ pool: opts.pool }) });
    this.batchPool = consumerPool(opts.pool, opts.log);
    this.batches = new Kysely({ dialect: new PostgresDialect({ pool: this.batchPool }) });
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.publisher = new ChangePublisher(opts.redis, opts.prefix, opts.log);
  }

  async start() {
    await ensureConsumerTables(this.db);
    const lease = {
      ...DEFAULT_LEASE,
      ...this.opts.lease,
      standbyRetryMs: this.opts.standbyRetryMs ?? DEFAULT_LEASE.standbyRetryMs,
    };
    for (const p of this.opts.projections)
      this.loops.push(
        superviseConsumer({
          name: p.name,
          kind: 'projection',
          pool: this.opts.pool,
          log: this.opts.log,
          signal: this.abort.signal,
          lease,
          restartDelayMs: this.opts.restartDelayMs ?? 500,
          onActive: (on) => (on ? this.active.add(p.name) : this.active.delete(p.name)),
          run: (signal, lockLost) => this.run(p, signal, lockLost),
        }),
      );
  }

  private async run(p: AnyProjection, signal: AbortSignal, lockLost: () => boolean) {
    let checkpoint = await readCheckpoint(this.db, p.name);
    if (!checkpoint || checkpoint.version !== p.version) {
      this.opts.log.info(
        { projection: p.name, from: checkpoint?.version ?? null, to: p.version },
        'rebuilding projection',
      );
      await rebuildProjection(this.db, this.opts.store, p, { batchSize: this.opts.batchSize });
      checkpoint = await readCheckpoint(this.db, p.name);
    }
    const position: Position = checkpoint?.position ?? START;
    const batchSize = this.opts.batchSize ?? 500;
    // Per run: a restart (lost lock, a rebuild's swap, any failure) starts with nothing remembered.
    const live: LiveRun = {
      writes: new BatchWrites(this.batchPool, this.batches),
      memory: { rows: new LRUCache<string | number, object>({ max: LIVE_MEMORY_ROWS }), complete: false },
    };
    await consumeLog({
      store: this.opts.store,
      opens: (e) => p.handles.includes(e.type) && (p.readsPersonal?.(e) ?? true),
      after: position,
      batchSize,
      signal,
      lockLost,
      handleBatch: (from, events) => this.applyBatch(p, live, from, events, signal),
      // Over batches that wrote nothing: the tables' stamp stays (answers kept on them stay valid).
      writeCheckpoint: (from, to) => moveCheckpoint(this.batches, p.name, from, to, { wrote: false }),
      onFlushError: (err) =>
        this.opts.log.warn({ projection: p.name, err: String(err) }, 'moving the checkpoint failed'),
      retryParked: () => this.retryParked(p, signal, live),
      retryPollMs: this.opts.retryPollMs ?? 1000,
      onRetryError: (err) =>
        this.opts.log.warn({ projection: p.name, err: String(err) }, 'retrying parked events failed'),
    });
  }

  /** The projection's own code on events, its errors marked as such (the candidates for parking). */
  private async applyEvents(
    p: AnyProjection,
    trx: Transaction<Database>,
    events: StoredEvent[],
    ctx: ProjectionContext,
  ) {
    if (events.length === 0) return;
    try {
      if (p.applyBatch) await p.applyBatch(trx, events, ctx);
      else for (const e of events) await p.apply(trx, e, ctx);
    } catch (err) {
      throw new ConsumerCodeError(err);
    }
  }

  /**
   * Applies a batch and moves the checkpoint from `from`, atomically (one statement: batch-writes.ts);
   * publishes after commit. A batch with no event the projection handles writes nothing (null:
   * consumeLog moves the checkpoint a little later), but its position is still published for
   * read-your-writes waiters.
   */
  private async applyBatch(
    p: AnyProjection,
    live: LiveRun,
    from: Position,
    events: StoredEvent[],
    signal: AbortSignal = this.abort.signal,
  ): Promise<Position | null> {
    const to = events[events.length - 1].position;
    const notices: ChangeNotice[] = [];
    const ctx: ProjectionContext = {
      schema: 'public',
      notify: (n: ChangeNotice) => notices.push(n),
      memory: live.memory,
    };
    const fault = this.opts.faults;
    await fault?.('batch:start');
    const handled = events.filter((e) => p.handles.includes(e.type));
    if (handled.length === 0) {
      this.publish(p, notices, to, false);
      return null;
    }
    try {
      if (p.applyBatch) {
        // Its reads come before its writes (the contract of applyBatch): the writes can wait.
        await live.writes.collect((trx) => this.applyEvents(p, trx, handled, ctx));
        await fault?.('batch:applied', live.writes.db);
        await live.writes.commit(p.name, from, to, async (trx) => {
          await fault?.('checkpoint:moved', trx);
        });
      } else {
        // Event by event, each may read what the one before wrote: a transaction.
        // Tables before the checkpoint row, as everywhere (see rebuild.ts): the move comes last.
        await this.batches.transaction().execute(async (trx) => {
          await this.applyEvents(p, trx, handled, ctx);
          await fault?.('batch:applied', trx);
          await moveCheckpoint(trx, p.name, from, to);
          await fault?.('checkpoint:moved', trx);
        });
      }
    } catch (err) {
      // What the batch put in memory never reached the tables (or may not have): forget it all.
      live.memory.rows.clear();
      if (!isPoison(err)) throw err;
      // Nothing was written: find the culprit one event at a time; the others are applied as usual.
      notices.length = 0;
      await this.applyOneByOne(p, from, events, notices, signal);
    }
    await fault?.('batch:committed');
    this.publish(p, notices, to);
    return to;
  }

  private publish(p: AnyProjection, notices: ChangeNotice[], to: Position, wrote = true) {
    // Fire and forget, coalesced with the other projections' batches (publisher.ts).
    this.publisher.publish(p.name, notices, to, wrote);
  }

  private async applyOneByOne(
    p: AnyProjection,
    from: Position,
    events: StoredEvent[],
    notices: ChangeNotice[],
    signal: AbortSignal,
  ) {
    let at = from;
    for (const e of events) {
      if (!p.handles.includes(e.type)) continue;
      at = await this.applyOrPark(p, at, e, notices, signal);
    }
    const to = events[events.length - 1].position;
    if (at !== to) await moveCheckpoint(this.batches, p.name, at, to);
  }

  /** One event in its own transaction, retried with backoff; parked with the checkpoint move at last. */
  private async applyOrPark(
    p: AnyProjection,
    from: Position,
    e: StoredEvent,
    notices: ChangeNotice[],
    signal: AbortSignal,
  ): Promise<Position> {
    for (let attempt = 1; ; attempt++) {
      const mine: ChangeNotice[] = [];
      try {
        await this.batches.transaction().execute(async (trx) => {
          await this.applyEvents(p, trx, [e], { schema: 'public', notify: (n) => mine.push(n) });
          await moveCheckpoint(trx, p.name, from, e.position);
        });
        notices.push(...mine);
        return e.position;
      } catch (err) {
        if (!isPoison(err)) throw err;
        if (attempt === 1)
          this.opts.log.warn(
            { projection: p.name, eventType: e.type, position: e.position },
            'projection failed on an event; retrying it',
          );
        if (attempt >= this.retry.attempts) {
          await this.batches.transaction().execute(async (trx) => {
            await moveCheckpoint(trx, p.name, from, e.position);
            await parkEvent(trx, p.name, e, err.error, attempt);
          });
          // The error text is in the parked row; the log names only the event.
          this.opts.log.error(
            { projection: p.name, eventType: e.type, position: e.position, attempts: attempt },
            'event parked after repeated failures; retry it from the operations page after a fix',
          );
          return e.position;
        }
        await sleep(retryDelay(this.retry, attempt), signal);
        if (signal.aborted) throw new Error('stopped while retrying an event');
      }
    }
  }

  /** Applies the parked events operators asked to retry: applied and unparked together, or kept. */
  private async retryParked(p: AnyProjection, signal: AbortSignal, live: LiveRun) {
    const requests = await retryRequests(this.db, p.name);
    // A retried event changes rows behind the live run's memory.
    if (requests.length > 0) live.memory.rows.clear();
    for (const r of requests) {
      if (signal.aborted) return; // stopped, or the lock is lost: the next active runner does it
      const { events } = await this.opts.store.readStream(r.streamId, {
        fromVersion: r.streamVersion,
        maxCount: 1,
      });
      const e = events[0];
      if (!e || e.id !== r.eventId) {
        await retryFailed(this.db, p.name, r.eventId, new Error('the event is no longer in its stream'));
        continue;
      }
      const notices: ChangeNotice[] = [];
      let applied = false;
      try {
        await this.db.transaction().execute(async (trx) => {
          // The tables, then the checkpoint row, as batches and rebuild swaps take them: one writer at
          // a time, and no deadlock with a swap.
          await lockTables(trx, p, 'ROW EXCLUSIVE');
          await sql`SELECT 1 FROM projection_checkpoints WHERE name = ${p.name} FOR UPDATE`.execute(trx);
          // Gone already (another runner took the request): nothing to apply.
          if (!(await claimRetry(trx, p.name, e.id))) return;
          if (p.handles.includes(e.type))
            await this.applyEvents(p, trx, [e], { schema: 'public', notify: (n) => notices.push(n) });
          // The tables changed behind the checkpoint: its stamp says so to answers kept on it
          // (services/app/read-cache.ts).
          await sql`UPDATE projection_checkpoints
            SET updated_at = greatest(clock_timestamp(), updated_at + interval '1 microsecond')
            WHERE name = ${p.name}`.execute(trx);
          applied = true;
        });
      } catch (err) {
        if (!isPoison(err)) throw err;
        await retryFailed(this.db, p.name, e.id, err.error);
        this.opts.log.warn(
          { projection: p.name, eventType: e.type, position: e.position },
          'parked event failed again on retry',
        );
        continue;
      }
      if (!applied) continue;
      this.opts.log.info(
        { projection: p.name, eventType: e.type, position: e.position },
        'parked event applied',
      );
      if (notices.length)
        void this.opts.redis.publish(`${this.opts.prefix}:changes`, JSON.stringify(notices)).catch(() => {});
    }
  }

  async stop() {
    // Aborting ends the runs and their lock connections, which releases the locks at once.
    this.abort.abort();
    await Promise.allSettled(this.loops);
    this.publisher.flush();
    await this.batchPool.end().catch(() => {});
  }
}
