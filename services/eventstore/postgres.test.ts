// The Postgres adapter: the shared contract, plus what only Postgres can get wrong — a transaction
// that commits late must hold readers back, and a lost notification must not stall a subscriber.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { eventStoreContract } from './contract.js';
import { PostgresEventStore } from './postgres.js';

eventStoreContract('postgres', async () => {
  const db = await createTestDatabase('escontract', 20);
  const store = new PostgresEventStore(db.pool);
  await store.init();
  return {
    store,
    async cleanup() {
      await store.close();
      await db.drop();
    },
  };
});

describe('postgres event store: ordering under open transactions', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  beforeAll(async () => {
    db = await createTestDatabase('esorder', 10);
    store = new PostgresEventStore(db.pool, { pollIntervalMs: 100 });
    await store.init();
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('does not let readers pass an event whose transaction is still open, then delivers it first', async () => {
    const before = await store.headPosition();
    const slow = await db.pool.connect();
    try {
      await slow.query('BEGIN');
      // Takes its sequence number now, commits later.
      await slow.query(
        `INSERT INTO es_events(stream_id, stream_version, event_id, event_type, data)
         VALUES ($1, 1, $2, 'Slow', '{}')`,
        [`slow-${randomUUID()}`, randomUUID()],
      );
      const fast = `fast-${randomUUID()}`;
      await store.append(fast, [{ id: randomUUID(), type: 'Fast', data: {} }], 'no_stream');
      // The fast event is committed, but a reader must not move past the open transaction.
      expect(await store.readAll(before, 100)).toEqual([]);
      expect(await store.headPosition()).toBe(before);
      await slow.query('COMMIT');
    } finally {
      slow.release();
    }
    const after = await store.readAll(before, 100);
    expect(after.map((e) => e.type)).toEqual(['Slow', 'Fast']);
  });

  it('rolls back cleanly: an aborted transaction leaves no event and no gap that blocks readers', async () => {
    const before = await store.headPosition();
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO es_events(stream_id, stream_version, event_id, event_type, data)
         VALUES ($1, 1, $2, 'Never', '{}')`,
        [`never-${randomUUID()}`, randomUUID()],
      );
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    await store.append(`after-${randomUUID()}`, [{ id: randomUUID(), type: 'After', data: {} }], 'no_stream');
    expect((await store.readAll(before, 100)).map((e) => e.type)).toEqual(['After']);
  });

  it('keeps a subscriber going by polling when no notification arrives', async () => {
    const before = await store.headPosition();
    const abort = new AbortController();
    const got: string[] = [];
    const following = (async () => {
      for await (const m of store.subscribe({ after: before, signal: abort.signal })) {
        if (m.kind === 'event') {
          got.push(m.event.type);
          break;
        }
      }
    })();
    // Written behind the store's back: no NOTIFY is sent.
    await db.pool.query(
      `INSERT INTO es_events(stream_id, stream_version, event_id, event_type, data)
       VALUES ($1, 1, $2, 'Silent', '{}')`,
      [`silent-${randomUUID()}`, randomUUID()],
    );
    await following;
    abort.abort();
    expect(got).toEqual(['Silent']);
  });

  it('sends one notification per committed batch on its channel', async () => {
    const listener = await db.pool.connect();
    const notes: string[] = [];
    listener.on('notification', (n) => notes.push(n.channel));
    await listener.query('LISTEN es_events');
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.append(`n-${i}-${randomUUID()}`, [{ id: randomUUID(), type: 'N', data: {} }], 'no_stream'),
      ),
    );
    await expect.poll(() => notes.length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(notes.length).toBeLessThanOrEqual(10);
    expect(new Set(notes)).toEqual(new Set(['es_events']));
    await listener.query('UNLISTEN *');
    listener.release();
  });
});
