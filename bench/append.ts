// Append throughput: 16 concurrent writers, each on its own streams, one event per append, for our
// Postgres event store and for Emmett's PostgreSQL event store, on the same Postgres server.
import { randomUUID } from 'node:crypto';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { createPool } from '../services/shared/db.js';

export interface AppendFigures {
  events: number;
  seconds: number;
  perSecond: number;
}

const WRITERS = 16;
/**
 * Appends per writer run untimed before the timed run, the same for both stores: a run of a second
 * or two otherwise measures the JIT compiling the client (ours went 7,100 → 10,700 events/s from
 * a cold to a second run in one process) rather than the store.
 */
const WARM_UP_PER_WRITER = 200;

async function runWriters(
  perWriter: number,
  appendOne: (writer: number, i: number) => Promise<void>,
): Promise<AppendFigures> {
  const start = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < perWriter; i++) await appendOne(w, i);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const events = WRITERS * perWriter;
  return { events, seconds, perSecond: events / seconds };
}

/** Each writer appends to a stream of its own, 10 events a stream, with the expected version. */
export async function benchOurs(databaseUrl: string, perWriter: number): Promise<AppendFigures> {
  // The product's pool: its settings (generic plans for the store's named statements) are part of it.
  const pool = createPool({ connectionString: databaseUrl, max: WRITERS + 2 });
  // BENCH_INFLIGHT overrides the store's statements in flight, to measure the choice again.
  const store = new PostgresEventStore(
    pool,
    process.env.BENCH_INFLIGHT ? { maxInFlight: Number(process.env.BENCH_INFLIGHT) } : {},
  );
  await store.init();
  const run = randomUUID().slice(0, 8);
  // warm-up: connections and plans
  await Promise.all(
    Array.from({ length: WRITERS }, (_, w) =>
      store.append(`warm-${run}-${w}`, [{ id: randomUUID(), type: 'Warm', data: {} }], 'no_stream'),
    ),
  );
  const appendOne = (phase: string) => async (w: number, i: number) => {
    const stream = `${phase}-${run}-${w}-${Math.floor(i / 10)}`;
    await store.append(
      stream,
      [{ id: randomUUID(), type: 'BillApproved', data: { amount: i, writer: w } }],
      i % 10,
    );
  };
  await runWriters(WARM_UP_PER_WRITER, appendOne('warm-up'));
  const figures = await runWriters(perWriter, appendOne('bench'));
  await store.close();
  await pool.end();
  return figures;
}

export async function benchEmmett(databaseUrl: string, perWriter: number): Promise<AppendFigures> {
  const store = getPostgreSQLEventStore(databaseUrl, {
    connectionOptions: { pooled: true, max: WRITERS + 2 } as never,
  });
  const run = randomUUID().slice(0, 8);
  await Promise.all(
    Array.from({ length: WRITERS }, (_, w) =>
      store.appendToStream(`warm-${run}-${w}`, [{ type: 'Warm', data: {} }]),
    ),
  );
  const appendOne = (phase: string) => async (w: number, i: number) => {
    const stream = `${phase}-${run}-${w}-${Math.floor(i / 10)}`;
    await store.appendToStream(stream, [{ type: 'BillApproved', data: { amount: i, writer: w } }], {
      expectedStreamVersion: BigInt(i % 10),
    });
  };
  await runWriters(WARM_UP_PER_WRITER, appendOne('warm-up'));
  const figures = await runWriters(perWriter, appendOne('bench'));
  await store.close();
  return figures;
}
