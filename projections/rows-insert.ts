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
}

const quoteId = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** The statement for `rows` in `schema` (one text per schema and spec, built on first use). */
export function rowsInsert<Row>(spec: RowsInsert<Row>) {
  const texts = new Map<string, string>();
  const names = spec.columns.map(([c]) => c);
  const textFor = (schema: string) => {
    let text = texts.get(schema);
    if (text) return text;
    const list = names.map(quoteId).join(', ');
    const types = spec.columns.map(([c, type]) => `${quoteId(c)} ${type}`).join(', ');
    const update = spec.upsertOn
      ? ` ON CONFLICT (${quoteId(spec.upsertOn)}) DO UPDATE SET ${spec.columns
          .filter(([c]) => c !== spec.upsertOn)
          .map(([c]) => `${quoteId(c)} = excluded.${quoteId(c)}`)
          .join(', ')}`
      : '';
    text = `INSERT INTO ${quoteId(schema)}.${quoteId(spec.table)} (${list}) SELECT ${list} FROM json_to_recordset($1::json) AS r(${types})${update}`;
    texts.set(schema, text);
    return text;
  };
  // Only the spec's columns are written (the replacer list); a Date goes as its ISO text (toJSON),
  // and an undefined or missing member as NULL.
  return (schema: string, rows: readonly Row[]): CompiledQuery =>
    CompiledQuery.raw(textFor(schema), [JSON.stringify(rows, names)]);
}
