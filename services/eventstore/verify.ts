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
// - the tail after the last anchor: no anchor covers it yet. The tail witness (tail-witness.ts, kept
//   in Redis) saw each stream's last version at its commit: a version it saw that the log lacks was
//   removed, named exactly. The projections' checkpoints are a second record: one past the log's last
//   event means events were removed from its end (docs/decisions/0029-audit.md).
// `npm run audit -- verify` runs it (tools/audit.ts).
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import { anchorFile, type PublishedAnchor, readPublished } from './anchor-publish.js';
import { type Anchor, anchorDigestV2, type Head, headsDigest, readAnchors } from './anchors.js';
import { START } from './port.js';
import { encodePosition, POSITION_SQL, positionParams } from './postgres.js';
import type { TailWitness } from './tail-witness.js';
import {
  type BoundedAnchor,
  type Finding,
  type First,
  linkEvent,
  type Slice,
  type SliceResult,
  verifySlice,
} from './verify-slice.js';

export type { Finding } from './verify-slice.js';

export interface Verification {
  events: number;
  streams: number;
  anchors: number;
  /** Anchors in the published file (null: no file was compared). */
  published: number | null;
  /** Events after the last anchor. */
  unanchored: number;
  /** Streams the tail witness saw written since the last anchor (null: no witness was read). */
  witnessed: number | null;
  /** Slices of the log checked side by side (worker threads when more than one). */
  slices: number;
  findings: Finding[];
}

const PAGE = 10_000;
/** Below this many anchored events a worker's start costs more than it saves. */
const THREADS_FROM = 100_000;

/**
 * `published`: the anchors file to compare with (default: this database's in AUDIT_ANCHOR_DIR; null:
 * none, the database's anchors alone). `threads`: slices of the log checked side by side (default:
 * one per CPU, up to 4, for a log of 100,000 anchored events or more).
 *
 * One walk of the log in its order serves both checks: each event's digest and chain (a stream's
 * versions come in order in the log) and the anchor whose range holds it (verify-slice.ts). A large
 * log is cut at anchor boundaries into slices, each walked in a worker thread on its own connection;
 * each stream's first event in a slice is then linked to its last in the slices before.
 */
export async function verifyLog(
  pool: pg.Pool,
  {
    pageSize = PAGE,
    published,
    witness = null,
    threads,
  }: {
    pageSize?: number;
    published?: string | null;
    /** The log's end as witnessed outside the database (tail-witness.ts). */
    witness?: Pick<TailWitness, 'read'> | null;
    threads?: number;
  } = {},
): Promise<Verification> {
  const findings: Finding[] = [];
  const file = published === undefined ? await anchorFile(pool) : published;
  const { anchors, publishedCount } = await reconcileAnchors(pool, file, findings);
  const bounded = checkAnchors(anchors, findings);
  const anchored = bounded.reduce((n, b) => n + b.a.eventCount, 0);
  const wanted = threads ?? (anchored >= THREADS_FROM ? Math.min(4, os.availableParallelism()) : 1);
  const slices = partition(bounded, wanted, pageSize);
  const results =
    slices.length === 1
      ? [await verifySlice(pool, slices[0])]
      : await Promise.all(slices.map((slice) => inWorker(pool, slice)));
  const streamFindings: Finding[] = [];
  const streams = new Map<string, { version: number; hash: string }>();
  let events = 0;
  let unanchored = 0;
  for (const r of results) {
    linkFirsts(r.firsts, streams, streamFindings);
    streamFindings.push(...r.streamFindings);
    findings.push(...r.anchorFindings);
    for (const [streamId, version, hash] of r.lasts) streams.set(streamId, { version, hash });
    events += r.events;
    unanchored += r.unanchored;
  }
  // Read after the walk: a stream written meanwhile is in the log by then too.
  const witnessed = witness ? await witness.read() : null;
  if (witnessed) compareWitness(witnessed, streams, streamFindings);
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
    events,
    streams: streams.size,
    anchors: anchors.length,
    published: publishedCount,
    unanchored,
    witnessed: witnessed?.size ?? null,
    slices: slices.length,
    findings: named,
  };
}

/**
 * Each anchor's own digest and its chain to the one before (they need no events); answers the
 * anchors whose positions are log positions, the ones whose ranges the walk checks.
 */
function checkAnchors(anchors: Anchor[], findings: Finding[]): BoundedAnchor[] {
  const bounded: BoundedAnchor[] = [];
  let prior = null as Anchor | null;
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
    try {
      const [epoch, txid, globalPosition] = positionParams(a.lastPosition);
      bounded.push({
        a,
        end: encodePosition(epoch, txid, globalPosition),
        previousDigest: prior?.digest ?? null,
      });
    } catch {
      // Not a position (the row was edited): the next anchor's range starts where the last readable
      // one ended, so what this one covered shows there too.
      findings.push({ kind: 'altered', where, detail: 'its positions are not log positions' });
    }
    prior = a;
  }
  return bounded;
}

