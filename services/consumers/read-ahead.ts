// The log read in stages that overlap: while a rebuild applies one batch, the next is opened (its
// personal fields, on the privacy worker thread) and the one after that is read from Postgres. Read,
// open and apply each take a comparable time per batch, and one after the other the main thread sat
// idle for a third of a replay.
import type { EventStore, Position, StoredEvent } from '../eventstore/port.js';

/**
 * Pulls the next item of `source` while the caller handles the one it was given, so the source's
 * work overlaps the caller's. Ending early (break, throw) leaves the item in flight to finish alone.
 */
export async function* prefetched<T>(source: AsyncIterator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const item = await next;
      if (item.done) return;
      next = source.next();
      // Rejected while the caller still works on `item`: thrown at the next turn, or moot.
      next.catch(() => {});
      yield item.value;
    }
  } finally {
    // The source may be running (the pull in flight): it is told to stop once that settles.
    void next.then(
      () => source.return?.(),
      () => {},
    );
  }
}

/** Every batch of the log after `after` (only `types`, when given), as read, personal fields sealed. */
async function* sealedBatches(
  store: EventStore,
  after: Position,
  size: number,
  types: readonly string[] | undefined,
): AsyncGenerator<StoredEvent[]> {
  let position = after;
  for (;;) {
    const batch = await store.readAll(position, size, { types, sealed: store.openSealed !== undefined });
    if (batch.length === 0) return;
    position = batch[batch.length - 1].position;
    yield batch;
  }
}

/** The same batches, opened in log order, one batch ahead of the reads and one behind them. */
async function* openedBatches(source: AsyncIterable<StoredEvent[]>, store: EventStore) {
  for await (const batch of source) {
    await store.openSealed?.(batch);
    yield batch;
  }
}

/**
 * The log after `after` in batches of `size`, ready to apply: batch N+2 is being read and N+1
 * opened while the caller applies N.
 */
export function readAhead(
  store: EventStore,
  after: Position,
  size: number,
  types?: readonly string[],
): AsyncGenerator<StoredEvent[]> {
  const reads = prefetched(sealedBatches(store, after, size, types));
  return prefetched(openedBatches(reads, store)[Symbol.asyncIterator]());
}
