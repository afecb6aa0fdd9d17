// Tamper evidence: rows altered, inserted and deleted in SQL behind the store's back, a tail removed,
// anchors rewritten in the database against the published file, and the verifier names each one.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { createTestRedis } from '../../test/support/redis.js';
import { anchorFile } from './anchor-publish.js';
import { writeAnchors } from './anchors.js';
import { anchorDigest, chainHash, eventDigest } from './chain.js';
import type { NewEvent } from './port.js';
import { PostgresEventStore } from './postgres.js';
import { TailWitness, witnessKey } from './tail-witness.js';
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
    expect(anchors.every((a) => a.version === 2 && a.root?.length === 64)).toBe(true);
    // Each anchor written is also a line of the published file, as written.
    const lines = readFileSync(await anchorFile(db.pool), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(anchors);
    // Nothing new: no anchor. One more event: one more anchor, chained to the last.
    expect(await writeAnchors(db.pool, store)).toHaveLength(1);
    expect(await writeAnchors(db.pool, store)).toHaveLength(0);
    const r = await verifyLog(db.pool);
    expect(r).toMatchObject({
      events: 11,
      streams: 3,
      anchors: 4,
      published: 4,
      unanchored: 0,
      findings: [],
    });
  });

  it('old-format anchors (version 1) still verify by their own rule, and Merkle anchors follow them', async () => {
    for (const s of ['a', 'b'])
      await store.append(`acct-${s}`, [ev('Opened', { s }), ev('Credited', { s, amount: 1 })], 'no_stream');
    // An anchor as the job wrote them before: SHA-256 of every hash of the range, in a row.
    const rows = await db.pool.query(
      `SELECT hash, ${"(CASE WHEN epoch = 0 THEN '' ELSE 'E' || lpad(epoch::text, 4, '0') || ':' END || lpad(transaction_id::text, 20, '0') || ':' || lpad(global_position::text, 20, '0'))"} AS p
         FROM es_events ORDER BY epoch, transaction_id, global_position`,
    );
    await db.pool.query(
      `INSERT INTO es_anchors (seq, first_position, last_position, event_count, digest) VALUES (1, $1, $2, $3, $4)`,
      [
        rows.rows[0].p,
        rows.rows.at(-1).p,
        rows.rows.length,
        anchorDigest(
          null,
          rows.rows.map((r) => r.hash),
        ),
      ],
    );
    await store.append('acct-a', [ev('Debited', { s: 'a', amount: 1 })], 2);
    const written = await writeAnchors(db.pool, store);
    expect(written.map((a) => [a.seq, a.version])).toEqual([[2, 2]]);
    expect((await verifyLog(db.pool)).findings).toEqual([]);
    await db.pool.query(
      `UPDATE es_events SET hash = sha256('x') WHERE stream_id = 'acct-b' AND stream_version = 2`,
    );
    expect((await verifyLog(db.pool)).findings).toContainEqual(
      expect.objectContaining({ kind: 'altered', where: 'anchor 1' }),
    );
  });

  it('anchors past the ninth: the job goes on from the last one and the verifier checks them in order', async () => {
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
    // Against the published file: the database's anchor 2 is not the one handed out, which is checked instead.
    expect((await verifyLog(db.pool)).findings).toEqual([
      { kind: 'altered', where: 'anchor 2', detail: "the database's anchor differs from the published one" },
    ]);
    // The database alone: its own rows say as much.
    const { findings } = await verifyLog(db.pool, { published: null });
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

  it("names each deleted event: one inside a stream, a stream's anchored tail, a whole stream", async () => {
    await seed();
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-a' AND stream_version = 2`);
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-a' AND stream_version = 4`);
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-c'`);
    const { findings } = await verifyLog(db.pool);
    // A gap inside a stream breaks its own chain; a stream's tail (acct-a's version 4) or a whole
    // stream (acct-c) leaves a chain that is whole: the anchors' stream heads name them.
    expect(
      findings
        .filter((f) => f.where.startsWith('stream'))
        .map((f) => `${f.kind} ${f.where}`)
        .sort(),
    ).toEqual([
      'removed stream acct-a version 2',
      'removed stream acct-a version 4',
      'removed stream acct-c version 1',
      'removed stream acct-c version 2',
      'removed stream acct-c version 3',
    ]);
    const removedByAnchors = findings
      .filter((f) => f.where.startsWith('anchor'))
      .map((f) => Number(/^(\d+) event\(s\) fewer/.exec(f.detail)?.[1] ?? 0))
      .reduce((a, b) => a + b, 0);
    expect(removedByAnchors).toBe(5);
  });

  it("names the log's tail removed: anchored (by the heads), and after the last anchor (by a read model's checkpoint)", async () => {
    await seed();
    // The last anchored events of the log: acct-a's version 4 and acct-c's version 3 (anchor 3).
    await db.pool.query(
      `DELETE FROM es_events WHERE (stream_id, stream_version) IN (('acct-a', 4), ('acct-c', 3))`,
    );
    // And the one after the last anchor, acct-b's version 4, which a projection had already read.
    const head = await store.headPosition();
    await db.pool.query('CREATE TABLE projection_checkpoints(name text PRIMARY KEY, position text NOT NULL)');
    await db.pool.query(`INSERT INTO projection_checkpoints VALUES ('accounts', $1)`, [head]);
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-b' AND stream_version = 4`);
    const r = await verifyLog(db.pool);
    expect(r.findings.map((f) => `${f.kind} ${f.where}`)).toEqual(
      expect.arrayContaining([
        'removed stream acct-a version 4',
        'removed stream acct-c version 3',
        'removed log tail',
      ]),
    );
    expect(r.findings.find((f) => f.where === 'log tail')?.detail).toContain(
      `projection accounts has read up to ${head}`,
    );
    // Removing the anchors over them as well only moves the finding: the published file still has them.
    await db.pool.query('DELETE FROM es_anchors WHERE seq >= 2');
    const again = await verifyLog(db.pool);
    expect(again.findings.map((f) => `${f.kind} ${f.where}`)).toEqual(
      expect.arrayContaining([
        'removed anchor 2',
        'removed anchor 3',
        'removed stream acct-a version 4',
        'removed stream acct-c version 3',
      ]),
    );
  });

  it('names an anchor rewritten in the database, even with the whole log made consistent again', async () => {
    await seed();
    // An event changed, its digest and its stream's chain forged after it, and every anchor written
    // anew over the forged log (not published): the database agrees with itself throughout.
    const row = await db.pool.query(
      `SELECT event_id::text AS id, event_type, schema_version, metadata FROM es_events
        WHERE stream_id = 'acct-b' AND stream_version = 2`,
    );
    const e = row.rows[0];
    const data = { s: 'b', amount: 100_000 };
    const digest = eventDigest({
      id: e.id,
      streamId: 'acct-b',
      type: e.event_type,
      schemaVersion: e.schema_version,
      data,
      metadata: e.metadata,
    });
    await db.pool.query(
      `UPDATE es_events SET data = $1, digest = $2 WHERE stream_id = 'acct-b' AND stream_version = 2`,
      [data, digest],
    );
    const rows = await db.pool.query(
      `SELECT stream_version::int AS v, digest, hash FROM es_events WHERE stream_id = 'acct-b' ORDER BY es_events.stream_version`,
    );
    let previous: Buffer | null = null;
    for (const r of rows.rows) {
      const hash = chainHash(previous, r.v, r.digest);
      await db.pool.query(
        `UPDATE es_events SET hash = $1 WHERE stream_id = 'acct-b' AND stream_version = $2`,
        [hash, r.v],
      );
      previous = hash;
    }
    await db.pool.query('DELETE FROM es_anchors');
    await writeAnchors(db.pool, store, { maxEvents: 4, publishTo: null });
    expect((await verifyLog(db.pool, { published: null })).findings).toEqual([]);
    // The published anchors were handed out before: the rewrite shows against them.
    const { findings } = await verifyLog(db.pool);
    expect(findings.map((f) => `${f.kind} ${f.where}`)).toEqual(
      expect.arrayContaining(['altered anchor 2', 'altered anchor 3', 'altered stream acct-b']),
    );
    // Anchor 1 was before the change (acct-b's version 1 only): it still holds.
    expect(findings.some((f) => f.where === 'anchor 1')).toBe(false);
    expect(findings.find((f) => f.where === 'stream acct-b')?.detail).toMatch(
      /versions 2 to 3 no longer end in the hash anchor 2 recorded/,
    );
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
    // acct-c's own chain is intact (the forgery is consistent): the anchor over its range names it.
    expect(findings).toContainEqual(
      expect.objectContaining({ kind: 'inserted', where: 'stream acct-c version 4' }),
    );
    expect(findings.some((f) => f.where.startsWith('anchor') && f.kind === 'inserted')).toBe(true);
  });

  it('names each event removed after the last anchor by the tail witness, even with no read model to tell', async () => {
    const redis = await createTestRedis('witness');
    try {
      const witness = new TailWitness(redis.client, await witnessKey(db.pool, redis.prefix));
      store.witnessTail(witness);
      for (const s of ['a', 'b', 'c'])
        await store.append(`acct-${s}`, [ev('Opened', { s }), ev('Credited', { s, amount: 1 })], 'no_stream');
      await witness.settled();
      await writeAnchors(db.pool, store, { witness });
      // What the anchor pins, the witness forgets: it holds only what came after.
      expect(await witness.read()).toEqual(new Map());
      await store.append(
        'acct-b',
        [ev('Credited', { s: 'b', amount: 2 }), ev('Debited', { s: 'b', amount: 1 })],
        2,
      );
      await store.append('acct-d', [ev('Opened', { s: 'd' })], 'no_stream');
      await witness.settled();
      expect(await witness.read()).toEqual(
        new Map([
          ['acct-b', 4],
          ['acct-d', 1],
        ]),
      );
      const clean = await verifyLog(db.pool, { witness });
      expect(clean).toMatchObject({ findings: [], witnessed: 2, unanchored: 3 });

      // The log's end removed, past every anchor, with no checkpoint to compare: only the witness saw it.
      await db.pool.query(
        `DELETE FROM es_events WHERE (stream_id, stream_version) IN (('acct-b', 4), ('acct-b', 3), ('acct-d', 1))`,
      );
      expect((await verifyLog(db.pool)).findings).toEqual([]);
      const r = await verifyLog(db.pool, { witness });
      expect(r.findings.map((f) => `${f.kind} ${f.where}`).sort()).toEqual([
        'removed stream acct-b version 3',
        'removed stream acct-b version 4',
        'removed stream acct-d version 1',
      ]);
      expect(r.findings[0].detail).toContain('the tail witness saw the stream at version');
    } finally {
      store.witnessTail(null);
      await redis.cleanup();
    }
  });

  it('a log cut into slices verifies alike in worker threads, findings at the cuts included', async () => {
    for (let round = 1; round <= 4; round++)
      for (const s of ['a', 'b', 'c', 'd'])
        await store.append(
          `acct-${s}`,
          [ev('Credited', { s, round })],
          round === 1 ? 'no_stream' : round - 1,
        );
    const anchors = await writeAnchors(db.pool, store, { maxEvents: 3 });
    expect(anchors.length).toBeGreaterThanOrEqual(5);
    await store.append('acct-a', [ev('Credited', { s: 'a', round: 5 })], 4);
    const one = await verifyLog(db.pool, { threads: 1 });
    const three = await verifyLog(db.pool, { threads: 3 });
    expect(one).toMatchObject({ slices: 1, events: 17, streams: 4, unanchored: 1, findings: [] });
    expect(three).toMatchObject({ slices: 3, events: 17, streams: 4, unanchored: 1, findings: [] });

    // Round 3 is where the second slice begins (16 anchored events in three slices): a stream's first
    // event there is checked against the slice before it.
    await db.pool.query(`DELETE FROM es_events WHERE stream_id = 'acct-b' AND stream_version = 3`);
    await db.pool.query(
      `UPDATE es_events SET data = jsonb_set(data::jsonb, '{round}', '9') WHERE stream_id = 'acct-c' AND stream_version = 4`,
    );
    await db.pool.query(
      `UPDATE es_events SET hash = sha256('forged') WHERE stream_id = 'acct-d' AND stream_version = 2`,
    );
    const named = (r: Awaited<ReturnType<typeof verifyLog>>) =>
      r.findings.map((f) => `${f.kind} ${f.where}: ${f.detail}`).sort();
    const before = named(await verifyLog(db.pool, { threads: 1 }));
    const after = await verifyLog(db.pool, { threads: 3 });
    expect(after.slices).toBe(3);
    expect(named(after)).toEqual(before);
    expect(before).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^removed stream acct-b version 3: missing/),
        expect.stringMatching(/^altered stream acct-c version 4: Credited: content/),
        expect.stringMatching(/^altered stream acct-d version 2/),
        expect.stringMatching(/^altered stream acct-d version 3: hash does not follow/),
      ]),
    );
  });
});
