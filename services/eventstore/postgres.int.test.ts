// The Postgres adapter: the shared contract, plus what only Postgres can get wrong — an append that
// commits late must hold readers back (and nothing else may), and a lost notification must not stall
// a subscriber.
import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { eventStoreContract } from './contract.js';
import type { Position } from './port.js';
import { appendManyQuery, decodePosition, encodePosition, PostgresEventStore } from './postgres.js';
import { verifyLog } from './verify.js';

/** Writes one event the way an append does: the stream's append lock first, then the row. */
const LOCKED_INSERT = `
  WITH lock AS MATERIALIZED (SELECT pg_advisory_xact_lock(7262, hashtext($1)))
  INSERT INTO es_events(stream_id, stream_version, event_id, event_type, data, digest)
  SELECT $1, 1, $2, $3, '{}', sha256('test') FROM lock`;

/** Begins a transaction on `client` that appends one event of `type` and is left open. */
async function beginAppend(client: PoolClient, type: string) {
  await client.query('BEGIN');
  await client.query(LOCKED_INSERT, [`open-${randomUUID()}`, randomUUID(), type]);
}

/**
 * The log's end, exactly: the position of a marker appended now. headPosition() may stop short of the
 * last commit for a moment on a busy cluster (a transaction of its snapshot that has ended since holds
 * the horizon back), and a test that reads "nothing after the head" from there reads the last test's
 * events (CI, once: the settling read below got the previous test's event).
 */
async function markEnd(store: PostgresEventStore): Promise<Position> {
  const marked = await store.append(
    `mark-${randomUUID()}`,
    [{ id: randomUUID(), type: 'Mark', data: {} }],
    'no_stream',
  );
  return marked.position;
}

