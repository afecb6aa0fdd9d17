// Runs process managers on the log: for each, catch-up then live from its checkpoint (the row
// `pm:<name>` in projection_checkpoints), turning the events it handles into BullMQ jobs.
//
// - Exactly one active runner per process manager across processes (advisory lock + heartbeat
//   lease, services/consumers/lease.ts), the others on standby.
// - The checkpoint moves (compare-and-set) only after the batch's jobs were enqueued. A crash in
//   between replays the batch: the job ids derive from the events, so BullMQ adds nothing twice
//   (completed jobs are kept 7 days so that their ids still dedupe; the handlers are idempotent
//   besides, their outcome being a command whose id is the job id).
// - Redis down: the same batch is tried again with backoff until it goes through, logged once;
//   nothing is parked and nothing is lost.
// - `react` throwing on an event: retried with backoff, then parked (consumer `pm:<name>`) in the
//   transaction that moves the checkpoint; operators retry it from the operations page.
import { Queue } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../projections/database.js';
import { moveCheckpoint, readCheckpoint } from '../services/consumers/checkpoints.js';
import {
  type ConsumerRunnerOptions,
  consumeLog,
  consumerPool,
  sleep,
} from '../services/consumers/consume.js';
import { DEFAULT_LEASE, ensureConsumerTables, superviseConsumer } from '../services/consumers/lease.js';
import { parkEvent, retryFailed, retryRequests, unpark } from '../services/consumers/parked.js';
import {
  ConsumerCodeError,
  DEFAULT_RETRY,
  isPoison,
  type RetryPolicy,
  retryDelay,
} from '../services/consumers/poison.js';
import type { Position, StoredEvent } from '../services/eventstore/port.js';
import { START } from '../services/eventstore/port.js';
import { consumerName, type ProcessManager, type ReactionJob } from './process-manager.js';

/** How the jobs a process manager adds are kept and retried. */
export interface ReactionJobDefaults {
  /** Tries of a job before it is failed for good (kept for the operations page). */
  attempts: number;
  /** First pause between tries; exponential after. */
  backoffMs: number;
  /** Completed jobs are kept this long so that a replayed event's job id still dedupes. */
  keepCompletedSeconds: number;
  keepFailedSeconds: number;
  keepFailedCount: number;
}

export const REACTION_JOB_DEFAULTS: ReactionJobDefaults = {
  attempts: 5,
  backoffMs: 1000,
  keepCompletedSeconds: 7 * 86_400,
  keepFailedSeconds: 30 * 86_400,
  keepFailedCount: 10_000,
};

