// The append statement (group commit: many appends to distinct streams in one statement) and its
// parameters. The store's queue that fills it is PostgresEventStore.append (postgres.ts).
import type pg from 'pg';
import { APPEND_LOCK_CLASS } from '../shared/advisory-locks.js';
import { eventParts } from './chain.js';
import type { AppendResult, ExpectedVersion, NewEvent } from './port.js';
import { streamHeadSql } from './postgres-rows.js';
import { CHANNEL } from './postgres-schema.js';

/**
 * Per-stream order in the global log. Readers order by transaction id, and Postgres hands out a
 * transaction id at the first write. Were a transaction to write first and then wait for another
 * writer of the same stream, it would hold the older id yet the newer stream version, and the log
 * would show version 6 before version 5. So an append takes an advisory lock per stream (held to
 * commit; taking it assigns no transaction id) before it writes anything: whoever wrote the stream
 * before has committed, with an older id. Two-key form, so it never meets our single-key locks.
 *
 * One statement appends to many streams (group commit): `lock` takes every stream's lock in one
 * sorted pass (no deadlock); `req` reads each stream's head, its last event (version and hash), by
 * the primary key, and keeps the appends whose expected version holds; `ins` writes their events in
 * append order, chaining each stream's first new event to the head's hash (the row trigger chains
 * the later events of a multi-event append: it sees the rows its own statement inserted before).
 * Expected versions: -1 any, -2 stream exists, 0 no stream, n > 0 exactly n.
 *
 * There is no table of streams: the events' primary key (stream_id, stream_version) is the version
 * check. es_streams, one row per stream rewritten by every append, cost a quarter of the statement's
 * Postgres CPU (560 against 750 µs for 16 appends) and a fifth of its time.
 * The head is read in the statement's snapshot, which is taken before the lock wait: an append to
 * the same stream that committed meanwhile is not seen. Then the new event takes a version that
 * exists, the primary key refuses it (23505) and nothing of the statement is written; each append is
 * tried again alone in a new snapshot (commitBatch, appendAlone). It cannot pass unseen: the version
 * it would take is exactly the one the unseen append wrote. And an expected version that the stale
 * head does not match is a true conflict: a caller who expects version n has read n, so the append
 * that wrote n committed before this statement began, and its snapshot shows it. (Only "stream
 * exists" can be refused for a stream created meanwhile; the caller gets a conflict and decides again.)
 * The head lookup is LATERAL with LIMIT 1, which keeps Postgres from flattening it into a join: a
 * connection keeps the generic plan of its first append (services/shared/db.ts), and one made on an empty
 * log hash-joined full scans of es_events, read again by every append until autovacuum's ANALYZE
 * replanned it.
 * `wake` notifies subscribers at commit on every append, even one that wrote no event (a version
 * conflict): such an append still held readers back (es_horizon) while it ran, and its end must wake
 * the readers that were waiting behind it.
 */
