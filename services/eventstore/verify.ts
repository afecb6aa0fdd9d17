// Verifies the Postgres log's tamper evidence (chain.ts, anchors.ts, anchor-publish.ts) and names
// every finding:
// - per stream, from version 1: a version missing (removed), content that no longer gives its digest
//   or a hash that does not follow from the one before (altered);
// - the anchors: the database's against the published file (an anchor rewritten, dropped or never
//   published), each one's digest and its chain to the one before, by its version's rule;
// - per anchor, the events now in its range (the published anchor's where there is one): version 2
//   records each stream's head in the range, so the range must hold exactly each stream's versions
//   from its head at the anchor before up to that head: a version missing is named removed (a
//   stream's tail or a whole stream), one too many inserted, and a root that no longer matches
//   altered. Version 1 anchors tell only how many events and whether their digest still holds.
// - the tail after the last anchor: no anchor covers it yet, but the projections' checkpoints are a
//   record of how far the log went; a checkpoint past the log's last event means events were removed
//   from its end (docs/decisions/0029-audit.md says what this can and cannot catch).
// `npm run audit -- verify` runs it (tools/audit.ts).
import { existsSync } from 'node:fs';
import type pg from 'pg';
import { anchorFile, type PublishedAnchor, readPublished } from './anchor-publish.js';
import {
  type Anchor,
  anchorDigestV2,
  type Head,
  headsDigest,
  headsOf,
  type RangeEvent,
  readAnchors,
  readRange,
} from './anchors.js';
import { anchorDigest, chainHash, eventDigest } from './chain.js';
import { merkleRoot } from './merkle.js';
import { START } from './port.js';
import { POSITION_SQL, positionParams } from './postgres.js';

export interface Finding {
  kind: 'altered' | 'inserted' | 'removed' | 'unpublished';
  /** `stream <id> version <n>`, `stream <id>`, `anchor <seq>`, `published file` or `log tail`. */
  where: string;
  detail: string;
}

export interface Verification {
  events: number;
  streams: number;
  anchors: number;
  /** Anchors in the published file (null: no file was compared). */
  published: number | null;
  /** Events after the last anchor. */
  unanchored: number;
  findings: Finding[];
}

type Row = [
  streamId: string,
  version: number,
  eventId: string,
  type: string,
  schemaVersion: number,
  data: string,
  metadata: string,
  digest: Buffer | null,
  hash: Buffer | null,
];

const PAGE = 10_000;

/**
 * `published`: the anchors file to compare with (default: this database's in AUDIT_ANCHOR_DIR; null:
 * none, the database's anchors alone).
 */
