// Anchors over the global log (tamper evidence, chain.ts). A stream's hash chain shows an event
// altered or removed inside the stream; it cannot show a whole stream or a log's tail gone, and
// the global order is only final once no older append is in flight, so the global log is not
// chained at append time. Instead a periodic job (the maintenance queue) reads the log as every
// reader does (never past an append in flight) and writes an anchor: a digest over the previous
// anchor's digest and every event hash in its position range, in log order. An anchor can be
// exported and kept outside the database; verify.ts recomputes each one.
import type pg from 'pg';
import { anchorDigest } from './chain.js';
import type { EventStore, LoggedHash, Position } from './port.js';

export interface Anchor {
  seq: number;
  firstPosition: Position;
  lastPosition: Position;
  eventCount: number;
  digest: string;
}

/** Writes anchors until the log's readable end is covered; answers the anchors written. */
export async function writeAnchors(
  pool: pg.Pool,
  store: EventStore,
  options: { maxEvents?: number } = {},
): Promise<Anchor[]> {
  const maxEvents = options.maxEvents ?? 10_000;
  const written: Anchor[] = [];
  let conflicted: number | null = null;
  for (;;) {
    const last = await pool.query<{ seq: string; last_position: string; digest: Buffer }>(
      // es_anchors.seq, the number: a bare `seq` would order by the select list's text, and after
      // anchor 9 ('9' > '10') the job kept reading anchor 10's range, its insert kept conflicting,
      // and it never ended.
      'SELECT seq::text, last_position, digest FROM es_anchors ORDER BY es_anchors.seq DESC LIMIT 1',
    );
    const previous = last.rows[0];
    // Settled: a read that a transaction in another database held back for an instant would anchor
    // less than the log's readable end. Hashes only where the store can: after a 10,000-row import
    // the whole events' data cost the worker 440 ms of CPU, beside the import, to throw away.
    const after = previous?.last_position ?? '';
    const events: LoggedHash[] = store.readLogHashes
      ? await store.readLogHashes(after, maxEvents)
      : await store.readAll(after, maxEvents, { settle: true });
    if (events.length === 0) return written;
    const hashes = events.map((e) => {
      if (!e.hash) throw new Error(`event ${e.id} has no hash: run npm run migrate`);
      return Buffer.from(e.hash, 'hex');
    });
    const anchor: Anchor = {
      seq: previous ? Number(previous.seq) + 1 : 1,
      firstPosition: events[0].position,
      lastPosition: events[events.length - 1].position,
      eventCount: events.length,
      digest: anchorDigest(previous?.digest ?? null, hashes).toString('hex'),
    };
    // Two workers at once: one insert wins, the other finds the row and goes on from it.
    const r = await pool.query(
      `INSERT INTO es_anchors (seq, first_position, last_position, event_count, digest)
       VALUES ($1, $2, $3, $4, decode($5, 'hex')) ON CONFLICT (seq) DO NOTHING`,
      [anchor.seq, anchor.firstPosition, anchor.lastPosition, anchor.eventCount, anchor.digest],
    );
    if (r.rowCount === 1) written.push(anchor);
    else {
      // Another worker wrote this anchor: go on from it. The same number refused twice means the
      // last anchor is not being found (this job once spun here for ever): fail, loudly, instead.
      if (conflicted === anchor.seq)
        throw new Error(`anchor-log: anchor ${anchor.seq} exists but is not read as the last one`);
      conflicted = anchor.seq;
    }
    if (events.length < maxEvents && r.rowCount === 1) return written;
  }
}
