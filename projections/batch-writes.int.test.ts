// A live batch's writes and its checkpoint move as one statement, against real Postgres: atomic both
// ways, a write's own failure reported as the projection's, a moved checkpoint as the runner's.
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_MOVED, ensureCheckpoints, readCheckpoint } from '../services/consumers/checkpoints.js';
import { ConsumerCodeError } from '../services/consumers/poison.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { BatchWrites, composeBatch } from './batch-writes.js';

let db: TestDatabase;
/** The tables these tests write (the writer knows no projection's tables). */
interface TestTables {
  people: { id: number; name: string };
  lines: { id: number; text: string };
}

let kysely: Kysely<TestTables>;
/**
 * Statements the batch writer sent to Postgres for its commits: one statement goes straight to the
 * pool, named (recorded by `pool` below); the transaction path through Kysely (its log hook).
 */
let sent: string[] = [];
/** Names the one-statement commits went out with. */
let named: Array<string | undefined> = [];
let batches: Kysely<TestTables>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase('batchwrites', 4);
  pool = new Proxy(db.pool, {
    get(target, key) {
      if (key === 'query')
        return (config: pg.QueryConfig, ...rest: unknown[]) => {
          // Commits say which name they go under (reads do not).
          if (typeof config === 'object' && 'name' in config) {
            sent.push(config.text);
            named.push(config.name);
          }
          return (target.query as (...a: unknown[]) => unknown)(config, ...rest);
        };
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  batches = new Kysely({
    dialect: new PostgresDialect({ pool: db.pool }),
    log: (e) => {
      sent.push(e.query.sql);
    },
  });
  await ensureCheckpoints(kysely);
  await sql`CREATE TABLE people (id integer PRIMARY KEY, name text NOT NULL CHECK (name <> ''))`.execute(
    kysely,
  );
  await sql`CREATE TABLE lines (id integer PRIMARY KEY, text text NOT NULL)`.execute(kysely);
});

afterAll(async () => {
  await batches?.destroy().catch(() => {});
  await db?.drop();
});

beforeEach(async () => {
  await sql`TRUNCATE people, lines`.execute(kysely);
  await sql`DELETE FROM projection_checkpoints`.execute(kysely);
  await sql`INSERT INTO projection_checkpoints (name, position, version) VALUES ('p', 'a', 1)`.execute(
    kysely,
  );
  sent = [];
  named = [];
});

const rows = async (table: string) =>
  (await sql`SELECT * FROM ${sql.table(table)} ORDER BY id`.execute(kysely)).rows;

describe('a batch written as one statement', () => {
  it('sends the writes to two tables and the checkpoint move as one statement', async () => {
    const w = new BatchWrites(pool, batches);
    await w.collect(async (trx) => {
      // A read goes out at once (the runner is the tables' only writer); writes wait.
      expect(await trx.selectFrom('people').selectAll().execute()).toEqual([]);
      await trx
        .insertInto('people')
        .values([
          { id: 1, name: 'Ann' },
          { id: 2, name: 'Bo' },
        ])
        .execute();
      await trx.insertInto('lines').values({ id: 10, text: 'Ann joined' }).execute();
      expect(await rows('people')).toEqual([]);
    });
    await w.commit('p', 'a', 'b');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(
      /^WITH w0 AS \(insert into "people".*\), w1 AS \(insert into "lines".*SELECT projection_advance/,
    );
    expect(await rows('people')).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bo' },
    ]);
    expect(await rows('lines')).toEqual([{ id: 10, text: 'Ann joined' }]);
    expect((await readCheckpoint(kysely, 'p'))?.position).toBe('b');
  });

  it('sends batches of one shape under one statement name, so Postgres parses and plans it once', async () => {
    const w = new BatchWrites(pool, batches);
    for (const [id, from, to] of [
      [1, 'a', 'b'],
      [2, 'b', 'c'],
    ] as const) {
      await w.collect(async (trx) => {
        await trx
          .insertInto('people')
          .values({ id, name: `P${id}` })
          .execute();
      });
      await w.commit('p', from, to);
    }
    expect(named).toHaveLength(2);
    expect(named[0]).toMatch(/^bw_[0-9a-f]{20}$/);
    expect(named[1]).toBe(named[0]);
    expect(await rows('people')).toEqual([
      { id: 1, name: 'P1' },
      { id: 2, name: 'P2' },
    ]);
    expect((await readCheckpoint(kysely, 'p'))?.position).toBe('c');
  });

  it('writes nothing when the checkpoint moved under it, and says so as the runner’s error', async () => {
    const w = new BatchWrites(pool, batches);
    await w.collect(async (trx) => {
      await trx.insertInto('people').values({ id: 1, name: 'Ann' }).execute();
    });
    const err = await w.commit('p', 'stale', 'b').catch((e) => e);
    expect(err).not.toBeInstanceOf(ConsumerCodeError);
    expect(err.code).toBe(CHECKPOINT_MOVED);
    expect(err.message).toMatch(/checkpoint of p moved under us \(expected stale\)/);
    expect(await rows('people')).toEqual([]);
    expect((await readCheckpoint(kysely, 'p'))?.position).toBe('a');
  });

  it('writes nothing and leaves the checkpoint when one write fails, and calls that the projection’s error', async () => {
    const w = new BatchWrites(pool, batches);
    await w.collect(async (trx) => {
      await trx.insertInto('lines').values({ id: 10, text: 'fine' }).execute();
      await trx.insertInto('people').values({ id: 1, name: '' }).execute();
    });
    const err = await w.commit('p', 'a', 'b').catch((e) => e);
    expect(err).toBeInstanceOf(ConsumerCodeError);
    expect((err as ConsumerCodeError).error).toMatchObject({ code: '23514' });
    expect(await rows('lines')).toEqual([]);
    expect((await readCheckpoint(kysely, 'p'))?.position).toBe('a');
  });

  it('drops what a failed collect held back', async () => {
    const w = new BatchWrites(pool, batches);
    await expect(
      w.collect(async (trx) => {
        await trx.insertInto('people').values({ id: 1, name: 'Ann' }).execute();
        throw new Error('the projection failed');
      }),
    ).rejects.toThrow('the projection failed');
    await w.collect(async () => {});
    await w.commit('p', 'a', 'b');
    expect(await rows('people')).toEqual([]);
    expect((await readCheckpoint(kysely, 'p'))?.position).toBe('b');
  });

  it('falls back to a transaction for writes that cannot share one statement, with the same result', async () => {
    const w = new BatchWrites(pool, batches);
    await w.collect(async (trx) => {
      // Two writes to one table, and one with a WITH of its own.
      await trx.insertInto('people').values({ id: 1, name: 'Ann' }).execute();
      await trx.insertInto('people').values({ id: 2, name: 'Bo' }).execute();
      await sql`WITH x AS (SELECT 10 AS id) INSERT INTO lines SELECT id, 'from a CTE' FROM x`.execute(trx);
    });
    await w.commit('p', 'a', 'b');
    expect(sent.map((s) => s.split(' ')[0].toLowerCase())).toEqual([
      'begin',
      'insert',
      'insert',
      'with',
      'select',
      'commit',
    ]);
    expect(await rows('people')).toHaveLength(2);
    expect(await rows('lines')).toEqual([{ id: 10, text: 'from a CTE' }]);
    expect((await readCheckpoint(kysely, 'p'))?.position).toBe('b');
    // And a moved checkpoint undoes the fallback's writes too.
    await w.collect(async (trx) => {
      await trx.insertInto('people').values({ id: 3, name: 'Cy' }).execute();
      await trx.insertInto('people').values({ id: 4, name: 'Di' }).execute();
    });
    await expect(w.commit('p', 'a', 'c')).rejects.toMatchObject({ code: CHECKPOINT_MOVED });
    expect(await rows('people')).toHaveLength(2);
  });
});

