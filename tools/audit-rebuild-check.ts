// `npm run audit -- rebuild-check`: every projection built again from the log into a scratch schema,
// up to the live tables' own checkpoint, and compared row by row with them. Nothing is swapped in
// (projections/rebuild.ts swaps; this only compares) and the scratch schema is dropped after.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../projections/database.js';
import type { AnyProjection, ProjectionContext } from '../projections/projection.js';
import { FORGETTING_EVENTS } from '../schema/shared/events.js';
import { readAhead } from '../services/consumers/read-ahead.js';
import { type EventStore, type Position, START } from '../services/eventstore/port.js';

export interface RowDifference {
  projection: string;
  table: string;
  /** The row's primary key (or the whole row where the table has none), as JSON. */
  key: string;
  kind: 'only in live' | 'only in rebuild' | 'differs';
  columns: string[];
}

/** A projection rebuilt: its rows in all, and in each of its tables (a projection may have several). */
export interface Rebuilt {
  name: string;
  rows: number;
  tables: Array<{ table: string; rows: number }>;
}

/** Live rows and rebuilt rows that differ, each table of each projection. */
export async function rebuildCheck(
  db: Kysely<Database>,
  store: EventStore,
  projections: readonly AnyProjection[],
  opts: { tries?: number } = {},
): Promise<{ checked: Rebuilt[]; differences: RowDifference[] }> {
  const checked: Rebuilt[] = [];
  const differences: RowDifference[] = [];
  for (const p of projections) {
    // A live runner may move on while this builds: build again to its new checkpoint, a few times.
    for (let attempt = 1; ; attempt++) {
      const before = await checkpoint(db, p.name);
      const r = await buildAndCompare(db, store, p, before);
      if (before === (await checkpoint(db, p.name)) || attempt >= (opts.tries ?? 3)) {
        checked.push({ name: p.name, rows: r.rows, tables: r.tables });
        differences.push(...r.differences);
        break;
      }
    }
  }
  return { checked, differences };
}

async function checkpoint(db: Kysely<Database>, name: string): Promise<Position | null> {
  const r = await sql<{ position: string }>`SELECT position FROM projection_checkpoints WHERE name = ${name}`
    .execute(db)
    .catch(() => ({ rows: [] as Array<{ position: string }> }));
  return r.rows[0]?.position ?? null;
}

async function buildAndCompare(
  db: Kysely<Database>,
  store: EventStore,
  p: AnyProjection,
  upTo: Position | null,
): Promise<{ rows: number; tables: Rebuilt['tables']; differences: RowDifference[] }> {
  const scratch = `ac_${p.name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`.slice(0, 60);
  await sql`CREATE SCHEMA ${sql.id(scratch)}`.execute(db);
  try {
    await p.setup(db, scratch);
    const ctx: ProjectionContext = {
      schema: scratch,
      notify: () => {},
      memory: { rows: new Map(), complete: true },
    };
    const types = [...new Set([...p.handles, ...FORGETTING_EVENTS])];
    // Up to the live tables' checkpoint (none: they have read nothing, so neither does the build).
    if (upTo !== null && upTo !== START)
      for await (const batch of readAhead(store, START, 2000, types)) {
        const inRange = batch.filter((e) => e.position <= upTo);
        const handled = inRange.filter((e) => p.handles.includes(e.type));
        if (handled.length > 0)
          await db.transaction().execute(async (trx) => {
            if (p.applyBatch) await p.applyBatch(trx, handled, ctx);
            else for (const e of handled) await p.apply(trx, e, ctx);
          });
        if (inRange.length < batch.length) break;
      }
    const differences: RowDifference[] = [];
    let rows = 0;
    const tables: Rebuilt['tables'] = [];
    for (const table of p.tables) {
      const t = await compareTable(db, p.name, scratch, table);
      rows += t.rows;
      tables.push({ table, rows: t.rows });
      differences.push(...t.differences);
    }
    return { rows, tables, differences };
  } finally {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(scratch)} CASCADE`.execute(db);
  }
}

/** Rows compared as jsonb (column order and key order aside), keyed by the live table's primary key. */
async function compareTable(db: Kysely<Database>, projection: string, scratch: string, table: string) {
  const pk = await sql<{ column: string }>`
    SELECT a.attname AS column FROM pg_index i
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
     WHERE i.indrelid = to_regclass(${`public.${table}`}) AND i.indisprimary ORDER BY a.attnum`.execute(db);
  const keys = pk.rows.map((r) => r.column);
  const live = sql.id('public', table);
  const built = sql.id(scratch, table);
  const only = async (a: typeof live, b: typeof live) =>
    (
      await sql<{ r: Record<string, unknown> }>`
        SELECT r FROM (SELECT to_jsonb(x) AS r FROM ${a} x EXCEPT ALL SELECT to_jsonb(y) FROM ${b} y) d`.execute(
        db,
      )
    ).rows.map((x) => x.r);
  const onlyLive = await only(live, built);
  const onlyBuilt = await only(built, live);
  const count = await sql<{ n: string }>`SELECT count(*)::text AS n FROM ${built}`.execute(db);
  const keyOf = (r: Record<string, unknown>) =>
    JSON.stringify(keys.length ? Object.fromEntries(keys.map((k) => [k, r[k]])) : r);
  // A counter row at zero means what no row means (a live batch leaves it at 0, a rebuild whose events
  // net to nothing never writes it): not a difference.
  const zero = (r: Record<string, unknown>) =>
    keys.length > 0 &&
    Object.entries(r).every(
      ([c, v]) => keys.includes(c) || v === 0 || (typeof v === 'string' && /^0(\.0+)?$/.test(v)),
    );
  const builtByKey = new Map(onlyBuilt.map((r) => [keyOf(r), r]));
  const differences: RowDifference[] = [];
  for (const r of onlyLive) {
    const key = keyOf(r);
    const other = builtByKey.get(key);
    if (other && keys.length) {
      builtByKey.delete(key);
      const columns = [...new Set([...Object.keys(r), ...Object.keys(other)])].filter(
        (c) => JSON.stringify(r[c]) !== JSON.stringify(other[c]),
      );
      differences.push({ projection, table, key, kind: 'differs', columns });
    } else if (!zero(r)) differences.push({ projection, table, key, kind: 'only in live', columns: [] });
  }
  for (const [key, r] of builtByKey)
    if (!zero(r)) differences.push({ projection, table, key, kind: 'only in rebuild', columns: [] });
  return { rows: Number(count.rows[0].n), differences };
}
