// sharedRead: the subscribers of one notice share one read; another notice reads again.
import { describe, expect, it } from 'vitest';
import type { ChangeNotice } from '../../projections/projection.js';
import { createLiveBus, seedSharedRead, sharedRead } from './live.js';

const notice = (id: string): ChangeNotice => ({ topic: 'user', id, data: { type: 'UserRoleChanged' } });

describe('sharedRead', () => {
  it('reads once for every subscriber of the same notice and key', async () => {
    let reads = 0;
    const n = notice('7');
    const read = async () => {
      reads++;
      return { id: 7, reads };
    };
    const results = await Promise.all(Array.from({ length: 5 }, () => sharedRead(n, 'user', read)));
    expect(reads).toBe(1);
    expect(results.every((r) => r === results[0])).toBe(true);
    await sharedRead(n, 'other', read);
    expect(reads).toBe(2);
  });

  it('reads again for the next notice, even of the same user', async () => {
    let reads = 0;
    const read = async () => ++reads;
    expect(await sharedRead(notice('7'), 'user', read)).toBe(1);
    expect(await sharedRead(notice('7'), 'user', read)).toBe(2);
  });

  it('does not keep a failed read: the next subscriber tries again', async () => {
    const n = notice('8');
    let calls = 0;
    const read = async () => {
      calls++;
      if (calls === 1) throw new Error('connection lost');
      return 'row';
    };
    await expect(sharedRead(n, 'user', read)).rejects.toThrow('connection lost');
    expect(await sharedRead(n, 'user', read)).toBe('row');
  });
});

describe('the live fan-out', () => {
  const bus = () => {
    const handlers: Array<(ch: string, m: string) => void> = [];
    const redis = {
      on: (_: string, h: (ch: string, m: string) => void) => handlers.push(h),
      subscribe: async () => 1,
      unsubscribe: async () => 1,
      status: 'ready',
      once: () => {},
      off: () => {},
    };
    return createLiveBus(redis as never, 'p');
  };
  const change = (id: string, type: string): ChangeNotice => ({ topic: 'user', id, data: { type } });

  it('delivers every notice of a topic, and the notices of one id to its own subscribers', async () => {
    const live = await bus();
    const all = live.subscribe('user')[Symbol.asyncIterator]();
    const seven = live.subscribe('user', '7')[Symbol.asyncIterator]();
    live.publishLocal(change('7', 'UserRoleChanged'));
    live.publishLocal(change('8', 'UserRoleChanged'));
    expect((await all.next()).value.id).toBe('7');
    expect((await all.next()).value.id).toBe('8');
    expect((await seven.next()).value.id).toBe('7');
    live.publishLocal(change('7', 'UserDeleted'));
    expect((await seven.next()).value.data.type).toBe('UserDeleted');
  });

  it('keeps only the newest untaken notice per record and type for a subscriber that lags', async () => {
    const live = await bus();
    const it = live.subscribe('user')[Symbol.asyncIterator]();
    const newest = change('7', 'UserProfileUpdated');
    live.publishLocal(change('7', 'UserProfileUpdated'));
    live.publishLocal(change('7', 'UserRoleChanged'));
    live.publishLocal(newest);
    const first = await it.next();
    expect(first.value).toBe(newest);
    expect((await it.next()).value.data.type).toBe('UserRoleChanged');
  });

  it('ends only the lagging stream, with an error, past its limit: the publisher never throws', async () => {
    const live = await bus();
    const slow = live.subscribe('user', undefined, { limit: 3 })[Symbol.asyncIterator]();
    const other = live.subscribe('user', undefined, { limit: 5000 })[Symbol.asyncIterator]();
    expect(() => {
      for (let i = 0; i < 2000; i++) live.publishLocal(change(String(i), 'UserRegistered'));
    }).not.toThrow();
    await expect(slow.next()).rejects.toThrow(/fell behind/);
    expect((await other.next()).value.id).toBe('0');
  });
});

describe('prefetching for clients', () => {
  it('hands onNotices what a client subscribes to, before delivery; resolvers then get the seeded read', async () => {
    const handlers: Array<(ch: string, m: string) => void> = [];
    const redis = {
      on: (_: string, h: (ch: string, m: string) => void) => handlers.push(h),
      subscribe: async () => 1,
      unsubscribe: async () => 1,
      status: 'ready',
      once: () => {},
      off: () => {},
    };
    const live = await createLiveBus(redis as never, 'p');
    const send = (ids: string[]) => {
      const message = JSON.stringify(
        ids.map((id) => ({ topic: 'user', id, data: { type: 'UserProfileUpdated' } })),
      );
      for (const h of handlers) h('p:changes', message);
    };
    const prefetched: string[][] = [];
    live.onNotices((notices) => {
      prefetched.push(notices.map((n) => n.id));
      for (const n of notices) seedSharedRead(n, 'user', Promise.resolve(`row ${n.id}`));
    });
    // The gateway's own listener does not count: nothing is read for it.
    live.subscribe('user', undefined, { internal: true })[Symbol.asyncIterator]();
    send(['1']);
    expect(prefetched).toEqual([]);

    const client = live.subscribe('user', '2')[Symbol.asyncIterator]();
    send(['1', '2']);
    expect(prefetched).toEqual([['2']]);
    const next = await client.next();
    let reads = 0;
    const row = await sharedRead(next.value as ChangeNotice, 'user', async () => {
      reads++;
      return 'read again';
    });
    expect(row).toBe('row 2');
    expect(reads).toBe(0);
  });

  it('starts an offered read only when a subscriber asks, once for all of them', async () => {
    const notice: ChangeNotice = { topic: 'approval', id: 'a', data: {} };
    let started = 0;
    seedSharedRead(notice, 'approval', async () => {
      started++;
      return 'offered row';
    });
    expect(started).toBe(0);
    const own = async () => 'own read';
    expect(
      await Promise.all([sharedRead(notice, 'approval', own), sharedRead(notice, 'approval', own)]),
    ).toEqual(['offered row', 'offered row']);
    expect(started).toBe(1);
    // Nothing offered for another key: the subscriber's own read.
    expect(await sharedRead(notice, 'other', own)).toBe('own read');
  });
});