// The tests below hold a transaction open on a pooled connection (`slow`) and end it with
// release(true): the connection is closed, not pooled, so a failed assertion that skipped its COMMIT
// or ROLLBACK cannot hand an open transaction to the store's next query (once, one such failure
// made the next test here read as if the horizon had passed an append).

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

  it('does not let readers pass an append still open mid-append, then delivers it first', async () => {
    const before = await markEnd(store);
    const slow = await db.pool.connect();
    const seen: string[] = [];
    const abort = new AbortController();
    const following = (async () => {
      for await (const m of store.subscribe({ after: before, signal: abort.signal }))
        if (m.kind === 'event') seen.push(m.event.type);
    })();
    try {
      // Holds its stream's append lock and has written: takes its sequence number now, commits later.
      await beginAppend(slow, 'Slow');
      const holder = await store.logHolder();
      expect(holder).toMatchObject({ pid: expect.any(Number), state: 'idle in transaction' });
      expect(holder?.query).toContain('pg_advisory_xact_lock');
      expect(holder?.ageSeconds).toBeGreaterThanOrEqual(0);
      const fast = `fast-${randomUUID()}`;
      await store.append(fast, [{ id: randomUUID(), type: 'Fast', data: {} }], 'no_stream');
      // The fast event is committed, but a reader must not move past the open append.
      expect(await store.readAll(before, 100)).toEqual([]);
      await expect.poll(() => store.headPosition()).toBe(before);
      await new Promise((r) => setTimeout(r, 500));
      expect(seen).toEqual([]);
      await slow.query('COMMIT');
    } finally {
      slow.release(true);
    }
    expect(await store.logHolder()).toBeNull();
    const after = await store.readAll(before, 100);
    expect(after.map((e) => e.type)).toEqual(['Slow', 'Fast']);
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['Slow', 'Fast']);
    abort.abort();
    await following;
  });

  it('says caughtUp first only once nothing committed is held back: an earlier event never comes as live', async () => {
    const before = await markEnd(store);
    const slow = await db.pool.connect();
    const seen: string[] = [];
    const abort = new AbortController();
    let following: Promise<void> | null = null;
    try {
      await beginAppend(slow, 'Open');
      await store.append(
        `first-${randomUUID()}`,
        [{ id: randomUUID(), type: 'Earlier', data: {} }],
        'no_stream',
      );
      // Subscribed after 'Earlier' committed, while an append below it is still open: every read is
      // held back, and announcing caughtUp now would make 'Earlier' look live when it comes.
      following = (async () => {
        for await (const m of store.subscribe({ after: before, signal: abort.signal }))
          seen.push(m.kind === 'event' ? m.event.type : 'caughtUp');
      })();
      await new Promise((r) => setTimeout(r, 300));
      expect(seen).toEqual([]);
      await slow.query('ROLLBACK');
    } finally {
      slow.release(true);
    }
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['Earlier', 'caughtUp']);
    abort.abort();
    await following;
  });

  it('serves a new subscriber no read taken before it began: an append whose notice has not come yet still precedes caughtUp', async () => {
    // A long poll interval: a tail read stays fresh for another subscriber for 5 s.
    const quiet = new PostgresEventStore(db.pool, { pollIntervalMs: 5_000 });
    await quiet.init();
    const before = await markEnd(quiet);
    const first = new AbortController();
    let firstCaughtUp = false;
    const following = (async () => {
      for await (const m of quiet.subscribe({ after: before, signal: first.signal }))
        if (m.kind === 'caughtUp') firstCaughtUp = true;
    })();
    const second = new AbortController();
    try {
      await expect.poll(() => firstCaughtUp).toBe(true);
      // Committed with no notification, as an append is whose notice has not reached this process.
      await db.pool.query(LOCKED_INSERT, [`quiet-${randomUUID()}`, randomUUID(), 'Unannounced']);
      const seen: string[] = [];
      for await (const m of quiet.subscribe({ after: before, signal: second.signal })) {
        seen.push(m.kind === 'event' ? m.event.type : 'caughtUp');
        if (seen.length === 2) break;
      }
      expect(seen).toEqual(['Unannounced', 'caughtUp']);
    } finally {
      first.abort();
      second.abort();
      await following;
      await quiet.close();
    }
  });

  it('a settling read reads on once an append that held it back commits, and gives up after a while', async () => {
    const before = await markEnd(store);
    const slow = await db.pool.connect();
    try {
      await beginAppend(slow, 'SlowSettled');
      await store.append(
        `settle-${randomUUID()}`,
        [{ id: randomUUID(), type: 'FastSettled', data: {} }],
        'no_stream',
      );
      // Held back all the while: a settling read gives up and answers what it may (nothing).
      expect(await store.readAll(before, 100, { settle: true })).toEqual([]);
      // The append commits while the settling read waits: it reads on and gets both.
      const settled = store.readAll(before, 100, { settle: true });
      setTimeout(() => void slow.query('COMMIT'), 5);
      expect((await settled).map((e) => e.type)).toEqual(['SlowSettled', 'FastSettled']);
    } finally {
      slow.release(true);
    }
  });

  it('an append held open in another database of the same cluster holds back no reader here', async () => {
    // Another store on the same Postgres (another deployment, or another test file beside this one).
    const elsewhere = await createTestDatabase('esother', 2);
    const otherStore = new PostgresEventStore(elsewhere.pool);
    await otherStore.init();
    const slow = await elsewhere.pool.connect();
    try {
      const before = await markEnd(store);
      // Its append lock taken and a row written there: an id lower than anything appended here next.
      await beginAppend(slow, 'There');
      expect(await otherStore.logHolder()).not.toBeNull();
      expect(await store.logHolder()).toBeNull();
      const here = await store.append(
        `here-${randomUUID()}`,
        [{ id: randomUUID(), type: 'Here', data: {} }],
        'no_stream',
      );
      expect((await store.readAll(before, 100, { settle: true })).map((e) => e.type)).toEqual(['Here']);
      await expect.poll(() => store.headPosition()).toBe(here.position);
      await slow.query('ROLLBACK');
    } finally {
      slow.release(true);
      await otherStore.close();
      await elsewhere.drop();
    }
  });

  it('a write transaction left open elsewhere (not an append) holds back no reader', async () => {
    const before = await markEnd(store);
    const other = await db.pool.connect();
    const seen: string[] = [];
    const abort = new AbortController();
    const following = (async () => {
      for await (const m of store.subscribe({ after: before, signal: abort.signal }))
        if (m.kind === 'event') seen.push(m.event.type);
    })();
    try {
      // As an operator might in psql: a write, and the transaction left open.
      await other.query('CREATE TABLE IF NOT EXISTS operator_notes(note text)');
      await other.query('BEGIN');
      await other.query(`INSERT INTO operator_notes VALUES ('left open')`);
      const { rows } = await other.query('SELECT pg_current_xact_id()::text AS xid');
      expect(rows[0].xid).toMatch(/^\d+$/);
      const first = await store.append(
        `open-${randomUUID()}`,
        [{ id: randomUUID(), type: 'Seen1', data: {} }],
        'no_stream',
      );
      expect((await store.readAll(before, 100, { settle: true })).map((e) => e.type)).toEqual(['Seen1']);
      await expect.poll(() => store.headPosition()).toBe(first.position);
      await expect.poll(() => seen, { timeout: 5_000 }).toEqual(['Seen1']);
      // An open transaction that is no appender is not named as holding the log back.
      expect(await store.logHolder()).toBeNull();
      await store.append(
        `open-${randomUUID()}`,
        [{ id: randomUUID(), type: 'Seen2', data: {} }],
        'no_stream',
      );
      await expect.poll(() => seen, { timeout: 5_000 }).toEqual(['Seen1', 'Seen2']);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      other.release();
    }
    abort.abort();
    await following;
  });

  it('reads the head as it is beside a busy cluster: a transaction of another database ending mid-read does not leave it short', async () => {
    // Short transactions in another database, each begun before the append below and ending while the
    // head is read: the horizon's conservative case. Unsettled, 1,262 heads of 3,000 came back short.
    const elsewhere = await createTestDatabase('eschurn', 6);
    let stop = false;
    const churn = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const c = await elsewhere.pool.connect();
        try {
          await c.query('BEGIN');
          await c.query('SELECT pg_current_xact_id()');
          await new Promise((r) => setTimeout(r, Math.random() * 5));
          await c.query('COMMIT');
        } finally {
          c.release();
        }
      }
    });
    const short: string[] = [];
    try {
      for (let i = 0; i < 300; i++) {
        const end = await markEnd(store);
        const head = await store.headPosition();
        if (head !== end) short.push(`${head} < ${end}`);
      }
    } finally {
      stop = true;
      await Promise.all(churn);
      await elsewhere.drop();
    }
    expect(short).toEqual([]);
  });

  it('reads the log’s hashes as it reads its events: same ids, positions and hashes, never past an open append', async () => {
    const before = await markEnd(store);
    for (let i = 0; i < 3; i++)
      await store.append(
        `hashes-${randomUUID()}`,
        [
          { id: randomUUID(), type: 'H1', data: { i } },
          { id: randomUUID(), type: 'H2', data: { i } },
        ],
        'no_stream',
      );
    const events = await store.readAll(before, 100, { settle: true });
    expect(events).toHaveLength(6);
    const hashes = await store.readLogHashes(before, 100);
    // A log read leaves the hashes out (nothing that follows the log needs them); a stream has them.
    expect(events.every((e) => e.hash === undefined)).toBe(true);
    const chained = new Map<string, string | undefined>();
    for (const streamId of new Set(events.map((e) => e.streamId)))
      for (const e of (await store.readStream(streamId)).events) chained.set(e.id, e.hash);
    expect(hashes).toEqual(events.map((e) => ({ id: e.id, position: e.position, hash: chained.get(e.id) })));
    expect(hashes.every((h) => /^[0-9a-f]{64}$/.test(h.hash ?? ''))).toBe(true);
    // Paged from a position, as the anchor job reads.
    expect(await store.readLogHashes(hashes[1].position, 2)).toEqual(hashes.slice(2, 4));
    const slow = await db.pool.connect();
    try {
      const end = hashes[5].position;
      await beginAppend(slow, 'HeldBack');
      await store.append(
        `hashes-${randomUUID()}`,
        [{ id: randomUUID(), type: 'After', data: {} }],
        'no_stream',
      );
      expect(await store.readLogHashes(end, 100)).toEqual([]);
      await slow.query('COMMIT');
      expect((await store.readLogHashes(end, 100)).map((h) => h.id)).toEqual(
        (await store.readAll(end, 100, { settle: true })).map((e) => e.id),
      );
    } finally {
      slow.release(true);
    }
  });

  it('rolls back cleanly: an aborted transaction leaves no event and no gap that blocks readers', async () => {
    const before = await markEnd(store);
    const c = await db.pool.connect();
    try {
      await beginAppend(c, 'Never');
      await c.query('ROLLBACK');
    } finally {
      c.release(true);
    }
    await store.append(`after-${randomUUID()}`, [{ id: randomUUID(), type: 'After', data: {} }], 'no_stream');
    expect((await store.readAll(before, 100, { settle: true })).map((e) => e.type)).toEqual(['After']);
  });

  it('keeps a subscriber going by polling when no notification arrives', async () => {
    const before = await markEnd(store);
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
    await db.pool.query(LOCKED_INSERT, [`silent-${randomUUID()}`, randomUUID(), 'Silent']);
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

describe('postgres event store: subscribers in one process', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let reads = 0;
  beforeAll(async () => {
    db = await createTestDatabase('estail', 10);
    // Counts the store's reads of the log (its named statements).
    const query = db.pool.query.bind(db.pool) as (...args: unknown[]) => unknown;
    (db.pool as { query: unknown }).query = (config: { name?: string }, ...rest: unknown[]) => {
      if (typeof config === 'object' && config?.name?.startsWith('es_read_all_held')) reads++;
      return query(config, ...rest);
    };
    // A long poll: the shared tail counts as current for that long (the test has no lost notices).
    store = new PostgresEventStore(db.pool, { pollIntervalMs: 30_000 });
    await store.init();
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('serve a subscriber that fell behind from what another already read, and each gets every event once, in order', async () => {
    const before = await markEnd(store);
    const abort = new AbortController();
    const append = async (from: number, to: number) => {
      for (let n = from; n < to; n++)
        await store.append(
          `tail-${n}-${randomUUID()}`,
          [{ id: randomUUID(), type: `T${n}`, data: {} }],
          'no_stream',
        );
    };
    const seen = { a: [] as string[], b: [] as string[] };
    let openGate = () => {};
    const gate = new Promise<void>((r) => {
      openGate = r;
    });
    const follow = async (who: 'a' | 'b') => {
      for await (const m of store.subscribe({ after: before, signal: abort.signal })) {
        if (m.kind !== 'event') continue;
        seen[who].push(m.event.type);
        // B is busy with its batch (a projection applying it) while the log moves on.
        if (who === 'b' && m.event.type === 'T2') await gate;
        // A goes on following (until the abort), as a projection does.
        if (who === 'b' && seen[who].length === 10) return;
      }
    };
    const following = [follow('a'), follow('b')];
    await append(0, 5);
    await expect.poll(() => seen.a.length).toBe(5);
    await append(5, 10);
    await expect.poll(() => seen.a.length).toBe(10);
    expect(seen.b).toEqual(['T0', 'T1', 'T2']);
    // A reads once more for the notifications that came while it read: let it settle.
    let settled = -1;
    while (settled !== reads) {
      settled = reads;
      await new Promise((r) => setTimeout(r, 200));
    }
    const readsBefore = reads;
    openGate();
    await following[1];
    abort.abort();
    await following[0];
    const expected = Array.from({ length: 10 }, (_, n) => `T${n}`);
    expect(seen.a).toEqual(expected);
    expect(seen.b).toEqual(expected);
    // B's next read, from T2, was served by what A's reads had brought in: no statement.
    expect(reads - readsBefore).toBe(0);
  });
});

describe('postgres event store: positions', () => {
  it('keeps the epoch-0 format and sorts every later epoch after it, as strings and decoded', () => {
    const old = encodePosition(0, '999999', '123');
    expect(old).toBe('00000000000000999999:00000000000000000123');
    const next: Position = encodePosition(1, '5', '1');
    expect(next).toBe('E0001:00000000000000000005:00000000000000000001');
    expect(next > old).toBe(true);
    expect(encodePosition(2, '1', '1') > encodePosition(1, '99999999', '9')).toBe(true);
    expect(decodePosition(old)).toEqual({ epoch: 0, txid: '999999', globalPosition: '123' });
    expect(decodePosition(next)).toEqual({ epoch: 1, txid: '5', globalPosition: '1' });
    expect(decodePosition('')).toEqual({ epoch: 0, txid: '0', globalPosition: '0' });
    expect(() => decodePosition('E1:2:3')).toThrow('Not a Postgres event store position');
  });
});

/** A store on a database of its own, dropped afterwards. */
async function withOwnStore(
  label: string,
  run: (store: PostgresEventStore, db: TestDatabase) => Promise<void>,
) {
  const db = await createTestDatabase(label, 4);
  const store = new PostgresEventStore(db.pool);
  try {
    await store.init();
    await run(store, db);
  } finally {
    await store.close();
    await db.drop();
  }
}

describe('postgres event store: the append plan', () => {
  it("looks each stream's head up by index, even planned on an empty log", async () => {
    // The pool keeps one generic plan per connection (services/shared/db.ts), made at the connection's first
    // append. Made on a new, empty log it once hash-joined whole scans of the log, and every append
    // then read it in full until autovacuum's ANALYZE replanned it.
    await withOwnStore('esplan', async (store, db) => {
      const client = await db.pool.connect();
      const plans: string[] = [];
      client.on('notice', (n) => plans.push(n.message ?? ''));
      try {
        await client.query("LOAD 'auto_explain'");
        await client.query('SET auto_explain.log_min_duration = 0');
        await client.query('SET auto_explain.log_level = notice');
        await client.query('SET plan_cache_mode = force_generic_plan');
        const ev = () => ({ id: randomUUID(), type: 'Planned', data: {} });
        await client.query(appendManyQuery([{ streamId: 'plan-a', events: [ev()], expected: 'no_stream' }]));
        await client.query(appendManyQuery([{ streamId: 'plan-a', events: [ev(), ev()], expected: 1 }]));
      } finally {
        client.release(true);
      }
      const plan = plans.filter((p) => p.includes('Insert on es_events')).join('\n');
      expect(plan).toMatch(/Index Scan Backward using es_events_pkey on es_events/);
      expect(plan).not.toMatch(/Seq Scan on es_events/);
      expect((await store.readStream('plan-a')).version).toBe(3);
    });
  });
});

describe('postgres event store: group commit', () => {
  it('refuses an event that cannot be hashed on its own, and commits the appends queued beside it', async () => {
    await withOwnStore('esgroup', async (store) => {
      const ev = (data: unknown) => ({ id: randomUUID(), type: 'Grouped', data });
      const results = await Promise.allSettled([
        store.append('group-a', [ev({ n: 1 })], 'no_stream'),
        store.append('group-bad', [ev({ n: Number.NaN })], 'no_stream'),
        store.append('group-b', [ev({ n: 2 })], 'no_stream'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/NaN is not allowed/);
      expect((await store.readStream('group-bad')).version).toBe(0);
      expect((await store.readStream('group-b')).events.map((e) => e.data)).toEqual([{ n: 2 }]);
    });
  });
});

describe('postgres event store: the log column types', () => {
  it('works on a store made before the json columns (jsonb), and after the documented conversion', async () => {
    await withOwnStore('esjsonb', async (store, db) => {
      // As stores created before 2026-11-26 have them.
      await db.pool.query(`ALTER TABLE es_events ALTER COLUMN data TYPE jsonb USING data::jsonb,
        ALTER COLUMN metadata TYPE jsonb USING metadata::jsonb`);
      const ev = (n: number) => ({
        id: randomUUID(),
        type: 'Typed',
        data: { n, text: 'a "quoted" \\ line\nnext', nested: { b: [1, 2.5, null], a: true } },
        metadata: { commandId: `c-${n}` },
      });
      await store.append('typed-a', [ev(1), ev(2)], 'no_stream');
      const before = await store.readStream('typed-a');
      expect(before.events.map((e) => e.data)).toEqual([ev(1).data, ev(2).data]);
      expect(before.events[1].metadata).toEqual({ commandId: 'c-2' });
      // OPERATIONS.md's conversion, then more appends on the same stream.
      await db.pool.query(`ALTER TABLE es_events ALTER COLUMN data TYPE json USING data::json,
        ALTER COLUMN metadata TYPE json USING metadata::json, ALTER COLUMN metadata SET DEFAULT '{}'`);
      await store.append('typed-a', [ev(3)], 2);
      const after = await store.readStream('typed-a');
      expect(after.events.map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3]);
      expect(after.events[0].data).toEqual(before.events[0].data);
      const types = await db.pool.query(
        "SELECT data_type FROM information_schema.columns WHERE table_name = 'es_events' AND column_name IN ('data', 'metadata')",
      );
      expect(types.rows.map((r) => r.data_type)).toEqual(['json', 'json']);
      expect((await verifyLog(db.pool)).findings).toEqual([]);
    });
  });
});

describe('postgres event store: a head read before the lock wait', () => {
  // An append reads its stream's head in its statement's snapshot, taken before it waits for the
  // stream's lock. Another append that commits during that wait is not in the snapshot: the event
  // then takes a version that exists, and the store must try again rather than answer a conflict
  // that is not one, or write over the other.
  it('appends after an append that committed while it waited, and still refuses a true conflict', async () => {
    await withOwnStore('esstale', async (store, db) => {
      const ev = (n: number) => ({ id: randomUUID(), type: 'Counted', data: { n } });
      await store.append('hot-1', [ev(1)], 'no_stream');
      /** Runs `append` while another append to hot-1 (at `version`) holds the lock, then commits it. */
      const behindAnother = async <T>(version: number, append: () => Promise<T>) => {
        const other = await db.pool.connect();
        try {
          await other.query('BEGIN');
          const held = await other.query(
            appendManyQuery([{ streamId: 'hot-1', events: [ev(version + 1)], expected: version }]),
          );
          expect(held.rowCount).toBe(1);
          const result = append();
          result.catch(() => {});
          // It waits on the lock (its snapshot, taken before, cannot see the other's event).
          await expect
            .poll(
              async () =>
                (
                  await db.pool.query(
                    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                      WHERE NOT l.granted AND l.locktype = 'advisory' AND a.datname = current_database()`,
                  )
                ).rows[0].n,
              { timeout: 5000 },
            )
            .toBe(1);
          await other.query('COMMIT');
          return result;
        } finally {
          other.release();
        }
      };
      // "Any version" never conflicts: it lands after the other's event.
      expect((await behindAnother(1, () => store.append('hot-1', [ev(3), ev(4)], 'any'))).nextVersion).toBe(
        4,
      );
      // The version the caller read (4) has moved on (5): a true conflict, and nothing written.
      await expect(behindAnother(4, () => store.append('hot-1', [ev(6)], 4))).rejects.toMatchObject({
        name: 'WrongExpectedVersionError',
        actual: 5,
      });
      const read = await store.readStream('hot-1');
      expect(read.version).toBe(5);
      expect(read.events.map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3, 4, 5]);
      expect((await verifyLog(db.pool)).findings).toEqual([]);
    });
  });
});
