// The loop every consumer of the log runs (projections, process managers): batches from its
// position, handled one at a time, with an operator's retries of parked events run between batches
// (never interleaved with one), until the signal ends it or the lock is lost.
import type pg from 'pg';
import type { EventStore, Position, StoredEvent } from '../eventstore/port.js';
import { createPool, GENERIC_PLANS } from '../shared/db.js';
import type { Logger } from '../shared/log.js';
import type { LeaseOptions } from './lease.js';
import type { RetryPolicy } from './poison.js';

/** What every runner of log consumers takes (projections, process managers). */
export interface ConsumerRunnerOptions {
  pool: pg.Pool;
  store: EventStore;
  log: Logger;
  batchSize?: number;
  /** How often a standby tries to take the lock (ms). */
  standbyRetryMs?: number;
  /** Pause before starting over from the checkpoint after a failure (ms). */
  restartDelayMs?: number;
  /** Tries of an event the consumer fails on before it is parked (default 3, 100 ms → 1 s). */
  retry?: Partial<RetryPolicy>;
  /** Heartbeat and staleness of the active runner's lease (default every 0.5 s, stale after 2.5 s). */
  lease?: Partial<Omit<LeaseOptions, 'standbyRetryMs'>>;
  /** How often the active runner looks for retries operators asked for (ms, default 1000). */
  retryPollMs?: number;
}

/**
 * Connections for the consumers' own transactions (read-model rows, checkpoints, parked events):
 * all of it can be built again from the log, so a commit need not wait for its WAL flush
 * (`synchronous_commit = off`). A crash of Postgres then loses at most the last fraction of a second
 * of them, rows and checkpoint together, and the consumer applies those events again; the events
 * themselves are appended on other connections, durably. Saves a flush per batch per consumer.
 */
export function consumerPool(pool: pg.Pool, log: Logger, max = 3): pg.Pool {
  const { options: _own, ...base } = pool.options as pg.PoolConfig & { options?: string };
  // A connection that dies fails its query and the consumer restarts from its checkpoint.
  return createPool({ ...base, max, options: `${GENERIC_PLANS} -c synchronous_commit=off` }, (err) =>
    log.warn({ err: err.message }, 'consumer connection lost'),
  );
}

/** How long a checkpoint that only passed events the consumer ignores may stay unwritten (ms). */
export const CHECKPOINT_FLUSH_MS = 250;

// The lease waits the same way; the wait lives there, below this file (lease.ts).
export { sleep } from './lease.js';

export interface ConsumeOptions {
  store: EventStore;
  /** The events whose personal fields the consumer reads (SubscribeOptions.opens). */
  opens?: (event: StoredEvent) => boolean;
  after: Position;
  batchSize: number;
  signal: AbortSignal;
  /** True once the consumer's lock connection is gone: another runner may be taking over. */
  lockLost(): boolean;
  /**
   * Handles one batch from the stored checkpoint `from` (which may lag behind the batch's first
   * event: see `writeCheckpoint`): the position it stored, or null when the batch needed no write
   * (no event the consumer reacts to), leaving the checkpoint at `from` for now.
   */
  handleBatch(from: Position, events: StoredEvent[]): Promise<Position | null>;
  /**
   * Moves the stored checkpoint over batches that needed no write, at most CHECKPOINT_FLUSH_MS after
   * them: at 100 commands/s most batches of a process manager react to nothing, and a write each is
   * a transaction each. Losing it in a crash only means reading those events again.
   */
  writeCheckpoint(from: Position, to: Position): Promise<void>;
  /** Applies the parked events an operator asked to retry. */
  retryParked(): Promise<void>;
  retryPollMs: number;
  onRetryError(err: unknown): void;
  /** A deferred checkpoint write failed (a rebuild moved it, or the connection went): logged. */
  onFlushError(err: unknown): void;
}

export async function consumeLog(o: ConsumeOptions): Promise<void> {
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn);
    tail = next.catch(() => {});
    return next;
  };
  let polling = false;
  const retries = setInterval(() => {
    if (polling || o.signal.aborted) return;
    polling = true;
    exclusive(o.retryParked)
      .catch(o.onRetryError)
      .finally(() => {
        polling = false;
      });
  }, o.retryPollMs);
  /** Where the consumer has read to, and where its stored checkpoint is. */
  let position = o.after;
  let stored = o.after;
  let flushTimer: NodeJS.Timeout | null = null;
  const flushLater = () => {
    if (flushTimer) return;
    flushTimer = setTimeout(() => {
      flushTimer = null;
      if (o.signal.aborted) return;
      exclusive(async () => {
        if (stored === position) return;
        const to = position;
        await o.writeCheckpoint(stored, to);
        stored = to;
      }).catch(o.onFlushError);
    }, CHECKPOINT_FLUSH_MS);
  };
  try {
    let buffer: StoredEvent[] = [];
    for await (const msg of o.store.subscribe({
      after: position,
      opens: o.opens,
      signal: o.signal,
      batchSize: o.batchSize,
    })) {
      if (o.lockLost()) throw new Error('advisory lock connection lost');
      if (msg.kind === 'event') buffer.push(msg.event);
      if (buffer.length > 0 && (buffer.length >= o.batchSize || msg.kind === 'caughtUp')) {
        const events = buffer;
        const to = events[events.length - 1].position;
        buffer = [];
        await exclusive(async () => {
          const written = await o.handleBatch(stored, events);
          if (written !== null) stored = written;
        });
        position = to;
        if (stored !== position) flushLater();
      }
    }
  } finally {
    clearInterval(retries);
    if (flushTimer) clearTimeout(flushTimer);
  }
}
