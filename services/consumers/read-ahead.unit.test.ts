// The read-ahead's stages overlap, keep the log's order, and pass failures on.
import { describe, expect, it } from 'vitest';
import type { EventStore, StoredEvent } from '../eventstore/port.js';
import { START } from '../eventstore/port.js';
import { prefetched, readAhead } from './read-ahead.js';

const event = (n: number): StoredEvent => ({
  id: `e${n}`,
  type: n % 2 ? 'Odd' : 'Even',
  schemaVersion: 1,
  streamId: 's',
  streamVersion: n,
  position: String(n).padStart(4, '0'),
  data: { n },
  metadata: {},
  createdAt: new Date(0),
});

/** A log of `total` events whose reads and openings are recorded, each taking a few milliseconds. */
function fakeStore(total: number, opts: { failOpenAt?: number } = {}) {
  const log: string[] = [];
  const all = Array.from({ length: total }, (_, i) => event(i + 1));
  const store = {
    async readAll(after: string, limit: number, options: { types?: readonly string[]; sealed?: boolean }) {
      const batch = all
        .filter(
          (e) =>
            (after === START || e.position > after) && (!options.types || options.types.includes(e.type)),
        )
        .slice(0, limit);
      log.push(`read ${batch[0]?.streamVersion ?? 'end'}${options.sealed ? ' sealed' : ''}`);
      await new Promise((r) => setTimeout(r, 5));
      return batch;
    },
    async openSealed(events: StoredEvent[]) {
      log.push(`open ${events[0].streamVersion}`);
      if (events[0].streamVersion === opts.failOpenAt) throw new Error('cannot open');
      await new Promise((r) => setTimeout(r, 5));
    },
  } as unknown as EventStore;
  return { store, log };
}

describe('readAhead', () => {
  it('reads the next batch and opens the one after while the caller applies, in log order', async () => {
    const { store, log } = fakeStore(10);
    const seen: number[] = [];
    for await (const batch of readAhead(store, START, 2)) {
      log.push(`apply ${batch[0].streamVersion}`);
      seen.push(...batch.map((e) => e.streamVersion));
      await new Promise((r) => setTimeout(r, 20));
      log.push(`applied ${batch[0].streamVersion}`);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Read sealed; while batch 1 (events 1–2) is being applied, 3–4 are opened and 5–6 read.
    expect(log[0]).toBe('read 1 sealed');
    expect(log.indexOf('open 3')).toBeLessThan(log.indexOf('applied 1'));
    expect(log.indexOf('read 5 sealed')).toBeLessThan(log.indexOf('applied 1'));
    // Each batch is opened before it is applied, and openings keep the log's order.
    const opens = log.filter((l) => l.startsWith('open')).map((l) => Number(l.split(' ')[1]));
    expect(opens).toEqual([1, 3, 5, 7, 9]);
    for (const n of [1, 3, 5, 7, 9]) expect(log.indexOf(`open ${n}`)).toBeLessThan(log.indexOf(`apply ${n}`));
  });

  it('reads only the given types', async () => {
    const { store } = fakeStore(10);
    const seen: number[] = [];
    for await (const batch of readAhead(store, START, 3, ['Even']))
      seen.push(...batch.map((e) => e.streamVersion));
    expect(seen).toEqual([2, 4, 6, 8, 10]);
  });

  it('hands an opening failure to the caller after the batches before it', async () => {
    const { store } = fakeStore(10, { failOpenAt: 5 });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const batch of readAhead(store, START, 2)) seen.push(batch[0].streamVersion);
      })(),
    ).rejects.toThrow('cannot open');
    expect(seen).toEqual([1, 3]);
  });

  it('stops pulling from its source when the caller stops early', async () => {
    let pulled = 0;
    let returned = false;
    async function* source() {
      try {
        for (let i = 0; i < 100; i++) {
          pulled++;
          yield i;
        }
      } finally {
        returned = true;
      }
    }
    for await (const i of prefetched(source())) if (i === 2) break;
    await new Promise((r) => setTimeout(r, 10));
    expect(returned).toBe(true);
    // The one in flight when the caller stopped, and no more.
    expect(pulled).toBe(4);
  });
});
