// The rows a projection writes come back as written: times to the millisecond (sent as epoch
// milliseconds), text with quotes and non-ASCII, nulls, and an upsert's new values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { rowsInsert } from './rows-insert.js';

interface Row {
  id: number;
  name: string | null;
  active: boolean;
  at: Date;
  gone_at: Date | null;
}

const upsert = rowsInsert<Row>({
  table: 'things',
  columns: [
    ['id', 'integer'],
    ['name', 'text'],
    ['active', 'boolean'],
    ['at', 'timestamptz'],
    ['gone_at', 'timestamptz'],
  ],
  upsertOn: 'id',
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('rowsinsert', 2);
  await db.pool.query(`CREATE TABLE things (id integer PRIMARY KEY, name text, active boolean NOT NULL,
    at timestamptz NOT NULL, gone_at timestamptz)`);
});
afterAll(async () => {
  await db?.drop();
});

const write = (rows: Row[]) => {
  const q = upsert('public', rows);
  return db.pool.query(q.sql, [...q.parameters]);
};
const read = async () =>
  (await db.pool.query('SELECT id, name, active, at, gone_at FROM things ORDER BY id')).rows as Row[];

describe('rowsInsert', () => {
  it('writes times to the millisecond, text as given, nulls, and upserts', async () => {
    const rows: Row[] = [
      {
        id: 1,
        name: `O'Brien "the" \\ Zoë ✓`,
        active: true,
        at: new Date('2026-11-26T19:35:02.123Z'),
        gone_at: null,
      },
      { id: 2, name: null, active: false, at: new Date('1999-12-31T23:59:59.999Z'), gone_at: new Date(0) },
      // An extra member is not a column: left out.
      { id: 3, name: 'x', active: true, at: new Date(1_795_716_112_928), gone_at: null, extra: 1 } as Row,
    ];
    await write(rows);
    expect(await read()).toEqual(
      rows.map(({ id, name, active, at, gone_at }) => ({ id, name, active, at, gone_at })),
    );
    await write([
      { id: 2, name: 'back', active: true, at: new Date('2030-01-01T00:00:00.001Z'), gone_at: null },
    ]);
    const after = await read();
    expect(after[1]).toEqual({
      id: 2,
      name: 'back',
      active: true,
      at: new Date('2030-01-01T00:00:00.001Z'),
      gone_at: null,
    });
    expect(after).toHaveLength(3);
  });

  it('refuses text where a time goes, and writes nothing', async () => {
    const before = await read();
    expect(() =>
      upsert('public', [
        { id: 9, name: 'y', active: true, at: '2026-11-26' as unknown as Date, gone_at: null },
      ]),
    ).toThrow('rows-insert: at takes a Date, not string');
    expect(await read()).toEqual(before);
  });
});