export interface ProcessManagerRunnerOptions extends ConsumerRunnerOptions {
  processManagers: ProcessManager[];
  /** BullMQ's Redis connection: `redisOptions(config.REDIS_URL)`. */
  connection: RedisOptions;
  /** Queue key prefix: `queuePrefix(config.REDIS_PREFIX)`. */
  prefix: string;
  /** An enqueue with no answer in this time counts as failed: Redis is down (ms, default 5000). */
  enqueueTimeoutMs?: number;
  /** Pauses between enqueue attempts while Redis is down (default 200 ms doubling to 5 s). */
  enqueueBackoff?: { firstDelayMs: number; maxDelayMs: number };
  jobs?: Partial<ReactionJobDefaults>;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis in ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export class ProcessManagerRunner {
  private readonly db: Kysely<Database>;
  /** Checkpoint moves and parked events: commits that need not wait for the WAL flush (consumerPool). */
  private readonly batches: Kysely<Database>;
  private readonly batchPool: ReturnType<typeof consumerPool>;
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly queues = new Map<string, Queue>();
  private readonly retry: RetryPolicy;
  private readonly jobs: ReactionJobDefaults;
  /** Since when enqueues fail (Redis down), to log the outage once and its end once. */
  private redisDownSince: number | null = null;
  /** Names (`pm:<name>`) of the process managers this runner is actively running. */
  readonly active = new Set<string>();

  constructor(private readonly opts: ProcessManagerRunnerOptions) {
    this.db = new Kysely({ dialect: new PostgresDialect({ pool: opts.pool }) });
    this.batchPool = consumerPool(opts.pool, opts.log, 2);
    this.batches = new Kysely({ dialect: new PostgresDialect({ pool: this.batchPool }) });
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.jobs = { ...REACTION_JOB_DEFAULTS, ...opts.jobs };
  }

  async start() {
    const names = this.opts.processManagers.map((pm) => pm.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw new Error(`Two process managers are named ${twice}`);
    if (this.opts.processManagers.length === 0) return;
    await ensureConsumerTables(this.db);
    const lease = {
      ...DEFAULT_LEASE,
      ...this.opts.lease,
      standbyRetryMs: this.opts.standbyRetryMs ?? DEFAULT_LEASE.standbyRetryMs,
    };
    for (const pm of this.opts.processManagers) {
      const name = consumerName(pm);
      this.loops.push(
        superviseConsumer({
          name,
          kind: 'processManager',
          pool: this.opts.pool,
          log: this.opts.log,
          signal: this.abort.signal,
          lease,
          restartDelayMs: this.opts.restartDelayMs ?? 500,
          onActive: (on) => (on ? this.active.add(name) : this.active.delete(name)),
          run: (signal, lockLost) => this.run(pm, signal, lockLost),
        }),
      );
    }
  }

  /** One Queue per queue name; commands fail at once while Redis is away, rather than queue up. */
  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, {
        connection: { ...this.opts.connection, enableOfflineQueue: false },
        prefix: this.opts.prefix,
      });
      // Connection errors surface as failed enqueues (logged once); the event must have a listener.
      q.on('error', () => {});
      this.queues.set(name, q);
    }
    return q;
  }

  private async position(pm: ProcessManager): Promise<Position> {
    const name = consumerName(pm);
    const found = await readCheckpoint(this.db, name);
    if (found) return found.position;
    const from = pm.startAt === 'now' ? await this.opts.store.headPosition() : START;
    await sql`INSERT INTO projection_checkpoints (name, position, version) VALUES (${name}, ${from}, 1)
      ON CONFLICT (name) DO NOTHING`.execute(this.db);
    return (await readCheckpoint(this.db, name))?.position ?? from;
  }

  private async run(pm: ProcessManager, signal: AbortSignal, lockLost: () => boolean) {
    const position = await this.position(pm);
    const batchSize = this.opts.batchSize ?? 200;
    await consumeLog({
      store: this.opts.store,
      opens: (e) => pm.handles.includes(e.type),
      after: position,
      batchSize,
      signal,
      lockLost,
      handleBatch: (from, events) => this.handleBatch(pm, from, events, signal),
      writeCheckpoint: (from, to) => moveCheckpoint(this.batches, consumerName(pm), from, to),
      onFlushError: (err) =>
        this.opts.log.warn({ processManager: pm.name, err: String(err) }, 'moving the checkpoint failed'),
      retryParked: () => this.retryParked(pm, signal),
      retryPollMs: this.opts.retryPollMs ?? 1000,
      onRetryError: (err) =>
        this.opts.log.warn({ processManager: pm.name, err: String(err) }, 'retrying parked events failed'),
    });
  }

  /**
   * Reacts to a batch, enqueues its jobs (waiting out Redis), then moves the checkpoint. A batch that
   * makes no job and parks nothing writes nothing (null: consumeLog moves the checkpoint later).
   */
  private async handleBatch(
    pm: ProcessManager,
    from: Position,
    events: StoredEvent[],
    signal: AbortSignal,
  ): Promise<Position | null> {
    const to = events[events.length - 1].position;
    const jobs: ReactionJob[] = [];
    const poisoned: Array<{ event: StoredEvent; error: unknown; attempts: number }> = [];
    for (const e of events) {
      if (!pm.handles.includes(e.type)) continue;
      const r = await this.react(pm, e, signal);
      if ('jobs' in r) jobs.push(...r.jobs);
      else poisoned.push({ event: e, ...r });
    }
    if (jobs.length === 0 && poisoned.length === 0) return null;
    await this.enqueue(jobs, signal);
    if (poisoned.length === 0) await moveCheckpoint(this.batches, consumerName(pm), from, to);
    else
      await this.batches.transaction().execute(async (trx) => {
        await moveCheckpoint(trx, consumerName(pm), from, to);
        for (const p of poisoned) await parkEvent(trx, consumerName(pm), p.event, p.error, p.attempts);
      });
    for (const p of poisoned)
      this.opts.log.error(
        {
          processManager: pm.name,
          eventType: p.event.type,
          position: p.event.position,
          attempts: p.attempts,
        },
        'event parked after repeated failures; retry it from the operations page after a fix',
      );
    return to;
  }

  /** `react` on one event, retried with backoff; the error after the last try. */
  private async react(
    pm: ProcessManager,
    e: StoredEvent,
    signal: AbortSignal,
  ): Promise<{ jobs: ReactionJob[] } | { error: unknown; attempts: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        try {
          return { jobs: pm.react(e) };
        } catch (err) {
          throw new ConsumerCodeError(err);
        }
      } catch (err) {
        if (!isPoison(err)) throw err;
        if (attempt >= this.retry.attempts) return { error: err.error, attempts: attempt };
        if (attempt === 1)
          this.opts.log.warn(
            { processManager: pm.name, eventType: e.type, position: e.position },
            'process manager failed on an event; retrying it',
          );
        await sleep(retryDelay(this.retry, attempt), signal);
        if (signal.aborted) throw new Error('stopped while retrying an event');
      }
    }
  }

  /** Adds the jobs, trying again with backoff until Redis takes them (or the runner stops). */
  private async enqueue(jobs: ReactionJob[], signal: AbortSignal) {
    if (jobs.length === 0) return;
    const byQueue = new Map<string, ReactionJob[]>();
    for (const j of jobs) byQueue.set(j.queue, [...(byQueue.get(j.queue) ?? []), j]);
    const backoff = this.opts.enqueueBackoff ?? { firstDelayMs: 200, maxDelayMs: 5000 };
    for (let failures = 0; ; failures++) {
      if (signal.aborted) throw new Error('stopped while waiting for Redis');
      try {
        await withTimeout(
          Promise.all(
            [...byQueue].map(([queue, list]) =>
              this.queue(queue).addBulk(
                list.map((j) => ({
                  name: j.name,
                  data: j.data,
                  opts: {
                    jobId: j.jobId,
                    delay: j.delayMs,
                    attempts: this.jobs.attempts,
                    backoff: { type: 'exponential', delay: this.jobs.backoffMs },
                    removeOnComplete: { age: this.jobs.keepCompletedSeconds },
                    removeOnFail: { age: this.jobs.keepFailedSeconds, count: this.jobs.keepFailedCount },
                  },
                })),
              ),
            ),
          ),
          this.opts.enqueueTimeoutMs ?? 5000,
        );
        if (this.redisDownSince !== null) {
          this.opts.log.info(
            { downForMs: Date.now() - this.redisDownSince },
            'Redis takes reaction jobs again; process managers catch up',
          );
          this.redisDownSince = null;
        }
        return;
      } catch (err) {
        if (this.redisDownSince === null) {
          this.redisDownSince = Date.now();
          this.opts.log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'cannot enqueue reaction jobs (Redis down?): process managers wait and retry; nothing is lost',
          );
        }
        await sleep(Math.min(backoff.maxDelayMs, backoff.firstDelayMs * 2 ** Math.min(failures, 20)), signal);
      }
    }
  }

  /** The parked events operators asked to retry: react, enqueue, unpark; or keep with the new error. */
  private async retryParked(pm: ProcessManager, signal: AbortSignal) {
    const consumer = consumerName(pm);
    for (const r of await retryRequests(this.db, consumer)) {
      const { events } = await this.opts.store.readStream(r.streamId, {
        fromVersion: r.streamVersion,
        maxCount: 1,
      });
      const e = events[0];
      if (!e || e.id !== r.eventId) {
        await retryFailed(this.db, consumer, r.eventId, new Error('the event is no longer in its stream'));
        continue;
      }
      let jobs: ReactionJob[];
      try {
        jobs = pm.react(e);
      } catch (err) {
        await retryFailed(this.db, consumer, e.id, err);
        this.opts.log.warn(
          { processManager: pm.name, eventType: e.type, position: e.position },
          'parked event failed again on retry',
        );
        continue;
      }
      // Enqueued before the row goes: a crash in between re-adds the same job ids on the next retry.
      await this.enqueue(jobs, signal);
      await unpark(this.db, consumer, e.id);
      this.opts.log.info(
        { processManager: pm.name, eventType: e.type, position: e.position },
        'parked event retried',
      );
    }
  }

  async stop() {
    this.abort.abort();
    await Promise.allSettled(this.loops);
    await this.batchPool.end().catch(() => {});
    // A Redis that is gone must not hold the stop.
    await Promise.allSettled([...this.queues.values()].map((q) => withTimeout(q.close(), 2000)));
  }
}