export async function verifyLog(
  pool: pg.Pool,
  { pageSize = PAGE, published }: { pageSize?: number; published?: string | null } = {},
): Promise<Verification> {
  const streamFindings: Finding[] = [];
  const findings: Finding[] = [];
  const file = published === undefined ? await anchorFile(pool) : published;
  // The two walks are independent: while one waits on Postgres the other hashes.
  const [streams, { anchors, publishedCount, unanchored }] = await Promise.all([
    verifyStreams(pool, pageSize, streamFindings),
    reconcileAnchors(pool, file, findings).then(async (r) => ({
      ...r,
      unanchored: await verifyRanges(pool, r.anchors, findings),
    })),
  ]);
  findings.unshift(...streamFindings);
  await verifyTail(pool, findings);
  // A removal inside a stream shows in its chain and under its anchor's heads: named once.
  const seen = new Set<string>();
  const named = findings.filter((f) => {
    const key = f.where.startsWith('stream ') ? `${f.kind} ${f.where}` : `${f.kind} ${f.where} ${f.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    events: streams.events,
    streams: streams.streams,
    anchors: anchors.length,
    published: publishedCount,
    unanchored,
    findings: named,
  };
}

async function verifyStreams(pool: pg.Pool, pageSize: number, findings: Finding[]) {
  const out = { events: 0, streams: 0 };
  let current = null as { id: string; version: number; hash: Buffer | null } | null;
  const after: [string, number] = ['', 0];
  // ORDER BY names the table's columns: the bare `stream_version` would be the text column of the
  // select list, and a stream's version 10 would come before its version 2. Data and metadata as
  // text (json columns: their text as stored), parsed here: node-postgres' own parse is no faster.
  const read = (from: [string, number]) =>
    pool
      .query({
        text: `SELECT stream_id, stream_version::int, event_id::text, event_type, schema_version, data::text,
                    metadata::text, digest, hash
               FROM es_events WHERE (stream_id, stream_version) > ($1, $2)
              ORDER BY es_events.stream_id, es_events.stream_version LIMIT ${pageSize}`,
        values: from,
        rowMode: 'array',
      })
      .then((r) => r.rows as Row[]);
  let next = read(after);
  for (;;) {
    const rows = await next;
    // The next page is read while this one is hashed.
    if (rows.length === pageSize) {
      const last = rows[rows.length - 1];
      next = read([last[0], last[1]]);
    }
    for (const [streamId, version, eventId, type, schemaVersion, data, metadata, stored, hash] of rows) {
      out.events++;
      if (current?.id !== streamId) {
        out.streams++;
        current = { id: streamId, version: 0, hash: null };
      }
      const where = `stream ${streamId} version ${version}`;
      if (version !== current.version + 1) {
        for (let v = current.version + 1; v < version; v++)
          findings.push({ kind: 'removed', where: `stream ${streamId} version ${v}`, detail: 'missing' });
        // The first event after a gap chains to one that is gone: judge its own content only.
        current.hash = null;
      }
      const digest = eventDigest({
        id: eventId,
        streamId,
        type,
        schemaVersion,
        data: JSON.parse(data),
        metadata: JSON.parse(metadata),
      });
      if (!stored || !hash) {
        findings.push({ kind: 'inserted', where, detail: 'no digest or hash (written around the store)' });
      } else if (!digest.equals(stored)) {
        findings.push({ kind: 'altered', where, detail: `${type}: content does not give its digest` });
      } else if (version === current.version + 1 && !chainHash(current.hash, version, digest).equals(hash)) {
        findings.push({ kind: 'altered', where, detail: 'hash does not follow from the previous event' });
      }
      current.version = version;
      current.hash = hash;
    }
    if (rows.length < pageSize) break;
  }
  return out;
}

const same = (a: PublishedAnchor, b: PublishedAnchor) =>
  a.version === b.version &&
  a.firstPosition === b.firstPosition &&
  a.lastPosition === b.lastPosition &&
  a.eventCount === b.eventCount &&
  a.digest === b.digest &&
  (a.root ?? null) === (b.root ?? null) &&
  (a.previous ?? null) === (b.previous ?? null) &&
  JSON.stringify(a.heads ?? null) === JSON.stringify(b.heads ?? null);

/**
 * The anchors to check the log against: the published ones where the file has them (it is outside
 * the database), the database's beyond. Each disagreement is a finding.
 */
async function reconcileAnchors(pool: pg.Pool, file: string | null, findings: Finding[]) {
  const db = await readAnchors(pool);
  if (!file) return { anchors: db, publishedCount: null };
  const { anchors: lines, badLines } = existsSync(file) ? readPublished(file) : { anchors: [], badLines: [] };
  for (const n of badLines)
    findings.push({ kind: 'altered', where: 'published file', detail: `line ${n} is not an anchor` });
  const published = new Map<number, PublishedAnchor>();
  for (const a of lines) {
    const seen = published.get(a.seq);
    // A job that stopped between its append and its next run may publish an anchor twice, alike.
    if (seen && !same(seen, a))
      findings.push({
        kind: 'altered',
        where: `anchor ${a.seq}`,
        detail: 'the published file holds two different anchors of this number',
      });
    if (!seen) published.set(a.seq, a);
  }
  const bySeq = new Map(db.map((a) => [a.seq, a]));
  const seqs = [...new Set([...bySeq.keys(), ...published.keys()])].sort((a, b) => a - b);
  const anchors: Anchor[] = [];
  for (const seq of seqs) {
    const inDb = bySeq.get(seq);
    const out = published.get(seq);
    const where = `anchor ${seq}`;
    if (inDb && out && !same(inDb, out))
      findings.push({
        kind: 'altered',
        where,
        detail: "the database's anchor differs from the published one",
      });
    else if (!inDb)
      findings.push({ kind: 'removed', where, detail: 'published, but gone from the database' });
    else if (!out)
      findings.push({ kind: 'unpublished', where, detail: 'in the database, but not in the published file' });
    anchors.push((out ?? inDb) as Anchor);
  }
  return { anchors, publishedCount: published.size };
}

/** Each anchor's own digest and its chain, then its range; answers the events after the last one. */
async function verifyRanges(pool: pg.Pool, anchors: Anchor[], findings: Finding[]) {
  let prior = null as Anchor | null;
  /** Each stream's head at the anchor before (from the anchors' heads). */
  const heads = new Map<string, { version: number; hash: string }>();
  for (const a of anchors) {
    const where = `anchor ${a.seq}`;
    if (prior && a.seq !== prior.seq + 1)
      findings.push({
        kind: 'removed',
        where: `anchor ${prior.seq + 1}`,
        detail: 'missing from the anchor chain',
      });
    if ((a.previous ?? null) !== (prior?.digest ?? null))
      findings.push({ kind: 'altered', where, detail: "it does not chain to the previous anchor's digest" });
    if (a.version === 2) {
      const expected = anchorDigestV2({
        seq: a.seq,
        previous: a.previous,
        firstPosition: a.firstPosition,
        lastPosition: a.lastPosition,
        eventCount: a.eventCount,
        root: a.root ?? '',
        headsDigest: headsDigest(a.heads ?? []),
      });
      if (expected !== a.digest || (a.headsDigest && a.headsDigest !== headsDigest(a.heads ?? [])))
        findings.push({ kind: 'altered', where, detail: 'its fields no longer give its digest' });
    }
    let events: RangeEvent[];
    try {
      positionParams(a.lastPosition);
      events = await readRange(pool, prior?.lastPosition ?? START, a.lastPosition);
    } catch {
      // Not a position (the row was edited): the next anchor's range starts where the last readable
      // one ended, so what this one covered shows there too.
      findings.push({ kind: 'altered', where, detail: 'its positions are not log positions' });
      prior = { ...a, lastPosition: prior?.lastPosition ?? START };
      continue;
    }
    const range = `positions ${a.firstPosition} to ${a.lastPosition}`;
    if (a.version === 2 && a.heads) checkHeads(a, events, heads, findings);
    // A version-1 anchor records no heads: the streams' versions found in its range stand for them
    // (its digest, checked below, says whether the range is what it anchored).
    else for (const [streamId, version, hash] of headsOf(events)) heads.set(streamId, { version, hash });
    const hashes = events.map((e) => e.hash ?? Buffer.alloc(0));
    if (events.length > a.eventCount)
      findings.push({
        kind: 'inserted',
        where,
        detail: `${events.length - a.eventCount} event(s) more than anchored in ${range}`,
      });
    else if (events.length < a.eventCount)
      findings.push({
        kind: 'removed',
        where,
        detail: `${a.eventCount - events.length} event(s) fewer than anchored in ${range}`,
      });
    else if (
      a.version === 2
        ? merkleRoot(hashes).toString('hex') !== a.root
        : !anchorDigest(prior ? Buffer.from(prior.digest, 'hex') : null, hashes).equals(
            Buffer.from(a.digest, 'hex'),
          )
    )
      findings.push({
        kind: 'altered',
        where,
        detail: `the events in ${range} no longer give the anchor's ${a.version === 2 ? 'Merkle root' : 'digest'}`,
      });
    prior = a;
  }
  const tail = await pool.query<{ n: string }>(
    prior
      ? `SELECT count(*)::text AS n FROM es_events WHERE (epoch, transaction_id, global_position) > ($1, $2::xid8, $3::bigint)`
      : 'SELECT count(*)::text AS n FROM es_events',
    prior ? safeParams(prior.lastPosition) : [],
  );
  return Number(tail.rows[0].n);
}

