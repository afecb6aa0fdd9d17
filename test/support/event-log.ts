// The whole log as a one-shot reader sees it, for tests that check what was appended. A read of the
// Postgres store stops short at its horizon while a transaction of any database on the cluster ends
// during the read (es_horizon in postgres-schema.ts): on a busy shared cluster one read, even a
// settling one, can miss the tail for a moment. So a test waits for the log it expects to be whole.
import type { EventStore, Position, StoredEvent } from '../../services/eventstore/port.js';

type Reader = Pick<EventStore, 'readAll'>;

/** Every event after `after`, paged, each page a settling read. May be short on a busy cluster. */
export async function readLog(store: Reader, after: Position = '', pageSize = 500): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const page = await store.readAll(after, pageSize, { settle: true });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1].position;
  }
}

/**
 * The log once it holds at least `atLeast` events (the caller knows how many it appended), read
 * again until it does (60 s at most): what a reader sees once the appends have committed.
 */
export async function readWholeLog(
  store: Reader,
  atLeast: number,
  options: { after?: Position; pageSize?: number } = {},
): Promise<StoredEvent[]> {
  // A loop of its own, not expect.poll: setup (beforeAll) reads the log too.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const log = await readLog(store, options.after ?? '', options.pageSize);
    if (log.length >= atLeast) return log;
    if (Date.now() > deadline)
      throw new Error(`the log holds ${log.length} event(s) after 60 s, not ${atLeast}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
