// Several projections rebuilt at once, as when a release adds new read models to a running store:
// each rebuild ensures the consumer tables and the checkpoint function first, and those statements
// must not collide (CREATE OR REPLACE FUNCTION run twice at once fails "tuple concurrently updated").
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { projections } from '../services/modules/index.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import type { Database } from './database.js';
import { rebuildProjection } from './rebuild.js';

let db: TestDatabase;
let kysely: Kysely<Database>;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await createTestDatabase('rebuildconc', 20);
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  store = new PostgresEventStore(db.pool);
  await store.init();
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe('rebuilding projections at once', () => {
  it('rebuilds every projection concurrently, five times over, without a catalog conflict', async () => {
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled(projections.map((p) => rebuildProjection(kysely, store, p)));
      const failures = results
        .filter((r) => r.status === 'rejected')
        .map((r) => String((r as PromiseRejectedResult).reason));
      expect(failures).toEqual([]);
    }
    const checkpoints = await kysely.selectFrom('projection_checkpoints').select('name').execute();
    expect(checkpoints.map((c) => c.name).sort()).toEqual(projections.map((p) => p.name).sort());
  });
});
