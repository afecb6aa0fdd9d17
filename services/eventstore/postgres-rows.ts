// How the event store's rows read: positions (text and the log order's three parameters), the SQL
// that sends an event as one JSON array, and the event object made of it.
import { type Position, START, type StoredEvent } from './port.js';

export const PAD = 20;
/**
 * Epoch 0 keeps the original `txid:position` (zero-padded) so existing checkpoints stay valid; later
 * epochs are `E0001:txid:position`, which sorts after every epoch-0 position ('E' > '9').
 */
export function encodePosition(epoch: number, txid: string, globalPosition: string): Position {
  const tail = `${txid.padStart(PAD, '0')}:${globalPosition.padStart(PAD, '0')}`;
  return epoch === 0 ? tail : `E${String(epoch).padStart(4, '0')}:${tail}`;
}
export function decodePosition(position: Position): { epoch: number; txid: string; globalPosition: string } {
  if (position === START) return { epoch: 0, txid: '0', globalPosition: '0' };
  const m = /^(?:E(\d{4}):)?(\d+):(\d+)$/.exec(position);
  if (!m) throw new Error(`Not a Postgres event store position: ${position}`);
  return {
    epoch: m[1] ? Number(m[1]) : 0,
    txid: BigInt(m[2]).toString(),
    globalPosition: BigInt(m[3]).toString(),
  };
}

/**
 * An event as EVENT_JSON sends it: one JSON array per row, as text. The position comes in its three
 * parts (a LoggedEvent pads and joins them if asked: a rebuild asks for one per batch), the time as
 * whole epoch milliseconds. One JSON value per event instead of nine columns: pg slices and converts
 * each column of each row apart, and reading the log is what a rebuild spends its time on (one
 * JSON.parse per row cost a fifth less CPU than nine columns). The data's JSON is part of it, so it
 * is parsed once, not twice. The hash comes only with a stream's events (STREAM_EVENT_JSON): nothing
 * that reads the log needs it (anchors read hashes alone, readLogHashes).
 */
type EventRow = [
  epoch: number,
  txid: string,
  globalPosition: string,
  streamId: string,
  streamVersion: number,
  eventId: string | null,
  eventType: string,
  schemaVersion: number,
  data: unknown,
  metadata: string,
  createdMs: number,
  hash?: string | null,
];

// Careful: output names could shadow the table's columns in ORDER BY. Every ORDER BY below therefore
// names the table's column (es_events.x), never a bare name.
/** An event's position as text (see Position in port.ts), over a row of es_events named es_events. */
export const POSITION_SQL = `(CASE WHEN es_events.epoch = 0 THEN '' ELSE 'E' || lpad(es_events.epoch::text, 4, '0') || ':' END
      || lpad(es_events.transaction_id::text, ${PAD}, '0') || ':' || lpad(es_events.global_position::text, ${PAD}, '0'))`;

/** The log's order, over a row of es_events named es_events (its index: es_events_log_order). */
export const LOG_ORDER_SQL = 'es_events.epoch, es_events.transaction_id, es_events.global_position';

/**
 * Rows after (`>`) or up to (`<=`) a position in log order, by the log-order index, the position
 * given as three parameters from `$first` (`positionParams`). The positions' text form has no index:
 * compared as text, every such read scanned the whole log.
 */
export const logOrderSql = (op: '>' | '<=', first: number) =>
  `(${LOG_ORDER_SQL}) ${op} ($${first}, $${first + 1}::xid8, $${first + 2}::bigint)`;

/** A position as logOrderSql's three parameters. */
export function positionParams(position: Position): [number, string, string] {
  const { epoch, txid, globalPosition } = decodePosition(position);
  return [epoch, txid, globalPosition];
}

/**
 * The JSON array joined as text rather than by json_build_array, which looks up each element's type
 * and converts it anew on every row: reading 100,000 events cost Postgres about a third less this
 * way (COPY of both to /dev/null, six alternating rounds). Every column here is NOT NULL but the
 * hash, so the join is never null; strings that could hold a quote go through to_json.
 * The time: date_part's float8 seconds carry an error under half a microsecond, so adding half a
 * microsecond's worth before the floor gives the exact whole millisecond (as new Date() truncates the
 * exact value), without extract's numeric, which cost Postgres a fifth of the read.
 */
const eventJson = (hash: boolean) => `('[' || es_events.epoch || ',"' || es_events.transaction_id || '","'
    || es_events.global_position || '",' || to_json(es_events.stream_id)::text
    || ',' || es_events.stream_version || ',"' || es_events.event_id || '",' || to_json(es_events.event_type)::text
    || ',' || es_events.schema_version || ',' || es_events.data::text || ',' || to_json(es_events.metadata::text)::text
    || ',' || floor(date_part('epoch', es_events.created_at) * 1000 + 0.0005)::int8
    ${hash ? `|| ',' || coalesce('"' || encode(es_events.hash, 'hex') || '"', 'null')` : ''} || ']') AS event`;
/** An event of the log (readAll, subscribe): without its hash. */
export const EVENT_JSON = eventJson(false);
/** An event of a stream (readStream, readStreams): with its hash. */
export const STREAM_EVENT_JSON = eventJson(true);

/**
 * An event read from the log. The metadata stays text until asked for: most consumers never read
 * it, and a rebuild's time went to the garbage collector (a parsed object per event). A class, not
 * an object literal with a getter: the literal made a closure per event, and a replay reads
 * 100,000 of them.
 */
class LoggedEvent implements StoredEvent {
  id: string;
  type: string;
  schemaVersion: number;
  streamId: string;
  streamVersion: number;
  data: unknown;
  createdAt: Date;
  hash: string | undefined;
  #epoch: number;
  #txid: string;
  #globalPosition: string;
  #position: string | undefined;
  #metadata: unknown;
  constructor(row: EventRow) {
    this.#epoch = row[0];
    this.#txid = row[1];
    this.#globalPosition = row[2];
    this.streamId = row[3];
    this.streamVersion = row[4];
    this.id = row[5] as string;
    this.type = row[6];
    this.schemaVersion = row[7];
    this.data = row[8];
    this.#metadata = row[9];
    this.createdAt = new Date(row[10]);
    this.hash = row[11] ?? undefined;
  }
  get position(): Position {
    this.#position ??= encodePosition(this.#epoch, this.#txid, this.#globalPosition);
    return this.#position;
  }
  get metadata(): StoredEvent['metadata'] {
    if (typeof this.#metadata === 'string') this.#metadata = JSON.parse(this.#metadata);
    return this.#metadata as StoredEvent['metadata'];
  }
}

/** The events of rows whose second column is EVENT_JSON or STREAM_EVENT_JSON (null where a join found none). */
export function toStored(rows: Array<[unknown, string | null]>): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (const row of rows) if (row[1] !== null) events.push(new LoggedEvent(JSON.parse(row[1]) as EventRow));
  return events;
}

/**
 * The head of the stream whose id is `streamId` (an SQL expression): its last event, found by the
 * primary key read backwards, one index probe. Written once for the append and both stream reads.
 */
export const streamHeadSql = (streamId: string, columns: string) =>
  `SELECT ${columns} FROM es_events WHERE es_events.stream_id = ${streamId}
     ORDER BY es_events.stream_version DESC LIMIT 1`;