const APPEND_MANY = `
WITH lock AS MATERIALIZED (
  SELECT count(pg_advisory_xact_lock(${APPEND_LOCK_CLASS}, k)) AS locked
  FROM (SELECT DISTINCT hashtext(s) AS k FROM unnest($1::text[]) AS s ORDER BY 1) AS keys),
wake AS MATERIALIZED (SELECT pg_notify('${CHANNEL}', '') AS sent),
req AS MATERIALIZED (
  SELECT r.stream_id, r.n, r.idx, coalesce(h.version, 0) AS base, h.hash AS head_hash
  FROM lock, wake,
       unnest($1::text[], $2::bigint[], $3::int[]) WITH ORDINALITY AS r(stream_id, expected, n, idx)
       LEFT JOIN LATERAL (${streamHeadSql('r.stream_id', 'stream_version AS version, hash')}) h ON true
  WHERE CASE r.expected WHEN -1 THEN true WHEN -2 THEN h.version IS NOT NULL
                        ELSE coalesce(h.version, 0) = r.expected END),
ins AS (
  INSERT INTO es_events(stream_id, stream_version, event_id, event_type, schema_version, data, metadata, digest, hash)
  SELECT r.stream_id, r.base + e.ord, e.id, e.type, e.sv, e.data, e.meta, g.digest,
         CASE WHEN e.ord = 1 AND length(g.digest) = 32 AND (r.base = 0 OR r.head_hash IS NOT NULL)
              THEN sha256(COALESCE(r.head_hash, ''::bytea) || int8send(r.base + 1) || g.digest) END
  FROM ROWS FROM (unnest($4::int[]), unnest($5::int[]), unnest($6::uuid[]), unnest($7::text[]),
                  unnest($8::int[]), json_array_elements($9::json), json_array_elements($10::json))
         WITH ORDINALITY AS e(idx, ord, id, type, sv, data, meta, i)
       CROSS JOIN LATERAL (SELECT substring($11::bytea FROM (e.i::int - 1) * 32 + 1 FOR 32) AS digest) g
       JOIN req r ON r.idx = e.idx
  ORDER BY e.idx, e.ord
  RETURNING es_events.stream_id, es_events.stream_version, es_events.epoch, es_events.transaction_id,
    es_events.global_position)
SELECT ins.stream_id, max(ins.stream_version)::text AS stream_version, max(ins.epoch) AS epoch,
       min(ins.transaction_id::text) AS transaction_id, max(ins.global_position)::text AS global_position
FROM ins GROUP BY ins.stream_id`;

function expectedCode(expected: ExpectedVersion): number {
  if (expected === 'any') return -1;
  if (expected === 'stream_exists') return -2;
  if (expected === 'no_stream') return 0;
  return expected;
}

/** An event's digest and its data and metadata as canonical JSON: the text the store writes (chain.ts). */
export const partsOf = (streamId: string, e: NewEvent) =>
  eventParts({
    id: e.id,
    streamId,
    type: e.type,
    schemaVersion: e.schemaVersion ?? 1,
    data: e.data,
    metadata: e.metadata,
  });

/**
 * One statement for appends to distinct streams; rows come back per stream that was appended.
 * (Exported for the test of its plan.)
 */
export function appendManyQuery(
  batch: ReadonlyArray<Pick<PendingAppend, 'streamId' | 'events' | 'expected' | 'parts'>>,
): pg.QueryConfig {
  const idx: number[] = [];
  const ord: number[] = [];
  const ids: string[] = [];
  const types: string[] = [];
  const versions: number[] = [];
  const data: string[] = [];
  const meta: string[] = [];
  const digests: Buffer[] = [];
  for (const [i, p] of batch.entries())
    for (const [j, e] of p.events.entries()) {
      idx.push(i + 1);
      ord.push(j + 1);
      ids.push(e.id);
      types.push(e.type);
      versions.push(e.schemaVersion ?? 1);
      const parts = p.parts?.[j] ?? partsOf(p.streamId, e);
      data.push(parts.data);
      meta.push(parts.metadata);
      digests.push(parts.digest);
    }
  return {
    name: 'es_append_many',
    text: APPEND_MANY,
    values: [
      batch.map((p) => p.streamId),
      batch.map((p) => expectedCode(p.expected)),
      batch.map((p) => p.events.length),
      idx,
      ord,
      ids,
      types,
      versions,
      // Data and metadata as one JSON array each of their canonical texts (json keeps each element's
      // text as given, so a verifier hashes it as stored), the digests as one string of 32-byte
      // digests: pg writes a text[] or bytea[] literal by escaping every element in JavaScript, which
      // was 5 % of the gateway's CPU in a CSV import (1,000 events a statement).
      `[${data.join(',')}]`,
      `[${meta.join(',')}]`,
      Buffer.concat(digests),
    ],
  };
}

/** Statements an append alone may run when each finds its stream's head moved under it (a hot stream). */
export const STALE_HEAD_TRIES = 5;

export interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
  /** Taken as the append waits, while the statement before it runs, not after it (chain.ts). */
  parts?: Array<{ digest: Buffer; data: string; metadata: string }>;
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

export type AppendRow = {
  epoch: number;
  transaction_id: string;
  global_position: string;
  stream_version: string;
};
