// Anchors over the global log (tamper evidence, chain.ts). A stream's hash chain shows an event
// altered or removed inside the stream; it cannot show a whole stream or a stream's tail gone, and
// the global order is only final once no older append is in flight, so the global log is not
// chained at append time. Instead a periodic job (the maintenance queue) reads the log as every
// reader does (never past an append in flight) and writes an anchor over the next position range.
//
// Version 2 (every anchor written now): the digest commits to the previous anchor's digest, the
// Merkle root over the range's event hashes in log order (merkle.ts: one event is proved with
// O(log n) hashes), and the range's stream heads (each stream's last version and hash in it), which
// let `audit verify` name a removed stream tail or an inserted event exactly:
//
//   digest = SHA-256("billflow-anchor/2\n" ‖ JSON.stringify([seq, previous, firstPosition,
//            lastPosition, eventCount, root, headsDigest]))      (hex strings; previous null first)
//
// Version 1 (rows written before): SHA-256(previous ‖ every event hash of the range); still verified
// by that rule (verify.ts). Each anchor is also published outside the database (anchor-publish.ts).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { anchorFile, appendPublished, lastPublishedSeq, type PublishedAnchor } from './anchor-publish.js';
import { merkleRoot } from './merkle.js';
import type { EventStore, LoggedHash, Position } from './port.js';
import { START } from './port.js';
import { LOG_ORDER_SQL, logOrderSql, POSITION_SQL, positionParams } from './postgres.js';
import type { TailWitness } from './tail-witness.js';

export type Anchor = PublishedAnchor;
export const ANCHOR_VERSION = 2;

const ready = new WeakSet<pg.Pool>();
/**
 * The version-2 columns, added once to a store made before them (its rows stay version 1). Checked
 * first: ALTER TABLE would lock the table on every call. Two processes at once: the loser re-checks.
 */
export async function ensureAnchorColumns(pool: pg.Pool): Promise<void> {
  if (ready.has(pool)) return;
  const sql = `DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_attribute
                   WHERE attrelid = 'es_anchors'::regclass AND attname = 'version' AND NOT attisdropped) THEN
      ALTER TABLE es_anchors ADD COLUMN version int NOT NULL DEFAULT 1, ADD COLUMN root bytea,
        ADD COLUMN heads json, ADD COLUMN previous bytea;
    END IF;
  END $$`;
  try {
    await pool.query(sql);
  } catch {
    await pool.query(sql);
  }
  ready.add(pool);
}

export type Head = [streamId: string, version: number, hash: string];

export const headsDigest = (heads: readonly Head[]): string =>
  createHash('sha256').update(JSON.stringify(heads)).digest('hex');

/** A version-2 anchor's digest (see the top of this file); the standalone verifier repeats it. */
export function anchorDigestV2(a: {
  seq: number;
  previous: string | null;
  firstPosition: string;
  lastPosition: string;
  eventCount: number;
  root: string;
  headsDigest: string;
}): string {
  const fields = [a.seq, a.previous, a.firstPosition, a.lastPosition, a.eventCount, a.root, a.headsDigest];
  return createHash('sha256')
    .update(`billflow-anchor/2\n${JSON.stringify(fields)}`)
    .digest('hex');
}

/** One event of a range, as anchors and their checks read it. */
export interface RangeEvent {
  position: string;
  streamId: string;
  version: number;
  eventId: string;
  hash: Buffer | null;
}

/** The events in (after, last], in log order (the range an anchor covers). */
export async function readRange(pool: pg.Pool, after: Position, last: Position): Promise<RangeEvent[]> {
  const r = await pool.query({
    text: `SELECT ${POSITION_SQL}, stream_id, stream_version::int, event_id::text, hash FROM es_events
            WHERE ${logOrderSql('>', 1)} AND ${logOrderSql('<=', 4)} ORDER BY ${LOG_ORDER_SQL}`,
    values: [...positionParams(after), ...positionParams(last)],
    rowMode: 'array',
  });
  return (r.rows as Array<[string, string, number, string, Buffer | null]>).map(
    ([position, streamId, version, eventId, hash]) => ({ position, streamId, version, eventId, hash }),
  );
}

