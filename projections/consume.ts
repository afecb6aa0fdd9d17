// The loop every consumer of the log runs (projections, process managers): batches from its
// position, handled one at a time, with an operator's retries of parked events run between batches
// (never interleaved with one), until the signal ends it or the lock is lost.
import type pg from 'pg';
import type { Logger } from '../services/app/context.js';
import type { EventStore, Position, StoredEvent } from '../services/eventstore/port.js';
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

export interface ConsumeOptions {
  store: EventStore;
  after: Position;
  batchSize: number;
  signal: AbortSignal;
  /** True once the consumer's lock connection is gone: another runner may be taking over. */
  lockLost(): boolean;
  /** Handles one batch and returns the position it reached (the checkpoint it moved to). */
  handleBatch(from: Position, events: StoredEvent[]): Promise<Position>;
  /** Applies the parked events an operator asked to retry. */
  retryParked(): Promise<void>;
  retryPollMs: number;
  onRetryError(err: unknown): void;
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
  let position = o.after;
  try {
    let buffer: StoredEvent[] = [];
    for await (const msg of o.store.subscribe({
      after: position,
      signal: o.signal,
      batchSize: o.batchSize,
    })) {
      if (o.lockLost()) throw new Error('advisory lock connection lost');
      if (msg.kind === 'event') buffer.push(msg.event);
      if (buffer.length > 0 && (buffer.length >= o.batchSize || msg.kind === 'caughtUp')) {
        const events = buffer;
        const from = position;
        position = await exclusive(() => o.handleBatch(from, events));
        buffer = [];
      }
    }
  } finally {
    clearInterval(retries);
  }
}