describe('composeBatch', () => {
  const q = (text: string, parameters: unknown[]) =>
    ({ sql: text, parameters, query: { kind: 'RawNode' } }) as never;

  it('renumbers each write’s placeholders after the ones before it, the checkpoint last', () => {
    const c = composeBatch(
      [
        q('insert into "a" (x, y) values ($1, $2)', [1, 2]),
        q('update "b" set x = $1 where id = $2 or id = $10', [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
      ],
      'p',
      'from',
      'to',
    );
    expect(c?.sql).toBe(
      'WITH w0 AS (insert into "a" (x, y) values ($1, $2)), w1 AS (update "b" set x = $3 where id = $4 or id = $12) SELECT projection_advance($13, $14, $15)',
    );
    expect(c?.parameters).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 'p', 'from', 'to']);
  });

  it('refuses what one statement cannot hold', () => {
    expect(
      composeBatch([q('with x as (select 1) insert into "a" select * from x', [])], 'p', 'f', 't'),
    ).toBeNull();
    expect(
      composeBatch(
        [q('insert into "a" values ($1)', [1]), q('insert into "a" values ($1)', [2])],
        'p',
        'f',
        't',
      ),
    ).toBeNull();
    expect(composeBatch([q(`insert into "a" values ('literal')`, [])], 'p', 'f', 't')).toBeNull();
    expect(
      composeBatch([q('insert into "a" values ($1)', new Array(65_000).fill(0))], 'p', 'f', 't'),
    ).toBeNull();
    // Nothing to write: the checkpoint move alone.
    expect(composeBatch([], 'p', 'f', 't')?.sql).toBe('SELECT projection_advance($1, $2, $3)');
  });
});
