// Answers kept on the read models' checkpoints (read-cache.ts): reused while nothing moved, read
// again as soon as a batch, a rebuild's swap or a parked event's retry touched one of them.
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { ensureCheckpoints } from '../consumers/checkpoints.js';
import type { AppServices } from './context.js';
import { readCached } from './read-cache.js';

let db: TestDatabase;
let app: AppServices;

beforeAll(async () => {
  db = await createTestDatabase('readcache');
  const kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  await ensureCheckpoints(kysely);
  await db.pool.query(
    `INSERT INTO projection_checkpoints(name, position, version) VALUES ('alpha', 'p1', 1), ('beta', 'p1', 1)`,
  );
  app = { pool: db.pool } as AppServices;
});

afterAll(async () => {
  await db?.drop();
});

/** A read that counts how often it really ran, and says which run answered. */
function counted() {
  let runs = 0;
  return {
    read: () => Promise.resolve(++runs),
    get runs() {
      return runs;
    },
  };
}

describe('answers kept on the read models they read', () => {
  it('reuses an answer while the checkpoints stay where they were', async () => {
    const c = counted();
    expect(await readCached(app, ['alpha', 'beta'], 'k1', c.read)).toBe(1);
    expect(await readCached(app, ['alpha', 'beta'], 'k1', c.read)).toBe(1);
    expect(c.runs).toBe(1);
    // Another question is its own entry.
    expect(await readCached(app, ['alpha', 'beta'], 'k2', c.read)).toBe(2);
  });

  it('reads again after a batch moved one of the checkpoints', async () => {
    const c = counted();
    await readCached(app, ['alpha', 'beta'], 'moved', c.read);
    await db.pool.query(`SELECT projection_advance('beta', 'p1', 'p2')`);
    expect(await readCached(app, ['alpha', 'beta'], 'moved', c.read)).toBe(2);
    expect(await readCached(app, ['alpha', 'beta'], 'moved', c.read)).toBe(2);
  });

  it('keeps its answer when a checkpoint moves over events its consumer wrote nothing for', async () => {
    const c = counted();
    await readCached(app, ['alpha', 'beta'], 'quiet', c.read);
    // Any activity elsewhere in the log moves every consumer's checkpoint within 250 ms like this.
    await db.pool.query(`SELECT projection_advance_quiet('alpha', 'p1', 'p1b')`);
    expect(await readCached(app, ['alpha', 'beta'], 'quiet', c.read)).toBe(1);
    // A batch that wrote its tables is a change, even where the clock would give an equal stamp.
    await db.pool.query(`SELECT projection_advance('alpha', 'p1b', 'p1c')`);
    expect(await readCached(app, ['alpha', 'beta'], 'quiet', c.read)).toBe(2);
    const before = await db.pool.query(`SELECT updated_at FROM projection_checkpoints WHERE name = 'alpha'`);
    await db.pool.query(
      `UPDATE projection_checkpoints SET updated_at = updated_at + interval '1 hour' WHERE name = 'alpha'`,
    );
    await db.pool.query(`SELECT projection_advance('alpha', 'p1c', 'p1d')`);
    const after = await db.pool.query(`SELECT updated_at FROM projection_checkpoints WHERE name = 'alpha'`);
    expect(after.rows[0].updated_at.getTime()).toBeGreaterThan(
      before.rows[0].updated_at.getTime() + 3_599_000,
    );
  });

  it('reads again after the tables changed behind an unmoved checkpoint (a retried parked event, a swap)', async () => {
    const c = counted();
    await readCached(app, ['alpha'], 'stamped', c.read);
    await db.pool.query(
      `UPDATE projection_checkpoints SET updated_at = clock_timestamp() WHERE name = 'alpha'`,
    );
    expect(await readCached(app, ['alpha'], 'stamped', c.read)).toBe(2);
  });

  it('keeps nothing while a read model has no checkpoint yet', async () => {
    const c = counted();
    await readCached(app, ['alpha', 'not-yet'], 'fresh', c.read);
    await readCached(app, ['alpha', 'not-yet'], 'fresh', c.read);
    expect(c.runs).toBe(2);
  });
});