/** Each stream's last event in the range, by stream id. */
export function headsOf(events: ReadonlyArray<Pick<RangeEvent, 'streamId' | 'version' | 'hash'>>): Head[] {
  const heads = new Map<string, Head>();
  for (const e of events) {
    const h = heads.get(e.streamId);
    if (!h || e.version > h[1]) heads.set(e.streamId, [e.streamId, e.version, e.hash?.toString('hex') ?? '']);
  }
  return [...heads.values()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** A version-2 anchor over the events of its range. */
export function buildAnchor(seq: number, previous: string | null, events: readonly RangeEvent[]): Anchor {
  const root = merkleRoot(events.map((e) => e.hash ?? Buffer.alloc(0))).toString('hex');
  const heads = headsOf(events);
  const body = {
    seq,
    previous,
    firstPosition: events[0].position,
    lastPosition: events[events.length - 1].position,
    eventCount: events.length,
    root,
    headsDigest: headsDigest(heads),
  };
  return { ...body, version: 2, heads, digest: anchorDigestV2(body), at: new Date().toISOString() };
}

interface AnchorRow {
  seq: string;
  version: number;
  first_position: string;
  last_position: string;
  event_count: number;
  digest: Buffer;
  root: Buffer | null;
  heads: Head[] | null;
  previous: Buffer | null;
  created_at: Date;
}
const ANCHOR_COLUMNS =
  'seq::text, version, first_position, last_position, event_count, digest, root, heads, previous, created_at';

/** Rows as the published shape. `previous` of a version-1 row is the digest of the row before it. */
function fromRows(rows: AnchorRow[], before: string | null): Anchor[] {
  let prior = before;
  return rows.map((r) => {
    const a: Anchor = {
      seq: Number(r.seq),
      version: r.version === 2 ? 2 : 1,
      firstPosition: r.first_position,
      lastPosition: r.last_position,
      eventCount: r.event_count,
      root: r.root?.toString('hex') ?? null,
      heads: r.heads,
      headsDigest: r.heads ? headsDigest(r.heads) : null,
      previous: r.previous ? r.previous.toString('hex') : r.version === 2 ? null : prior,
      digest: r.digest.toString('hex'),
      at: r.created_at.toISOString(),
    };
    prior = a.digest;
    return a;
  });
}

/** The database's anchors after `afterSeq`, in number order (es_anchors.seq: the bare name is text). */
export async function readAnchors(pool: pg.Pool, afterSeq = 0): Promise<Anchor[]> {
  await ensureAnchorColumns(pool);
  const r = await pool.query<AnchorRow>(
    `SELECT ${ANCHOR_COLUMNS} FROM es_anchors WHERE es_anchors.seq > $1 ORDER BY es_anchors.seq`,
    [afterSeq],
  );
  const before =
    afterSeq > 0
      ? ((
          await pool.query<{ d: Buffer }>('SELECT digest AS d FROM es_anchors WHERE seq = $1', [afterSeq])
        ).rows[0]?.d.toString('hex') ?? null)
      : null;
  return fromRows(r.rows, before);
}

/**
 * Writes anchors until the log's readable end is covered; answers the anchors written. Each is
 * appended to the published file (`publishTo`; default: anchor-publish.ts's, null: none), after any
 * the database holds that the file does not yet (a job that stopped between the two).
 * `through`: anchor no event past this position, so the last anchor written ends at it (an audit
 * export's own event, whose anchor then records the stream's head as of the export); the events
 * after it are left to the next run.
 */
export async function writeAnchors(
  pool: pg.Pool,
  store: EventStore,
  options: {
    maxEvents?: number;
    publishTo?: string | null;
    witness?: TailWitness | null;
    through?: Position;
  } = {},
): Promise<Anchor[]> {
  const maxEvents = options.maxEvents ?? 10_000;
  await ensureAnchorColumns(pool);
  const file = options.publishTo === undefined ? await anchorFile(pool) : options.publishTo;
  if (file) appendPublished(file, await readAnchors(pool, lastPublishedSeq(file)));
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
    const after = previous?.last_position ?? START;
    const read: LoggedHash[] = store.readLogHashes
      ? await store.readLogHashes(after, maxEvents)
      : await store.readAll(after, maxEvents, { settle: true });
    const { through } = options;
    const logged = through === undefined ? read : read.filter((l) => l.position <= through);
    if (logged.length === 0) return written;
    // The same range again with each event's stream and version (for the heads): all of it is below
    // the horizon the settled read found, so the rows are the same ones.
    const events = await readRange(pool, after, logged[logged.length - 1].position);
    if (events.length !== logged.length)
      throw new Error(`anchor-log: ${events.length} events read back where ${logged.length} were read`);
    for (const e of events)
      if (!e.hash) throw new Error(`event ${e.eventId} has no hash: run npm run migrate`);
    const seq = previous ? Number(previous.seq) + 1 : 1;
    const anchor = buildAnchor(seq, previous?.digest.toString('hex') ?? null, events);
    // Two workers at once: one insert wins, the other finds the row and goes on from it.
    const r = await pool.query(
      `INSERT INTO es_anchors (seq, version, first_position, last_position, event_count, digest, root, heads, previous)
       VALUES ($1, 2, $2, $3, $4, decode($5, 'hex'), decode($6, 'hex'), $7, decode($8, 'hex'))
       ON CONFLICT (seq) DO NOTHING`,
      [
        anchor.seq,
        anchor.firstPosition,
        anchor.lastPosition,
        anchor.eventCount,
        anchor.digest,
        anchor.root,
        JSON.stringify(anchor.heads),
        anchor.previous,
      ],
    );
    if (r.rowCount === 1) {
      written.push(anchor);
      if (file) appendPublished(file, [anchor]);
      // What the anchor pins, the tail witness may forget; failing that it holds a little more.
      await options.witness?.anchored(anchor.heads ?? []).catch(() => {});
    } else {
      // Another worker wrote this anchor: go on from it. The same number refused twice means the
      // last anchor is not being found (this job once spun here for ever): fail, loudly, instead.
      if (conflicted === anchor.seq)
        throw new Error(`anchor-log: anchor ${anchor.seq} exists but is not read as the last one`);
      conflicted = anchor.seq;
    }
    if ((logged.length < read.length || read.length < maxEvents) && r.rowCount === 1) return written;
  }
}
