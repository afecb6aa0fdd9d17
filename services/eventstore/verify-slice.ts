// One slice of `audit verify`'s walk (verify.ts): the events of a run of anchors' ranges, read in log
// order, each checked against its digest and its stream's chain, and each range against its anchor.
// A slice runs in the verifying process or in a worker thread of its own (verify-worker.ts): the
// slices of a large log run side by side. A stream's first event in a slice chains to an event of an
// earlier slice, so it is handed back (`firsts`) for verify.ts to check once every slice is done.
import type pg from 'pg';
import { type Anchor, type Head, headsOf } from './anchors.js';
import { anchorDigest, chainHash, contentText, eventDigest, sha256 } from './chain.js';
import { merkleRoot } from './merkle.js';
import { LOG_ORDER_SQL, logOrderSql, POSITION_SQL, positionParams } from './postgres.js';

export interface Finding {
  kind: 'altered' | 'inserted' | 'removed' | 'unpublished';
  /** `stream <id> version <n>`, `stream <id>`, `anchor <seq>`, `published file` or `log tail`. */
  where: string;
  detail: string;
}

/** An anchor whose positions are log positions, with its range's end in position form. */
export interface BoundedAnchor {
  a: Anchor;
  end: string;
  /** The anchor before it (a version-1 digest chains to its digest). */
  previousDigest: string | null;
}

export interface Slice {
  /** The events after this position… */
  after: string;
  /** …up to this one (null: to the log's end). */
  until: string | null;
  anchors: BoundedAnchor[];
  /** Each stream's head at the anchor before the slice (from the anchors' recorded heads). */
  heads: Head[];
  pageSize: number;
}

/** A stream's first event in the slice: its chain link is checked against the slices before. */
export type First = [
  streamId: string,
  version: number,
  /** The digest its content gives, hex; null when it has no stored digest and hash or they differ. */
  digest: string | null,
  hash: string | null,
];

export interface SliceResult {
  events: number;
  unanchored: number;
  firsts: First[];
  /** Each stream's last event in the slice: [streamId, version, hash hex or ''] */
  lasts: Head[];
  streamFindings: Finding[];
  anchorFindings: Finding[];
}

