// The projection spec's own checks: a projection whose batch path ends otherwise than its one-by-one
// path (other rows, other notices) fails the spec, whatever the test then asserts; a faithful one
// passes, batches cut where the test says and memory kept across them.
import { sql, type Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Projection, ProjectionContext } from '../../projections/projection.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { projectionSpec, storedEvent } from './projection-spec.js';

interface CountsTables {
  counts: { id: number; n: number };
}

/** Adds each event's n to its id's row; notifies once per event. */
const counts = (
  batch?: (trx: Transaction<CountsTables>, events: StoredEvent[], ctx: ProjectionContext) => Promise<void>,
): Projection<CountsTables> => ({
  name: 'counts',
  version: 1,
  tables: ['counts'],
  handles: ['Counted'],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'counts')} (id integer PRIMARY KEY, n integer NOT NULL)`.execute(
      db,
    );
  },
  async apply(trx, event, ctx) {
    const { id, n } = event.data as { id: number; n: number };
    await add(trx, ctx.schema, id, n);
    ctx.notify({ topic: 'count', id: String(id) });
  },
  ...(batch ? { applyBatch: batch } : {}),
});

const add = (trx: Transaction<CountsTables>, schema: string, id: number, n: number) =>
  trx
    .withSchema(schema)
    .insertInto('counts')
    .values({ id, n })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({ n: eb('counts.n', '+', eb.ref('excluded.n')) })),
    )
    .execute();

const counted = (id: number, n: number) => storedEvent('Counted', { id, n });

const faithful = counts(async (trx, events, ctx) => {
  for (const e of events) {
    const { id, n } = e.data as { id: number; n: number };
    await add(trx, ctx.schema, id, n);
    ctx.notify({ topic: 'count', id: String(id) });
  }
});

describe('projectionSpec', () => {
  const good = projectionSpec(faithful);
  // One file's database for all: the others use the first spec's.
  const db = () => good.db;

  it('passes a projection whose batch path ends as its one-by-one path', async () => {
    await good
      .given([counted(1, 2)])
      .when([counted(1, 3), counted(2, 1), storedEvent('NotCounted', { id: 9, n: 9 })])
      .then(async ({ read, notices }) => {
        expect(await read('counts', { orderBy: 'id' })).toEqual([
          { id: 1, n: 5 },
          { id: 2, n: 1 },
        ]);
        // The when events' notices; an event the projection does not handle never reaches it.
        expect(notices).toEqual([
          { topic: 'count', id: '1' },
          { topic: 'count', id: '2' },
        ]);
      });
    await good.when([counted(3, 4)]).thenRows('counts', [{ n: 4 }], { select: ['n'] });
  });

  it('fails when the test’s own assertion fails', async () => {
    await expect(good.when([counted(5, 1)]).thenRows('counts', [{ id: 5, n: 2 }])).rejects.toThrow(
      /deeply equal/,
    );
    await expect(
      good.when([counted(5, 1)]).then(async ({ read }) => expect(await read('counts')).toEqual([])),
    ).rejects.toThrow(/deeply equal/);
  });

  it('fails when the batch path writes other rows, whatever the test asserts', async () => {
    const planted = projectionSpec(
      counts(async (trx, events, ctx) => {
        for (const e of events) {
          const { id, n } = e.data as { id: number; n: number };
          // Off by one: a batch path that drifted from apply.
          await add(trx, ctx.schema, id, n + 1);
          ctx.notify({ topic: 'count', id: String(id) });
        }
      }),
      { db },
    );
    let asserted = false;
    await expect(
      planted.when([counted(1, 1)]).then(() => {
        asserted = true;
      }),
    ).rejects.toThrow(/counts: applyBatch \(memory: none\) against apply one by one/);
    expect(asserted).toBe(false);
  });

  it('fails when the batch path notifies otherwise', async () => {
    const planted = projectionSpec(
      counts(async (trx, events, ctx) => {
        for (const e of events) {
          const { id, n } = e.data as { id: number; n: number };
          await add(trx, ctx.schema, id, n);
        }
        // One notice for the batch instead of one per event.
        ctx.notify({ topic: 'count', id: 'batch' });
      }),
      { db },
    );
    await expect(planted.when([counted(1, 1), counted(2, 2)]).then(() => {})).rejects.toThrow(
      /notices: applyBatch \(memory: none\)/,
    );
    // In any order is still the same notices.
    const unordered = projectionSpec(
      counts(async (trx, events, ctx) => {
        for (const e of [...events].reverse()) {
          const { id, n } = e.data as { id: number; n: number };
          await add(trx, ctx.schema, id, n);
          ctx.notify({ topic: 'count', id: String(id) });
        }
      }),
      { db, notices: 'in any order' },
    );
    await unordered.when([counted(1, 1), counted(2, 2)]).thenRows('counts', [{ id: 1 }, { id: 2 }], {
      select: ['id'],
      orderBy: 'id',
    });
  });

  it('fails when only a memory the runners hand over leads the batch path astray', async () => {
    // Takes a complete memory's silence for a row that does not exist (and never remembers what it
    // wrote), so it overwrites the row a batch before wrote: wrong in a rebuild only.
    const trusting = counts(async (trx, events, ctx) => {
      for (const e of events) {
        const { id, n } = e.data as { id: number; n: number };
        if (ctx.memory?.complete && ctx.memory.rows.get(id) === undefined)
          await trx
            .withSchema(ctx.schema)
            .insertInto('counts')
            .values({ id, n })
            .onConflict((oc) => oc.column('id').doUpdateSet({ n }))
            .execute();
        else await add(trx, ctx.schema, id, n);
        ctx.notify({ topic: 'count', id: String(id) });
      }
    });
    // Two batches, the same id in both.
    await expect(
      projectionSpec(trusting, { db })
        .given([counted(1, 1)])
        .when([counted(1, 1)])
        .then(() => {}),
    ).rejects.toThrow(/counts: applyBatch \(memory: rebuild\)/);
    // Without a rebuild's memory, nothing shows it.
    await projectionSpec(trusting, { db, batchMemory: ['none', 'live'] })
      .given([counted(1, 1)])
      .when([counted(1, 1)])
      .thenRows('counts', [{ id: 1, n: 2 }]);
  });

  it('compares only the rows that count, where the test says which', async () => {
    // Writes no row for a zero, where apply writes one at zero.
    const skipsZero = counts(async (trx, events, ctx) => {
      for (const e of events) {
        const { id, n } = e.data as { id: number; n: number };
        if (n !== 0) await add(trx, ctx.schema, id, n);
        ctx.notify({ topic: 'count', id: String(id) });
      }
    });
    await expect(
      projectionSpec(skipsZero, { db })
        .when([counted(1, 0), counted(2, 2)])
        .then(() => {}),
    ).rejects.toThrow(/counts: applyBatch \(memory: none\)/);
    await projectionSpec(skipsZero, { db, rowsThatCount: { counts: (row) => row.n !== 0 } })
      .when([counted(1, 0), counted(2, 2)])
      .thenRows(
        'counts',
        [
          { id: 1, n: 0 },
          { id: 2, n: 2 },
        ],
        { orderBy: 'id' },
      );
  });

  it('cuts the batch path where the test says', async () => {
    const sizes: number[] = [];
    await projectionSpec(
      counts(async (trx, events, ctx) => {
        sizes.push(events.length);
        for (const e of events) {
          const { id, n } = e.data as { id: number; n: number };
          await add(trx, ctx.schema, id, n);
          ctx.notify({ topic: 'count', id: String(id) });
        }
      }),
      { db, batchMemory: ['none'] },
    )
      .given([counted(1, 1), counted(1, 1)])
      .when([counted(1, 1), counted(1, 1), counted(1, 1)], { batchCuts: [1, 4] })
      .thenRows('counts', [{ id: 1, n: 5 }]);
    expect(sizes).toEqual([1, 3, 1]);
  });

  it('stores events at growing positions, a minute apart', () => {
    const [a, b] = [storedEvent('Counted', { id: 1, n: 1 }, { userId: 4 }), counted(1, 1)];
    expect(b.position > a.position).toBe(true);
    expect(b.createdAt.getTime() - a.createdAt.getTime()).toBe(60_000);
    expect(a.metadata).toEqual({ userId: '4' });
    expect(b.metadata).toEqual({});
  });
});
