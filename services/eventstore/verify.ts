// Verifies the Postgres log's tamper evidence (chain.ts, anchors.ts) and names every finding:
// - per stream, from version 1: a version missing (removed), content that no longer gives its digest
//   or a hash that does not follow from the one before (altered);
// - per anchor: the events now in its position range must give its digest (more events: inserted,
//   fewer: removed, as many but another digest: altered). This catches what a stream's own chain
//   cannot: a whole stream, or a stream's tail, gone, or an event slipped in with a forged chain.
//   (There is no table of stream versions to compare with: the log is the only record, so a tail
//   removed after the last anchor is not seen. The anchor job's interval bounds that window.)
// `npm run verify-log` runs it (tools/verify-log.ts).
import type pg from 'pg';
import { anchorDigest, chainHash, eventDigest } from './chain.js';
import { START } from './port.js';
import { LOG_ORDER_SQL, logOrderSql, positionParams } from './postgres.js';

export interface Finding {
  kind: 'altered' | 'inserted' | 'removed';
  /** `stream <id> version <n>`, `stream <id>`, or `anchor <seq>`. */
  where: string;
  detail: string;
}

export interface Verification {
  events: number;
  streams: number;
  anchors: number;
  findings: Finding[];
}

interface Row {
  stream_id: string;
  stream_version: string;
  event_id: string;
  event_type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
  digest: Buffer | null;
  hash: Buffer | null;
}

const PAGE = 5000;

export async function verifyLog(
  pool: pg.Pool,
  { pageSize = PAGE }: { pageSize?: number } = {},
): Promise<Verification> {
  const findings: Finding[] = [];
  const out = { events: 0, streams: 0, anchors: 0 };
  let current = null as { id: string; version: number; hash: Buffer | null } | null;
  const endStream = () => {
    if (current) out.streams++;
  };
  let after: [string, number] = ['', 0];
  // ORDER BY names the table's columns: the bare `stream_version` would be the text column of the
  // select list, and a stream's version 10 would come before its version 2.
  for (;;) {
    const page = await pool.query<Row>(
      `SELECT stream_id, stream_version::text, event_id, event_type, schema_version, data, metadata, digest, hash
         FROM es_events WHERE (stream_id, stream_version) > ($1, $2)
        ORDER BY es_events.stream_id, es_events.stream_version LIMIT ${pageSize}`,
      after,
    );
    for (const row of page.rows) {
      out.events++;
      const version = Number(row.stream_version);
      if (current?.id !== row.stream_id) {
        endStream();
        current = { id: row.stream_id, version: 0, hash: null };
      }
      const where = `stream ${row.stream_id} version ${version}`;
      if (version !== current.version + 1) {
        for (let v = current.version + 1; v < version; v++)
          findings.push({
            kind: 'removed',
            where: `stream ${row.stream_id} version ${v}`,
            detail: 'missing',
          });
        // The first event after a gap chains to one that is gone: judge its own content only.
        current.hash = null;
      }
      const digest = eventDigest({
        id: row.event_id,
        streamId: row.stream_id,
        type: row.event_type,
        schemaVersion: row.schema_version,
        data: row.data,
        metadata: row.metadata,
      });
      if (!row.digest || !row.hash) {
        findings.push({ kind: 'inserted', where, detail: 'no digest or hash (written around the store)' });
      } else if (!digest.equals(row.digest)) {
        findings.push({
          kind: 'altered',
          where,
          detail: `${row.event_type}: content does not give its digest`,
        });
      } else if (
        version === current.version + 1 &&
        !chainHash(current.hash, version, digest).equals(row.hash)
      ) {
        findings.push({ kind: 'altered', where, detail: 'hash does not follow from the previous event' });
      }
      current.version = version;
      current.hash = row.hash;
    }
    if (page.rows.length < pageSize) break;
    const last = page.rows[page.rows.length - 1];
    after = [last.stream_id, Number(last.stream_version)];
  }
  endStream();

  // Anchors: each range again, in log order.
  const anchors = await pool.query<{
    seq: string;
    first_position: string;
    last_position: string;
    event_count: number;
    digest: Buffer;
  }>(
    // In number order (es_anchors.seq; the bare name is the select list's text): each anchor's digest
    // chains the one before it.
    'SELECT seq::text, first_position, last_position, event_count, digest FROM es_anchors ORDER BY es_anchors.seq',
  );
  let previous = null as { last: string; digest: Buffer } | null;
  for (const a of anchors.rows) {
    out.anchors++;
    let bounds: unknown[];
    try {
      bounds = [...positionParams(previous?.last ?? START), ...positionParams(a.last_position)];
    } catch {
      // Not a position (the row was edited): named here; the next anchor's range starts where the
      // last readable one ended, so what this one covered shows there too.
      findings.push({
        kind: 'altered',
        where: `anchor ${a.seq}`,
        detail: 'its positions are not log positions',
      });
      previous = { last: previous?.last ?? START, digest: a.digest };
      continue;
    }
    const hashes = await pool.query<{ hash: Buffer | null }>(
      `SELECT hash FROM es_events WHERE ${logOrderSql('>', 1)} AND ${logOrderSql('<=', 4)}
        ORDER BY ${LOG_ORDER_SQL}`,
      bounds,
    );
    const count = hashes.rows.length;
    const digest = anchorDigest(
      previous?.digest ?? null,
      hashes.rows.map((r) => r.hash ?? Buffer.alloc(0)),
    );
    const where = `anchor ${a.seq}`;
    const range = `positions ${a.first_position} to ${a.last_position}`;
    if (count > a.event_count)
      findings.push({
        kind: 'inserted',
        where,
        detail: `${count - a.event_count} event(s) more than anchored in ${range}`,
      });
    else if (count < a.event_count)
      findings.push({
        kind: 'removed',
        where,
        detail: `${a.event_count - count} event(s) fewer than anchored in ${range}`,
      });
    else if (!digest.equals(a.digest))
      findings.push({
        kind: 'altered',
        where,
        detail: `the events in ${range} no longer give the anchor's digest`,
      });
    previous = { last: a.last_position, digest: a.digest };
  }
  return { ...out, findings };
}