type Row = [
  position: string,
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

type Reader = Pick<pg.Pool, 'query'> | Pick<pg.Client, 'query'>;

export async function verifySlice(db: Reader, slice: Slice): Promise<SliceResult> {
  const chains = new Chains();
  const ranges = new Ranges(slice.anchors, slice.heads);
  const upTo = slice.until === null ? '' : `AND ${logOrderSql('<=', 4)}`;
  const read = (after: string) =>
    db
      .query({
        text: `SELECT ${POSITION_SQL}, stream_id, stream_version::int, event_id::text, event_type, schema_version,
                      data::text, metadata::text, digest, hash
                 FROM es_events WHERE ${logOrderSql('>', 1)} ${upTo}
                ORDER BY ${LOG_ORDER_SQL} LIMIT ${slice.pageSize}`,
        values: [...positionParams(after), ...(slice.until === null ? [] : positionParams(slice.until))],
        rowMode: 'array',
      })
      .then((r) => r.rows as Row[]);
  let next = read(slice.after);
  for (;;) {
    const rows = await next;
    // The next page is read while this one is hashed.
    if (rows.length === slice.pageSize) next = read(rows[rows.length - 1][0]);
    for (const row of rows) {
      chains.add(row);
      ranges.add(row);
    }
    if (rows.length < slice.pageSize) break;
  }
  ranges.end();
  return {
    events: chains.events,
    unanchored: ranges.unanchored,
    firsts: chains.firsts,
    lasts: [...chains.streams].map(([s, c]) => [s, c.version, c.hash?.toString('hex') ?? '']),
    streamFindings: chains.findings,
    anchorFindings: ranges.findings,
  };
}

/** Each stream's chain, as the log hands its events over. */
class Chains {
  events = 0;
  readonly streams = new Map<string, { version: number; hash: Buffer | null }>();
  readonly firsts: First[] = [];
  readonly findings: Finding[] = [];

  add([, streamId, version, eventId, type, schemaVersion, data, metadata, stored, hash]: Row) {
    this.events++;
    const where = `stream ${streamId} version ${version}`;
    // Written by the store: the canonical text as stored. Else (an event written before the store
    // kept its text canonical, or an edited one) the content parsed and made canonical.
    let digest = sha256(contentText(eventId, streamId, type, schemaVersion, data, metadata));
    if (!stored?.equals(digest))
      digest = eventDigest({
        id: eventId,
        streamId,
        type,
        schemaVersion,
        data: JSON.parse(data),
        metadata: JSON.parse(metadata),
      });
    const whole = !!stored && !!hash && digest.equals(stored);
    if (!stored || !hash)
      this.findings.push({ kind: 'inserted', where, detail: 'no digest or hash (written around the store)' });
    else if (!whole)
      this.findings.push({ kind: 'altered', where, detail: `${type}: content does not give its digest` });
    const current = this.streams.get(streamId);
    if (!current) {
      // Its link to the event before is checked across slices (verify.ts, linkFirsts).
      this.firsts.push([
        streamId,
        version,
        whole ? digest.toString('hex') : null,
        hash?.toString('hex') ?? null,
      ]);
      this.streams.set(streamId, { version, hash });
      return;
    }
    if (linkEvent(this.findings, streamId, current, version, whole ? digest : null, hash)) {
      current.version = version;
      current.hash = hash;
    }
  }
}

/**
 * An event against the one its stream had before it (version 0 and no hash: none), inside a slice
 * and across slices (verify.ts). `digest`: null when the event's own content already failed. Answers
 * whether the stream goes on from this event: not from one found out of order.
 */
export function linkEvent(
  findings: Finding[],
  streamId: string,
  previous: { version: number; hash: Buffer | null },
  version: number,
  digest: Buffer | null,
  hash: Buffer | null,
): boolean {
  const where = `stream ${streamId} version ${version}`;
  if (version <= previous.version) {
    // A stream's versions are appended in order (postgres-append.ts): one found after a later one
    // was moved in the log. The chain goes on from the later one.
    findings.push({
      kind: 'altered',
      where,
      detail: `out of log order: it comes after version ${previous.version} of its stream`,
    });
    return false;
  }
  if (version !== previous.version + 1)
    for (let v = previous.version + 1; v < version; v++)
      findings.push({ kind: 'removed', where: `stream ${streamId} version ${v}`, detail: 'missing' });
  // The first event after a gap chains to one that is gone: its own content is all there is to judge.
  else if (digest && hash && !chainHash(previous.hash, version, digest).equals(hash))
    findings.push({ kind: 'altered', where, detail: 'hash does not follow from the previous event' });
  return true;
}

/** The anchors' ranges as the walk passes them, each checked when the walk leaves it. */
class Ranges {
  private i = 0;
  /** The current range's events, as three columns: the walk holds up to an anchor's worth. */
  private streamIds: string[] = [];
  private versions: number[] = [];
  private hashes: Buffer[] = [];
  private readonly heads: Map<string, { version: number; hash: string }>;
  readonly findings: Finding[] = [];
  unanchored = 0;

  constructor(
    private readonly bounded: BoundedAnchor[],
    heads: Head[],
  ) {
    this.heads = new Map(heads.map(([s, version, hash]) => [s, { version, hash }]));
  }

  add([position, streamId, version, , , , , , , hash]: Row) {
    while (this.i < this.bounded.length && position > this.bounded[this.i].end) this.close();
    if (this.i < this.bounded.length) {
      this.streamIds.push(streamId);
      this.versions.push(version);
      this.hashes.push(hash ?? EMPTY);
    } else this.unanchored++;
  }

  /** The anchors whose ranges the walk did not reach (their events are gone) are closed empty. */
  end() {
    while (this.i < this.bounded.length) this.close();
  }

  private close() {
    const { a, previousDigest } = this.bounded[this.i++];
    const { streamIds, versions, hashes } = this;
    this.streamIds = [];
    this.versions = [];
    this.hashes = [];
    const events = { streamIds, versions, hashes };
    const where = `anchor ${a.seq}`;
    const range = `positions ${a.firstPosition} to ${a.lastPosition}`;
    if (a.version === 2 && a.heads) checkHeads(a, events, this.heads, this.findings);
    // A version-1 anchor records no heads: the streams' versions found in its range stand for them
    // (its digest, checked below, says whether the range is what it anchored).
    else
      for (const [streamId, version, hash] of headsOf(
        streamIds.map((streamId, k) => ({ streamId, version: versions[k], hash: hashes[k] })),
      ))
        this.heads.set(streamId, { version, hash });
    if (hashes.length > a.eventCount)
      this.findings.push({
        kind: 'inserted',
        where,
        detail: `${hashes.length - a.eventCount} event(s) more than anchored in ${range}`,
      });
    else if (hashes.length < a.eventCount)
      this.findings.push({
        kind: 'removed',
        where,
        detail: `${a.eventCount - hashes.length} event(s) fewer than anchored in ${range}`,
      });
    else if (
      a.version === 2
        ? merkleRoot(hashes).toString('hex') !== a.root
        : !anchorDigest(previousDigest ? Buffer.from(previousDigest, 'hex') : null, hashes).equals(
            Buffer.from(a.digest, 'hex'),
          )
    )
      this.findings.push({
        kind: 'altered',
        where,
        detail: `the events in ${range} no longer give the anchor's ${a.version === 2 ? 'Merkle root' : 'digest'}`,
      });
  }
}

/** A range's events as columns (Ranges). */
interface RangeColumns {
  streamIds: string[];
  versions: number[];
  hashes: Buffer[];
}

const EMPTY = Buffer.alloc(0);

/**
 * A version-2 range holds, per stream, the versions after its head at the anchor before up to its
 * head at this one: every one missing is named removed, every other one there inserted, and a head
 * whose hash differs names a stream whose chain was rewritten up to it. A stream whose versions in
 * the range run one by one from where they should to its recorded head (nearly always) is settled by
 * its first and last; only another one is looked at version by version.
 */
function checkHeads(
  a: Anchor,
  events: RangeColumns,
  heads: Map<string, { version: number; hash: string }>,
  findings: Finding[],
) {
  const where = (s: string, v: number) => `stream ${s} version ${v}`;
  /** Per stream in the range: its first and last version, the last one's hash, whether one by one. */
  const runs = new Map<string, { first: number; last: number; hash: Buffer; steady: boolean }>();
  for (let k = 0; k < events.streamIds.length; k++) {
    const streamId = events.streamIds[k];
    const version = events.versions[k];
    const run = runs.get(streamId);
    if (!run) runs.set(streamId, { first: version, last: version, hash: events.hashes[k], steady: true });
    else {
      if (version !== run.last + 1) run.steady = false;
      if (version > run.last) {
        run.last = version;
        run.hash = events.hashes[k];
      }
    }
  }
  /** The first version of each stream this range should hold: after its head at the anchor before. */
  const from = (streamId: string) => (heads.get(streamId)?.version ?? 0) + 1;
  /** The versions of one stream in the range, for the look version by version. */
  const versionsOf = (streamId: string) => {
    const out = new Map<number, Buffer>();
    for (let k = 0; k < events.streamIds.length; k++)
      if (events.streamIds[k] === streamId) out.set(events.versions[k], events.hashes[k]);
    return out;
  };
  for (const [streamId, version, hash] of a.heads ?? []) {
    const first = from(streamId);
    const run = runs.get(streamId);
    runs.delete(streamId);
    let last: Buffer | undefined;
    if (run?.steady && run.first === first && run.last === version) last = run.hash;
    else {
      const versions = run ? versionsOf(streamId) : new Map<number, Buffer>();
      for (const v of versions.keys())
        if (v > version || v < first)
          findings.push({
            kind: 'inserted',
            where: where(streamId, v),
            detail: `in anchor ${a.seq}'s range, which did not hold it`,
          });
      for (let v = first; v <= version; v++)
        if (!versions.has(v))
          findings.push({
            kind: 'removed',
            where: where(streamId, v),
            detail: `anchored in anchor ${a.seq}, gone`,
          });
      last = versions.get(version);
    }
    if (last && last.length > 0 && last.toString('hex') !== hash)
      findings.push({
        kind: 'altered',
        where: `stream ${streamId}`,
        detail: `versions ${first} to ${version} no longer end in the hash anchor ${a.seq} recorded`,
      });
    heads.set(streamId, { version, hash });
  }
  // Streams in the range that the anchor recorded no head for: none of their events belong there.
  for (const streamId of runs.keys())
    for (const v of versionsOf(streamId).keys())
      findings.push({
        kind: 'inserted',
        where: where(streamId, v),
        detail: `in anchor ${a.seq}'s range, which did not hold it`,
      });
}
