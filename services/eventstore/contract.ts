// The one contract both event store adapters pass (postgres.int.test.ts, kurrentdb.int.test.ts). Everything
// above the port relies on exactly these behaviours, so a new adapter is done when this passes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainHash, eventDigest } from './chain.js';
import {
  type EventStore,
  type NewEvent,
  type Position,
  type StoredEvent,
  WrongExpectedVersionError,
} from './port.js';

export interface ContractHarness {
  store: EventStore;
  cleanup(): Promise<void>;
}

export interface ContractOptions {
  /** Events per writer in the concurrent-writers test (8 writers). */
  eventsPerWriter?: number;
}

const ev = (type: string, data: unknown = {}, extra: Partial<NewEvent> = {}): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  ...extra,
});

/** A stream id no other test (or earlier run against a shared server) has used. */
const fresh = (prefix = 'contract') => `${prefix}-${randomUUID()}`;

/**
 * Follows the log from `after` until `until` holds, or 20 s have passed: since the start, or since
 * `from` settled (a load that takes its own time: 16,000 appends once took longer than 20 s on a slow
 * host, and the subscriber was stopped short while it was still keeping up).
 */
async function collect(
  store: EventStore,
  after: Position,
  until: (seen: StoredEvent[]) => boolean,
  from: Promise<unknown> = Promise.resolve(),
) {
  const abort = new AbortController();
  const seen: StoredEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  void from.finally(() => {
    if (!abort.signal.aborted) timer = setTimeout(() => abort.abort(), 20_000);
  });
  try {
    for await (const message of store.subscribe({ after, signal: abort.signal })) {
      if (message.kind === 'event') seen.push(message.event);
      if (until(seen)) break;
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return seen;
}

export function eventStoreContract(
  name: string,
  start: () => Promise<ContractHarness>,
  options: ContractOptions = {},
) {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    let harness: ContractHarness;

    beforeAll(async () => {
      harness = await start();
      store = harness.store;
    });
    afterAll(async () => {
      await harness?.cleanup();
    });

    describe('appending and reading a stream', () => {
      it('creates a stream with no_stream and reads it back in order, 1-based', async () => {
        const id = fresh();
        const result = await store.append(id, [ev('A', { n: 1 }), ev('B', { n: 2 })], 'no_stream');
        expect(result.nextVersion).toBe(2);
        const { version, events } = await store.readStream(id);
        expect(version).toBe(2);
        expect(events.map((e) => [e.type, e.streamVersion, e.data])).toEqual([
          ['A', 1, { n: 1 }],
          ['B', 2, { n: 2 }],
        ]);
        expect(events[0].position < events[1].position).toBe(true);
        expect(events[0].streamId).toBe(id);
        expect(events[0].createdAt).toBeInstanceOf(Date);
      });

      it('keeps numeric order past 9 events, in the stream and in the log (not text order)', async () => {
        const before = await store.headPosition();
        const id = fresh();
        const many = Array.from({ length: 12 }, (_, i) => ev(`E${i + 1}`));
        await store.append(id, many, 'no_stream');
        for (let i = 0; i < 3; i++) await store.append(id, [ev(`E${13 + i}`)], 12 + i);
        const expected = Array.from({ length: 15 }, (_, i) => `E${i + 1}`);
        const { events } = await store.readStream(id);
        expect(events.map((e) => e.type)).toEqual(expected);
        expect(events.map((e) => e.streamVersion)).toEqual(expected.map((_, i) => i + 1));
        const logged = (await store.readAll(before, 1000, { settle: true })).filter((e) => e.streamId === id);
        expect(logged.map((e) => e.type)).toEqual(expected);
        expect(
          (await store.readStream(id, { fromVersion: 9, maxCount: 3 })).events.map((e) => e.type),
        ).toEqual(['E9', 'E10', 'E11']);
      });

      it('reads a missing stream as version 0 with no events', async () => {
        expect(await store.readStream(fresh())).toEqual({ version: 0, events: [] });
      });

      it('keeps metadata and the schema version of each event', async () => {
        const id = fresh();
        const metadata = { commandId: 'c1', correlationId: 'k1', causationId: 'c0', userId: 'u1' };
        await store.append(id, [ev('A', { x: 'y' }, { metadata, schemaVersion: 3 })], 'no_stream');
        const [event] = (await store.readStream(id)).events;
        expect(event.metadata).toMatchObject(metadata);
        expect(event.schemaVersion).toBe(3);
      });

      it('defaults the schema version to 1', async () => {
        const id = fresh();
        await store.append(id, [ev('A')], 'any');
        expect((await store.readStream(id)).events[0].schemaVersion).toBe(1);
      });

      it('reads from a version with a maximum count', async () => {
        const id = fresh();
        await store.append(id, [ev('A'), ev('B'), ev('C'), ev('D')], 'no_stream');
        const { version, events } = await store.readStream(id, { fromVersion: 2, maxCount: 2 });
        expect(version).toBe(4);
        expect(events.map((e) => e.type)).toEqual(['B', 'C']);
      });
    });

    describe('tamper evidence', () => {
      it("chains each event's hash to the previous event of its stream, over the stored form", async () => {
        const id = fresh();
        await store.append(
          id,
          [ev('A', { n: 1 }), ev('B', { n: 2, nested: { z: 1, a: [true, null] } })],
          'no_stream',
        );
        await store.append(id, [ev('C', { n: 3 }, { metadata: { commandId: 'c9', userId: null } })], 2);
        await store.append(id, [ev('D')], 'any');
        const { events } = await store.readStream(id);
        let previous: Buffer | null = null;
        for (const e of events) {
          const expected = chainHash(previous, e.streamVersion, eventDigest(e));
          expect(e.hash).toBe(expected.toString('hex'));
          previous = expected;
        }
        // A different stream starts its own chain.
        const other = fresh();
        await store.append(other, [ev('A', { n: 1 })], 'no_stream');
        const [first] = (await store.readStream(other)).events;
        expect(first.hash).toBe(chainHash(null, 1, eventDigest(first)).toString('hex'));
      });
    });

    describe('optimistic concurrency', () => {
      it('appends at the expected version and refuses a stale one, naming the actual version', async () => {
        const id = fresh();
        await store.append(id, [ev('A')], 'no_stream');
        expect((await store.append(id, [ev('B')], 1)).nextVersion).toBe(2);
        const stale = await store.append(id, [ev('C')], 1).catch((e: unknown) => e);
        expect(stale).toBeInstanceOf(WrongExpectedVersionError);
        expect((stale as WrongExpectedVersionError).actual).toBe(2);
        expect((await store.readStream(id)).events.map((e) => e.type)).toEqual(['A', 'B']);
      });

      it('refuses no_stream on an existing stream and stream_exists on a missing one', async () => {
        const id = fresh();
        await store.append(id, [ev('A')], 'no_stream');
        await expect(store.append(id, [ev('B')], 'no_stream')).rejects.toBeInstanceOf(
          WrongExpectedVersionError,
        );
        await expect(store.append(fresh(), [ev('B')], 'stream_exists')).rejects.toBeInstanceOf(
          WrongExpectedVersionError,
        );
        expect((await store.append(id, [ev('C')], 'stream_exists')).nextVersion).toBe(2);
        expect((await store.append(id, [ev('D')], 'any')).nextVersion).toBe(3);
      });

      it('treats expected version 0 as no stream', async () => {
        const id = fresh();
        expect((await store.append(id, [ev('A')], 0)).nextVersion).toBe(1);
        await expect(store.append(id, [ev('B')], 0)).rejects.toBeInstanceOf(WrongExpectedVersionError);
      });

      it('lets exactly one of many racing writers win each version', async () => {
        const id = fresh();
        await store.append(id, [ev('Opened')], 'no_stream');
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => store.append(id, [ev('Raced', { i })], 1)),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results.filter((r) => r.status === 'rejected')) {
          expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
        }
        expect((await store.readStream(id)).version).toBe(2);
      });

      it('reads the version from the same state as the events, while others append', async () => {
        // Were the version read apart from the events, an append in between would let a decision on
        // the older events pass the expected-version check.
        const id = fresh();
        await store.append(id, [ev('E')], 'no_stream');
        let writing = true;
        const writer = (async () => {
          for (let n = 0; writing && n < 400; n++) await store.append(id, [ev('E')], 'any');
        })();
        const mismatches: string[] = [];
        try {
          for (let i = 0; i < 40; i++) {
            const whole = await store.readStream(id);
            const last = whole.events[whole.events.length - 1];
            if (whole.events.length !== whole.version || last?.streamVersion !== whole.version)
              mismatches.push(
                `version ${whole.version}, ${whole.events.length} events up to ${last?.streamVersion}`,
              );
            const from = Math.max(1, whole.version - 1);
            const tail = await store.readStream(id, { fromVersion: from });
            const tailLast = tail.events[tail.events.length - 1];
            if (tail.events[0]?.streamVersion !== from || tailLast?.streamVersion !== tail.version)
              mismatches.push(
                `from ${from}: version ${tail.version}, events up to ${tailLast?.streamVersion}`,
              );
          }
        } finally {
          writing = false;
          await writer;
        }
        expect(mismatches).toEqual([]);
      });
    });

    describe('idempotent re-append', () => {
      it('appending the same event ids again at the same place changes nothing', async () => {
        const id = fresh();
        const events = [ev('A'), ev('B')];
        const first = await store.append(id, events, 'no_stream');
        const again = await store.append(id, events, 'no_stream');
        expect(again.nextVersion).toBe(first.nextVersion);
        const { version, events: stored } = await store.readStream(id);
        expect(version).toBe(2);
        expect(stored.map((e) => e.id)).toEqual(events.map((e) => e.id));
      });

      it('also with expected version any', async () => {
        const id = fresh();
        const events = [ev('A')];
        await store.append(id, events, 'any');
        await store.append(id, events, 'any');
        expect((await store.readStream(id)).version).toBe(1);
      });
    });

    describe('the global log', () => {
      it('reads every stream in one total order, strictly after a position, in pages', async () => {
        const before = await store.headPosition();
        const a = fresh();
        const b = fresh();
        await store.append(a, [ev('A1')], 'no_stream');
        await store.append(b, [ev('B1')], 'no_stream');
        await store.append(a, [ev('A2')], 1);
        const mine = (await store.readAll(before, 1000, { settle: true })).filter(
          (e) => e.streamId === a || e.streamId === b,
        );
        expect(mine.map((e) => e.type)).toEqual(['A1', 'B1', 'A2']);
        const page = await store.readAll(mine[0].position, 1, { settle: true });
        expect(page).toHaveLength(1);
        expect(page[0].position > mine[0].position).toBe(true);
        // Polled: the head may stop short for a moment on a busy cluster, as a one-shot read may.
        await expect.poll(async () => (await store.headPosition()) >= mine[2].position).toBe(true);
      });

      it('filters by event type while still moving past the others', async () => {
        const before = await store.headPosition();
        const id = fresh();
        const marker = `Only${randomUUID().slice(0, 8)}`;
        await store.append(id, [ev('Other'), ev(marker), ev('Other'), ev(marker)], 'no_stream');
        // settle: a one-shot read on a busy cluster may stop short at the horizon for a moment.
        const only = await store.readAll(before, 1000, { types: [marker], settle: true });
        expect(only.map((e) => [e.type, e.streamVersion])).toEqual([
          [marker, 2],
          [marker, 4],
        ]);
      });

      it('starts empty-handed from the head: nothing after it', async () => {
        await store.append(fresh(), [ev('A')], 'no_stream');
        // Polled: a head that stopped short for a moment has the last append after it.
        await expect.poll(async () => store.readAll(await store.headPosition(), 10)).toEqual([]);
      });
    });

    describe('subscriptions', () => {
      it('catches up, says so, then delivers live appends', async () => {
        const before = await store.headPosition();
        const id = fresh();
        await store.append(id, [ev('Old')], 'no_stream');
        const abort = new AbortController();
        const seen: string[] = [];
        let caughtUp = false;
        const done = (async () => {
          for await (const m of store.subscribe({ after: before, signal: abort.signal })) {
            if (m.kind === 'caughtUp') caughtUp = true;
            if (m.kind === 'event' && m.event.streamId === id) {
              seen.push(`${m.event.type}${caughtUp ? '(live)' : ''}`);
              if (seen.length === 2) break;
            }
          }
        })();
        await expect.poll(() => caughtUp, { timeout: 10_000 }).toBe(true);
        await store.append(id, [ev('New')], 1);
        await done;
        abort.abort();
        expect(seen).toEqual(['Old', 'New(live)']);
      });

      it('ends when its signal aborts', async () => {
        const abort = new AbortController();
        const iterator = store.subscribe({ after: await store.headPosition(), signal: abort.signal });
        const finished = (async () => {
          for await (const _ of iterator) {
            /* waits for live events */
          }
          return 'ended';
        })();
        setTimeout(() => abort.abort(), 200);
        await expect(finished).resolves.toBe('ended');
      });

      it('8 concurrent writers: the subscriber gets every event exactly once, each stream in order, and never passes an uncommitted one', {
        timeout: 180_000,
      }, async () => {
        const perWriter = options.eventsPerWriter ?? 2_000;
        const writers = 8;
        const run = randomUUID().slice(0, 8);
        const before = await store.headPosition();
        const total = writers * perWriter;
        const isMine = (e: StoredEvent) => e.streamId.startsWith(`mix${run}`);

        // The subscriber follows from before the first write. Every delivered position must be
        // strictly greater than the last one: were it ever to move past an event not yet committed,
        // that event would later arrive behind it (or never), and this check would fail.
        let last: Position = before;
        let checked = 0;
        const outOfOrder: string[] = [];
        let mineSeen = 0;
        let written!: () => void;
        const allWritten = new Promise<void>((resolve) => {
          written = resolve;
        });
        const subscriber = collect(
          store,
          before,
          (seen) => {
            for (; checked < seen.length; checked++) {
              const e = seen[checked];
              if (!(e.position > last))
                outOfOrder.push(`${e.position} (${e.streamId}#${e.streamVersion}) after ${last}`);
              last = e.position;
              if (isMine(e)) mineSeen++;
            }
            return mineSeen >= total;
          },
          allWritten,
        );

        // Mixed streams: each writer spreads its events over 5 streams of its own and 3 shared
        // ones (shared appends use 'any', so they interleave with other writers).
        await Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            for (let i = 0; i < perWriter; i++) {
              const shared = i % 3 === 0;
              const stream = shared
                ? `mix${run}-shared${i % 9 === 0 ? 0 : i % 2}`
                : `mix${run}-w${w}s${i % 5}`;
              await store.append(stream, [ev('Mixed', { w, i })], 'any');
            }
          }),
        ).finally(written);

        const seen = await subscriber;
        const mine = seen.filter(isMine);
        // On a failure, say which events the subscriber never got and where they sit in the log
        // (this is how a skipped group append was diagnosed): nothing else here names them.
        if (mine.length !== total) {
          const all: StoredEvent[] = [];
          let at = before;
          for (;;) {
            const page = await store.readAll(at, 1000, { settle: true });
            if (!page.length) break;
            all.push(...page);
            at = page[page.length - 1].position;
          }
          const ids = new Set(seen.map((e) => e.id));
          const missing = all.filter((e) => !ids.has(e.id));
          console.error(
            'in the log',
            all.filter(isMine).length,
            'delivered',
            mine.length,
            'last delivered',
            last,
          );
          for (const m of missing) {
            const i = all.indexOf(m);
            console.error(
              'never delivered',
              m.position,
              m.streamId,
              m.streamVersion,
              m.createdAt.toISOString(),
              'prev',
              all[i - 1]?.position,
              ids.has(all[i - 1]?.id),
              'next',
              all[i + 1]?.position,
              ids.has(all[i + 1]?.id),
            );
          }
        }
        expect(outOfOrder).toEqual([]);
        expect(mine).toHaveLength(total);
        expect(new Set(mine.map((e) => e.id)).size).toBe(total);

        // Each stream in order: versions 1, 2, 3, … with no gap and no repeat.
        const versions = new Map<string, number>();
        let broken = 0;
        for (const e of mine) {
          const expected = (versions.get(e.streamId) ?? 0) + 1;
          if (e.streamVersion !== expected) broken++;
          versions.set(e.streamId, e.streamVersion);
        }
        expect(broken).toBe(0);
        // And each writer's own order holds inside its streams.
        for (let w = 0; w < writers; w++) {
          const idx = mine
            .filter((e) => (e.data as { w: number }).w === w && !e.streamId.includes('shared'))
            .map((e) => (e.data as { i: number }).i);
          expect(idx).toEqual([...idx].sort((x, y) => x - y));
        }
        // What the subscriber saw is what a fresh reader of the log sees.
        const reread: StoredEvent[] = [];
        let after: Position = before;
        for (;;) {
          const page = await store.readAll(after, 5000, { settle: true });
          if (page.length === 0) break;
          reread.push(...page.filter(isMine));
          after = page[page.length - 1].position;
        }
        expect(reread.map((e) => e.id)).toEqual(mine.map((e) => e.id));
      });
    });
  });
}