function safeParams(position: string): unknown[] {
  try {
    return positionParams(position);
  } catch {
    return positionParams(START);
  }
}

/**
 * A version-2 range holds, per stream, the versions after its head at the anchor before up to its
 * head at this one: every one missing is named removed, every other one there inserted, and a head
 * whose hash differs names a stream whose chain was rewritten up to it.
 */
function checkHeads(
  a: Anchor,
  events: readonly RangeEvent[],
  heads: Map<string, { version: number; hash: string }>,
  findings: Finding[],
) {
  const where = (s: string, v: number) => `stream ${s} version ${v}`;
  const present = new Map<string, Map<number, RangeEvent>>();
  for (const e of events) {
    const versions = present.get(e.streamId) ?? new Map<number, RangeEvent>();
    present.set(e.streamId, versions);
    versions.set(e.version, e);
  }
  const recorded = new Map<string, Head>((a.heads ?? []).map((h) => [h[0], h]));
  /** The first version of each stream this range should hold: after its head at the anchor before. */
  const from = (streamId: string) => (heads.get(streamId)?.version ?? 0) + 1;
  for (const [streamId, versions] of present) {
    const head = recorded.get(streamId);
    for (const v of versions.keys())
      if (!head || v > head[1] || v < from(streamId))
        findings.push({
          kind: 'inserted',
          where: where(streamId, v),
          detail: `in anchor ${a.seq}'s range, which did not hold it`,
        });
  }
  for (const [streamId, version, hash] of recorded.values()) {
    const first = from(streamId);
    const versions = present.get(streamId);
    for (let v = first; v <= version; v++)
      if (!versions?.has(v))
        findings.push({
          kind: 'removed',
          where: where(streamId, v),
          detail: `anchored in anchor ${a.seq}, gone`,
        });
    const head = versions?.get(version);
    if (head?.hash && head.hash.toString('hex') !== hash)
      findings.push({
        kind: 'altered',
        where: `stream ${streamId}`,
        detail: `versions ${first} to ${version} no longer end in the hash anchor ${a.seq} recorded`,
      });
    heads.set(streamId, { version, hash });
  }
}

/** A projection that has read past the log's last event: the log lost its end. */
async function verifyTail(pool: pg.Pool, findings: Finding[]) {
  const r = await pool
    .query<{ name: string; position: string; head: string | null }>(
      `SELECT c.name, c.position,
            (SELECT ${POSITION_SQL} FROM es_events
              ORDER BY es_events.epoch DESC, es_events.transaction_id DESC, es_events.global_position DESC
              LIMIT 1) AS head
       FROM projection_checkpoints c WHERE c.position <> ''`,
      // A store without read models (the event store's own tests) has no checkpoints to compare.
    )
    .catch(() => ({ rows: [] as Array<{ name: string; position: string; head: string | null }> }));
  for (const c of r.rows)
    if (c.head === null || c.position > c.head)
      findings.push({
        kind: 'removed',
        where: 'log tail',
        detail: `projection ${c.name} has read up to ${c.position}, past the log's last event (${c.head ?? 'none'})`,
      });
}
