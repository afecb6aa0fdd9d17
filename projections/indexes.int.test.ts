// Every read-model table holds each of its indexes once, through the life a deployment gives it: a
// start (setup on public), a rebuild (built in a scratch schema, moved into public), a restart
// (setup on public again). Before, index names carried their schema, so the restart after a rebuild
// added a second copy of every index, which every write then maintained.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { startApp } from '../services/main.js';
import { projections } from '../services/modules/index.js';
import { loadConfig } from '../services/shared/config.js';
import { startTestApp } from '../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import type { Database } from './database.js';
import { dropLegacyIndexes, legacyIndexes } from './indexes.js';
import { rebuildProjection } from './rebuild.js';

let db: TestDatabase;
let kysely: Kysely<Database>;
let store: PostgresEventStore;
const tables = projections.flatMap((p) => p.tables);

beforeAll(async () => {
  db = await createTestDatabase('rmindexes', 10);
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  store = new PostgresEventStore(db.pool);
  await store.init();
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

/** Each public read-model table's indexes as their definitions without their names, sorted. */
async function definitions(on: Kysely<Database> = kysely) {
  const { rows } = await sql<{ table: string; def: string; name: string }>`
    SELECT tablename AS table, indexname AS name,
           regexp_replace(indexdef, '^CREATE (UNIQUE )?INDEX \\S+ ON ', 'CREATE \\1INDEX ON ') AS def
    FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY(${tables}::text[])
    ORDER BY 1, 3`.execute(on);
  return rows;
}

/** The indexes whose table already has one with the same definition (the rows come sorted). */
const twinsOf = (rows: Awaited<ReturnType<typeof definitions>>) =>
  rows.filter((r, i) => i > 0 && rows[i - 1].table === r.table && rows[i - 1].def === r.def);

const setupAll = async () => {
  for (const p of projections) await p.setup(kysely, 'public');
};

describe("read models' indexes", () => {
  it('hold each index once after a start, a rebuild of every projection and a restart', async () => {
    await setupAll();
    const fresh = await definitions();
    expect(fresh.length).toBeGreaterThan(tables.length); // the tables have indexes beyond their keys
    for (const p of projections) await rebuildProjection(kysely, store, p);
    await setupAll(); // the restart
    const after = await definitions();
    expect(twinsOf(after)).toEqual([]);
    expect(after.map((r) => `${r.table} ${r.def}`)).toEqual(fresh.map((r) => `${r.table} ${r.def}`));
    expect(await legacyIndexes(kysely, tables)).toEqual([]);
  });

  it('drops the twins an earlier release left under schema-suffixed names, and only those', async () => {
    await setupAll();
    const before = await definitions();
    // As the old release left them: a copy under the public name and one under a rebuild's scratch name.
    await sql`CREATE INDEX vendors_name_public ON public.vendors (lower(name), id)`.execute(kysely);
    await sql`CREATE INDEX users_email_lower_rb_users_e3c84fbe ON public.users (email_lower)`.execute(kysely);
    await sql`CREATE INDEX activity_position_rb_activity_a5c9175b ON public.activity (position DESC)`.execute(
      kysely,
    );
    expect(await legacyIndexes(kysely, tables)).toEqual([
      'activity_position_rb_activity_a5c9175b',
      'users_email_lower_rb_users_e3c84fbe',
      'vendors_name_public',
    ]);
    const result = await dropLegacyIndexes(db.pool, kysely, tables);
    expect(result).toEqual({
      dropped: [
        'activity_position_rb_activity_a5c9175b',
        'users_email_lower_rb_users_e3c84fbe',
        'vendors_name_public',
      ],
      left: [],
    });
    expect(await definitions()).toEqual(before);
    // Nothing left to do: a second start drops nothing.
    expect(await dropLegacyIndexes(db.pool, kysely, tables)).toEqual({ dropped: [], left: [] });
  });

  it('stay single when the product starts, builds its read models and starts again, which drops old twins', async () => {
    const app = await startTestApp({ fresh: true });
    const pool = new pg.Pool({ connectionString: app.env.DATABASE_URL, max: 2 });
    const appDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    try {
      // The first start's projector builds every read model (a rebuild: scratch schema, then public).
      const deadline = Date.now() + 30_000;
      for (;;) {
        const built = await appDb.selectFrom('projection_checkpoints').select('name').execute();
        if (projections.every((p) => built.some((b) => b.name === p.name))) break;
        if (Date.now() > deadline) throw new Error('read models not built in 30 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      // An older release's twin, as if it had run before this one.
      await sql`CREATE INDEX vendors_search_text_public ON public.vendors USING gin (search_text gin_trgm_ops)`.execute(
        appDb,
      );
      // Another process of the product starts on the same database (a second replica, or a restart).
      const again = await startApp(loadConfig({ HOST: '127.0.0.1', PORT: '0', ...app.env }));
      await again.close();
      expect(await legacyIndexes(appDb, tables)).toEqual([]);
      expect(twinsOf(await definitions(appDb))).toEqual([]);
    } finally {
      await pool.end();
      await app.stop();
    }
  });
});
