// The floor under `audit verify` (bench/audit-verify.ts): the same rows read as verify reads them (the
// same statement and columns, in log order, 10,000 a page with the next page read while one is
// hashed), each hashed once (SHA-256 of its content text, verify's first step) and nothing more: no
// chains, no anchors, no Merkle trees. Cut into as many equal slices as verify used, each on its own
// connection in a worker thread of its own, as verify's are. What verify costs beyond reading and
// hashing the log is its ratio to this.
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import pg from 'pg';
import { contentText, sha256 } from '../services/eventstore/chain.js';
import { START } from '../services/eventstore/port.js';
import { LOG_ORDER_SQL, logOrderSql, POSITION_SQL, positionParams } from '../services/eventstore/postgres.js';

const PAGE = 10_000;

interface Range {
  /** The events after this position… */
  after: string;
  /** …up to this one (null: to the log's end). */
  until: string | null;
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

/**
 * Reads a range as verify-slice.ts does and hashes each event's content once: the events read, and a
 * byte folded from every digest (handed back, so that no hash is work nobody reads).
 */
async function readAndHash(db: Reader, { after, until }: Range): Promise<{ events: number; fold: number }> {
  const upTo = until === null ? '' : `AND ${logOrderSql('<=', 4)}`;
  const read = (from: string) =>
    db
      .query({
        text: `SELECT ${POSITION_SQL}, stream_id, stream_version::int, event_id::text, event_type, schema_version,
                      data::text, metadata::text, digest, hash
                 FROM es_events WHERE ${logOrderSql('>', 1)} ${upTo}
                ORDER BY ${LOG_ORDER_SQL} LIMIT ${PAGE}`,
        values: [...positionParams(from), ...(until === null ? [] : positionParams(until))],
        rowMode: 'array',
      })
      .then((r) => r.rows as Row[]);
  let events = 0;
  let fold = 0;
  let next = read(after);
  for (;;) {
    const rows = await next;
    if (rows.length === PAGE) next = read(rows[rows.length - 1][0]);
    for (const [, streamId, , eventId, type, schemaVersion, data, metadata] of rows)
      fold ^= sha256(contentText(eventId, streamId, type, schemaVersion, data, metadata))[0];
    events += rows.length;
    if (rows.length < PAGE) break;
  }
  return { events, fold };
}

/**
 * The log read and hashed in `slices` equal runs side by side (worker threads when more than one),
 * each on its own connection; answers the events and the seconds from the first read to the last
 * hash (the cut itself, a few index lookups, is made before the clock starts).
 */
export async function readAndHashLog(
  pool: pg.Pool,
  connection: pg.ClientConfig,
  slices: number,
): Promise<{ events: number; seconds: number; fold: number }> {
  const total = Number(
    (await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM es_events')).rows[0].n,
  );
  const cuts: string[] = [];
  for (let k = 1; k < slices; k++) {
    const r = await pool.query<{ p: string }>(
      `SELECT ${POSITION_SQL} AS p FROM es_events ORDER BY ${LOG_ORDER_SQL} OFFSET $1 LIMIT 1`,
      [Math.floor((total * k) / slices) - 1],
    );
    cuts.push(r.rows[0].p);
  }
  const ranges: Range[] = [START, ...cuts].map((after, i) => ({ after, until: cuts[i] ?? null }));
  const began = performance.now();
  const counts =
    ranges.length === 1
      ? [await readAndHash(pool, ranges[0])]
      : await Promise.all(ranges.map((range) => inWorker(connection, range)));
  return {
    events: counts.reduce((n, c) => n + c.events, 0),
    seconds: (performance.now() - began) / 1000,
    fold: counts.reduce((f, c) => f ^ c.fold, 0),
  };
}

/** A range in a worker thread, booted as verify's are (tsx's loader is not inherited by a worker). */
function inWorker(connection: pg.ClientConfig, range: Range): Promise<{ events: number; fold: number }> {
  const worker = new Worker(new URL('../services/eventstore/verify-worker-boot.mjs', import.meta.url), {
    workerData: { module: fileURLToPath(import.meta.url), connection, range },
    // As verify's workers: a larger young generation for a walk's short-lived rows.
    resourceLimits: { maxYoungGenerationSizeMb: 96 },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (r: { events: number; fold: number }) => resolve(r));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`a floor worker stopped (exit ${code})`)));
  });
}

if (!isMainThread && workerData?.range) {
  const { connection, range } = workerData as { connection: pg.ClientConfig; range: Range };
  const client = new pg.Client(connection);
  await client.connect();
  try {
    parentPort?.postMessage(await readAndHash(client, range));
  } finally {
    await client.end();
  }
}
