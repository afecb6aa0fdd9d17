// A projection's many-row INSERT (or upsert) as one statement whose text depends only on the
// table, never on the number of rows: one array per column, unnest. The text is built once per
// schema and reused, so a live batch neither builds a query nor makes Postgres parse a new one
// (batch-writes.ts names each text once per connection). Kysely's builders cost the projector about
// a millisecond of CPU per event on this host, where each batch runs their code cold.
import { CompiledQuery } from 'kysely';

/** A column and the Postgres type of its array (`text`, `integer`, `timestamptz`, …). */
export type UnnestColumn<Row> = readonly [name: keyof Row & string, type: string];

export interface UnnestInsert<Row> {
  table: string;
  columns: readonly UnnestColumn<Row>[];
  /** On a conflict on this column, the other columns take the new values (an upsert). */
  upsertOn?: keyof Row & string;
}

const quoteId = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** The statement for `rows` in `schema` (one text per schema and spec, built on first use). */
export function unnestInsert<Row>(spec: UnnestInsert<Row>) {
  const texts = new Map<string, string>();
  const textFor = (schema: string) => {
    let text = texts.get(schema);
    if (text) return text;
    const names = spec.columns.map(([c]) => quoteId(c)).join(', ');
    const arrays = spec.columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
    const update = spec.upsertOn
      ? ` ON CONFLICT (${quoteId(spec.upsertOn)}) DO UPDATE SET ${spec.columns
          .filter(([c]) => c !== spec.upsertOn)
          .map(([c]) => `${quoteId(c)} = excluded.${quoteId(c)}`)
          .join(', ')}`
      : '';
    text = `INSERT INTO ${quoteId(schema)}.${quoteId(spec.table)} (${names}) SELECT * FROM unnest(${arrays})${update}`;
    texts.set(schema, text);
    return text;
  };
  return (schema: string, rows: readonly Row[]): CompiledQuery =>
    CompiledQuery.raw(
      textFor(schema),
      spec.columns.map(([c, type]) =>
        rows.map((r) => {
          const v = r[c] as unknown;
          // Times as ISO text: pg's own Date formatting (local time, padded by hand) showed in a
          // replay's profile.
          return type === 'timestamptz' && v instanceof Date ? v.toISOString() : v;
        }),
      ),
    );
}