/**
 * Runs of anchors of about equal events, cut at anchor ends; the last slice runs to the log's end.
 * One slice when a cut would need what only events tell: a version-1 anchor (no recorded heads) or
 * anchors out of order (edited rows).
 */
function partition(bounded: BoundedAnchor[], wanted: number, pageSize: number): Slice[] {
  const simple =
    wanted <= 1 ||
    bounded.length < 2 ||
    bounded.some((b, i) => b.a.version !== 2 || !b.a.heads || (i > 0 && b.end <= bounded[i - 1].end));
  if (simple) return [{ after: START, until: null, anchors: bounded, heads: [], pageSize }];
  const total = bounded.reduce((n, b) => n + b.a.eventCount, 0);
  const groups: BoundedAnchor[][] = [];
  let acc = 0;
  let group: BoundedAnchor[] = [];
  for (const b of bounded) {
    group.push(b);
    acc += b.a.eventCount;
    if (groups.length < wanted - 1 && acc >= (total * (groups.length + 1)) / wanted) {
      groups.push(group);
      group = [];
    }
  }
  if (group.length > 0) groups.push(group);
  const heads = new Map<string, Head>();
  let after = START;
  return groups.map((anchors, k) => {
    const slice: Slice = {
      after,
      until: k === groups.length - 1 ? null : anchors[anchors.length - 1].end,
      anchors,
      heads: [...heads.values()],
      pageSize,
    };
    for (const b of anchors) for (const h of b.a.heads ?? []) heads.set(h[0], h);
    after = slice.until ?? after;
    return slice;
  });
}

/** A slice in a worker thread on a connection of its own (verify-worker.ts). */
function inWorker(pool: pg.Pool, slice: Slice): Promise<SliceResult> {
  const own = fileURLToPath(import.meta.url);
  const module = path.join(path.dirname(own), `verify-worker${path.extname(own)}`);
  const worker = new Worker(new URL('./verify-worker-boot.mjs', import.meta.url), {
    workerData: { module, connection: connectionOf(pool), slice },
    // A walk allocates a few hundred bytes per event: a larger young generation halves the GC's time.
    resourceLimits: { maxYoungGenerationSizeMb: 96 },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (r: SliceResult) => resolve(r));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`a verify worker stopped (exit ${code})`)));
  });
}

/** The pool's connection settings, as a worker can be handed them (no functions, no sockets). */
function connectionOf(pool: pg.Pool): pg.ClientConfig {
  const o = (pool as unknown as { options: pg.PoolConfig }).options;
  const keep = [
    'connectionString',
    'host',
    'port',
    'user',
    'database',
    'options',
    'application_name',
  ] as const;
  const out: Record<string, unknown> = {};
  for (const k of keep) if (o[k] !== undefined) out[k] = o[k];
  if (typeof o.password === 'string') out.password = o.password;
  if (typeof o.ssl === 'boolean' || (o.ssl && typeof o.ssl === 'object')) out.ssl = o.ssl;
  return out as pg.ClientConfig;
}

/** Each stream's first event in a slice against its last in the slices before (verify-slice.ts's rule). */
function linkFirsts(
  firsts: readonly First[],
  streams: Map<string, { version: number; hash: string }>,
  findings: Finding[],
) {
  const bytes = (hex: string | null) => (hex ? Buffer.from(hex, 'hex') : null);
  for (const [streamId, version, digest, hash] of firsts) {
    const prev = streams.get(streamId);
    linkEvent(
      findings,
      streamId,
      { version: prev?.version ?? 0, hash: bytes(prev?.hash ?? null) },
      version,
      bytes(digest),
      bytes(hash),
    );
  }
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

/**
 * Every version the witness saw committed must be in the log: one missing was removed after its
 * commit (the tail after the last anchor, whatever the database's own checkpoints say).
 */
function compareWitness(
  witnessed: Map<string, number>,
  streams: Map<string, { version: number }>,
  findings: Finding[],
) {
  for (const [streamId, seen] of witnessed) {
    const last = streams.get(streamId)?.version ?? 0;
    for (let v = last + 1; v <= seen; v++)
      findings.push({
        kind: 'removed',
        where: `stream ${streamId} version ${v}`,
        detail: `committed (the tail witness saw the stream at version ${seen}), gone from the log`,
      });
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
