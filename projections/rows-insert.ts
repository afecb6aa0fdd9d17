// A projection's many-row INSERT (or upsert) as one statement whose text depends only on the
// table, never on the number of rows: the rows go as one JSON array, read back by json_to_recordset
// with each column's type. The text is built once per schema and reused, so a live batch neither
// builds a query nor makes Postgres parse a new one (batch-writes.ts names each text once per
// connection). Kysely's builders cost the projector about a millisecond of CPU per event on this
// host, where each batch runs their code cold. One array per column (unnest) did the same with one
// parameter per column, but pg writes an array literal by escaping every element in JavaScript: 8 %
// of the projector's CPU in a CSV import, where one JSON.stringify of the rows is native.
import { CompiledQuery } from 'kysely';

/** A column and its Postgres type (`text`, `integer`, `timestamptz`, …). */
export type RowColumn<Row> = readonly [name: keyof Row & string, type: string];

export interface RowsInsert<Row> {
  table: string;
  columns: readonly RowColumn<Row>[];
  /** On a conflict on this column, the other columns take the new values (an upsert). */
  upsertOn?: keyof Row & string;
  /** On a conflict on this column, the row already there stays (ON CONFLICT DO NOTHING). */
  keepOn?: keyof Row & string;
}

const quoteId = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** The statement for `rows` in `schema` (one text per schema and spec, built on first use). */
export function rowsInsert<Row>(spec: RowsInsert<Row>) {
  const texts = new Map<string, string>();
  const names = spec.columns.map(([c]) => c);
  // A time goes as epoch milliseconds, a JSON number, and Postgres makes it a timestamptz again.
  // JSON.stringify turning each Date into ISO text (toJSON) was most of its cost: 8 – 14 µs a users
  // row with three times against 1.5 µs with numbers (micro-benchmark), and a replay writes 10,000.
  const isTime = spec.columns.map(([, type]) => type === 'timestamptz');
  const textFor = (schema: string) => {
    let text = texts.get(schema);
    if (text) return text;
    const list = names.map(quoteId).join(', ');
    const values = spec.columns
      .map(([c], i) => (isTime[i] ? `to_timestamp(r.${quoteId(c)} / 1000.0)` : `r.${quoteId(c)}`))
      .join(', ');
    const types = spec.columns
      .map(([c, type], i) => `${quoteId(c)} ${isTime[i] ? 'float8' : type}`)
      .join(', ');
    const update = spec.upsertOn
      ? ` ON CONFLICT (${quoteId(spec.upsertOn)}) DO UPDATE SET ${spec.columns
          .filter(([c]) => c !== spec.upsertOn)
          .map(([c]) => `${quoteId(c)} = excluded.${quoteId(c)}`)
          .join(', ')}`
      : spec.keepOn
        ? ` ON CONFLICT (${quoteId(spec.keepOn)}) DO NOTHING`
        : '';
    text = `INSERT INTO ${quoteId(schema)}.${quoteId(spec.table)} (${list}) SELECT ${values} FROM json_to_recordset($1::json) AS r(${types})${update}`;
    texts.set(schema, text);
    return text;
  };
  // Only the spec's columns are written; an undefined or missing member goes as NULL.
  const plain = (row: Row) => {
    const out: Record<string, unknown> = {};
    const r = row as Record<string, unknown>;
    for (let i = 0; i < names.length; i++) {
      const v = r[names[i]];
      out[names[i]] = isTime[i] ? epochMs(v, names[i]) : v;
    }
    return out;
  };
  return (schema: string, rows: readonly Row[]): CompiledQuery =>
    CompiledQuery.raw(textFor(schema), [JSON.stringify(rows.map(plain))]);
}

/** A time as epoch milliseconds: a Date (an invalid one, as JSON has it, none), or none. */
function epochMs(v: unknown, column: string): number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.getTime();
  // Text would be read by Date.parse here and by Postgres's rules before: refused rather than guessed.
  throw new TypeError(`rows-insert: ${column} takes a Date, not ${typeof v}`);
}
