// Tamper evidence (issue 9, item 2): rows altered, inserted and deleted in SQL behind the store's
// back, and the verifier names each one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { writeAnchors } from './anchors.js';
import { eventDigest } from './chain.js';
import type { NewEvent } from './port.js';
import { PostgresEventStore } from './postgres.js';
import { verifyLog } from './verify.js';

let db: TestDatabase;
let store: PostgresEventStore;

const ev = (type: string, data: unknown): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { commandId: randomUUID() },
});

/** Three streams of a few events each, all anchored, plus two events after the last anchor. */
async function seed() {
  for (const s of ['a', 'b', 'c'])
    await store.append(
      `acct-${s}`,
      [ev('Opened', { s }), ev('Credited', { s, amount: 100 }), ev('Debited', { s, amount: 40 })],
      'no_stream',
    );
  await store.append('acct-a', [ev('Credited', { s: 'a', amount: 7 })], 3);
  const anchors = await writeAnchors(db.pool, store, { maxEvents: 4 });
  await store.append('acct-b', [ev('Credited', { s: 'b', amount: 1 })], 3);
  return anchors;
}

beforeEach(async () => {
  await store?.close();
  await db?.drop();
  db = await createTestDatabase('tamper', 4);
  store = new PostgresEventStore(db.pool, { pollIntervalMs: 100 });
  await store.init();
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe('tamper evidence', () => {
  it('an untouched log verifies clean, with anchors over every event read so far', async () => {
    const anchors = await seed();
    expect(anchors.map((a) => a.eventCount)).toEqual([4, 4, 2]);
    // Nothing new: no anchor. One more event: one more anchor, chained to the last.
    expect(await writeAnchors(db.pool, store)).toHaveLength(1);
    expect(await writeAnchors(db.pool, store)).toHaveLength(0);
    const r = await verifyLog(db.pool);
    expect(r).toMatchObject({ events: 11, streams: 3, anchors: 4, findings: [] });
  });

  it('anchors past the ninth: the job goes on from the last one and verify-log checks them in order', async () => {
    // Anchors are numbered; ordered as text, '9' came after '10': the job never ended and every
    // anchor from the tenth on was reported as altered.
    for (let i = 0; i < 12; i++) await store.append(`acct-n${i}`, [ev('Opened', { i })], 'no_stream');
    const written = await writeAnchors(db.pool, store, { maxEvents: 1 });
    expect(written.map((a) => a.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    await store.append('acct-n12', [ev('Opened', { i: 12 })], 'no_stream');
    expect((await writeAnchors(db.pool, store, { maxEvents: 1 })).map((a) => a.seq)).toEqual([13]);
    expect(await verifyLog(db.pool)).toMatchObject({ events: 13, anchors: 13, findings: [] });
  }, 20_000);

  it('the anchor job fails rather than spins when its insert keeps being refused', async () => {
    await seed();
    // An anchor insert that silently writes nothing: the job can never see its anchor as the last.
    await db.pool.query(
      `CREATE FUNCTION drop_anchor() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`,
    );
    await db.pool.query(
      'CREATE TRIGGER drop_anchor BEFORE INSERT ON es_anchors FOR EACH ROW EXECUTE FUNCTION drop_anchor()',
    );
    await store.append('acct-c', [ev('Credited', { s: 'c', amount: 5 })], 3);
    await expect(writeAnchors(db.pool, store)).rejects.toThrow(
      /anchor 4 exists but is not read as the last one/,
    );
  });

  it('names an anchor whose position was overwritten with something that is not a position', async () => {
    await seed();
    await db.pool.query(`UPDATE es_anchors SET last_position = 'not-a-position' WHERE seq = 2`);
    const { findings } = await verifyLog(db.pool);
    expect(findings).toContainEqual({
      kind: 'altered',
      where: 'anchor 2',
      detail: 'its positions are not log positions',
    });
    // What anchor 2 covered now falls in anchor 3's range: more events than anchor 3 holds.
    expect(findings).toContainEqual(expect.objectContaining({ kind: 'inserted', where: 'anchor 3' }));
  });

  it('a stream of more than nine events, across pages, verifies clean', async () => {
    // Versions in number order (10 after 9, not after 1), and the pages of the walk meet exactly.
    await store.append(
      'acct-long',
      Array.from({ length: 12 }, (_, i) => ev('Credited', { s: 'long', amount: i })),
      'no_stream',
    );
    for (let i = 0; i < 3; i++)
      await store.append('acct-long', [ev('Debited', { s: 'long', amount: i })], 12 + i);
    expect(await verifyLog(db.pool, { pageSize: 4 })).toMatchObject({ events: 15, streams: 1, findings: [] });
  });

  it("an append chains each stream's first new event in its own statement; the row trigger only after it", async () => {
    await seed();
    // Without the trigger, single-event appends (to a new and to an old stream) still get their
    // hash: the statement computes it from the previous event's, which is what made appends cheaper.
    await db.pool.query('ALTER TABLE es_events DISABLE TRIGGER es_events_chain');
    await store.append('acct-d', [ev('Opened', { s: 'd' })], 'no_stream');
    await store.append('acct-a', [ev('Debited', { s: 'a', amount: 2 })], 4);
    const two = await store.append(
      'acct-b',
      [ev('Credited', { s: 'b', amount: 3 }), ev('Debited', { s: 'b', amount: 1 })],
      4,
    );
    await db.pool.query('ALTER TABLE es_events ENABLE TRIGGER es_events_chain');
    const hashes = await db.pool.query(
      `SELECT stream_id, stream_version::int AS v, hash IS NOT NULL AS chained FROM es_events
        WHERE (stream_id, stream_version) IN (('acct-d', 1), ('acct-a', 5), ('acct-b', 5), ('acct-b', 6))
        ORDER BY 1, 2`,
    );
    expect(two.nextVersion).toBe(6);
    // The second event of a multi-event append is the trigger's (off here, so unchained).
    expect(hashes.rows.map((r) => `${r.stream_id}@${r.v}:${r.chained}`)).toEqual([
      'acct-a@5:true',
      'acct-b@5:true',
      'acct-b@6:false',
      'acct-d@1:true',
    ]);
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-b' AND stream_version = 6`);
    // With the trigger on, the same shapes chain in full, and all of it verifies.
    await store.append(
      'acct-b',
      [ev('Credited', { s: 'b', amount: 3 }), ev('Debited', { s: 'b', amount: 1 })],
      5,
    );
    await store.append(
      'acct-e',
      [ev('Opened', { s: 'e' }), ev('Credited', { s: 'e', amount: 1 })],
      'no_stream',
    );
    expect((await verifyLog(db.pool)).findings).toEqual([]);
  });

  it('names an altered event: its content, or its hash', async () => {
    await seed();
    await db.pool.query(
      `UPDATE es_events SET data = jsonb_set(data::jsonb, '{amount}', '1000') WHERE stream_id = 'acct-c' AND stream_version = 2`,
    );
    await db.pool.query(
      `UPDATE es_events SET hash = sha256('forged') WHERE stream_id = 'acct-a' AND stream_version = 3`,
    );
    const { findings } = await verifyLog(db.pool);
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'altered', where: 'stream acct-c version 2' }),
        expect.objectContaining({ kind: 'altered', where: 'stream acct-a version 3' }),
      ]),
    );
    // The forged hash also breaks the link from the next event and the anchor over it.
    expect(findings.some((f) => f.where.startsWith('anchor') && f.kind === 'altered')).toBe(true);
  });

  it('names a deleted event, a deleted tail and a deleted stream', async () => {
    await seed();
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-a' AND stream_version = 2`);
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-a' AND stream_version = 4`);
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-c'`);
    const { findings } = await verifyLog(db.pool);
    // A gap inside a stream breaks its own chain.
    expect(findings.filter((f) => f.where.startsWith('stream'))).toEqual([
      expect.objectContaining({ kind: 'removed', where: 'stream acct-a version 2' }),
    ]);
    // A stream's tail (acct-a's version 4), or a whole stream (acct-c's three events), leaves a chain
    // that is whole: only the anchors over them can tell. (The log is the only record of a stream's
    // versions: a tail written after the last anchor and removed before the next is not seen.)
    const anchorFindings = findings.filter((f) => f.where.startsWith('anchor'));
    expect(anchorFindings.length).toBeGreaterThan(0);
    expect(anchorFindings.every((f) => f.kind === 'removed')).toBe(true);
    const removedByAnchors = anchorFindings
      .map((f) => Number(/^(\d+) event\(s\) fewer/.exec(f.detail)?.[1] ?? 0))
      .reduce((a, b) => a + b, 0);
    expect(removedByAnchors).toBe(5);
  });

  it('names an event slipped into the past, even one whose chain was forged correctly', async () => {
    await seed();
    // A new version at the end of acct-c, given an old transaction id so that it sorts inside an
    // anchored range; the insert trigger even chains it properly.
    const id = randomUUID();
    const data = { s: 'c', amount: 999 };
    const digest = eventDigest({
      id,
      streamId: 'acct-c',
      type: 'Credited',
      schemaVersion: 1,
      data,
      metadata: {},
    });
    await db.pool.query(
      `INSERT INTO es_events (transaction_id, stream_id, stream_version, event_id, event_type, data, metadata, digest)
       SELECT e.transaction_id, 'acct-c', 4, $1, 'Credited', $2, '{}', $3
         FROM es_events e WHERE e.stream_id = 'acct-c' AND e.stream_version = 3`,
      [id, data, digest],
    );
    // And a row written around the store entirely, without the trigger.
    await db.pool.query('ALTER TABLE es_events DISABLE TRIGGER es_events_chain');
    await db.pool.query(`INSERT INTO es_events (stream_id, stream_version, event_id, event_type, data)
      VALUES ('acct-z', 1, gen_random_uuid(), 'Opened', '{}')`);
    await db.pool.query('ALTER TABLE es_events ENABLE TRIGGER es_events_chain');
    const { findings } = await verifyLog(db.pool);
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'inserted', where: 'stream acct-z version 1' }),
      ]),
    );
    // acct-c's own chain is intact (the forgery is consistent): only the anchor over its range tells.
    expect(findings.filter((f) => f.where.startsWith('stream acct-c'))).toEqual([]);
    expect(findings.some((f) => f.where.startsWith('anchor') && f.kind === 'inserted')).toBe(true);
  });
});
