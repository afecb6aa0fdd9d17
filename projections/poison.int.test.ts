// Poison events in a projection, against real Postgres: the one event the projection's code keeps
// failing on is retried, then parked with the checkpoint move, and the rest of the log is applied;
// after a fix an operator's retry applies it and clears the row. A lost connection is not poison.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../services/app/context.js';
import { ensureCheckpoints, readCheckpoint } from '../services/consumers/checkpoints.js';
import { dismissParked, listParked, parkedCounts, requestRetry } from '../services/consumers/parked.js';
import type { NewEvent, StoredEvent } from '../services/eventstore/port.js';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { registerProjectionMetrics } from '../services/gateway/projection-metrics.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { readWholeLog } from '../test/support/event-log.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';
import { activityProjection } from './dashboard/activity.js';
import type { Database } from './database.js';
import type { AnyProjection } from './projection.js';
import { rebuildProjection } from './rebuild.js';
import { ProjectionRunner } from './runner.js';

const silent = { info() {}, warn() {}, error() {} };
let db: TestDatabase;
let redis: TestRedis;
let store: PostgresEventStore;
let kysely: Kysely<Database>;
let clean: Record<string, string[]>;
let poison: StoredEvent;

function history(u: number): NewEvent[] {
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, u, i)).toISOString();
  return [
    {
      id: randomUUID(),
      type: 'UserRegistered',
      schemaVersion: 2,
      data: {
        userId: u,
        email: `user${u}@poison.test`,
        firstName: `First${u}`,
        lastName: `Last${u}`,
        role: 'USER',
        isActive: true,
        credentialId: 'hash',
        registeredAt: at(0),
      },
    },
    ...Array.from({ length: 6 }, (_, i) => ({
      id: randomUUID(),
      type: 'UserSignedIn',
      data: { userId: u, at: at(i + 1), ip: null },
    })),
    { id: randomUUID(), type: 'UserSignedOut', data: { userId: u, at: at(9) } },
  ];
}

async function snapshot(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of activityProjection.tables) {
    const r = await sql`SELECT * FROM ${sql.table(table)}`.execute(kysely);
    out[table] = r.rows.map((row) => JSON.stringify(row)).sort();
  }
  return out;
}

async function resetActivity() {
  for (const table of activityProjection.tables)
    await sql`DROP TABLE IF EXISTS ${sql.table(table)} CASCADE`.execute(kysely);
  await (activityProjection as AnyProjection).setup(kysely, 'public'); // as the runner holds it
  await sql`INSERT INTO projection_checkpoints(name, position, version) VALUES ('activity', '', ${activityProjection.version})
    ON CONFLICT (name) DO UPDATE SET position = '', version = ${activityProjection.version}`.execute(kysely);
  await sql`DELETE FROM parked_events`.execute(kysely).catch(() => {});
}

/** The real activity projection, except that `fails(event)` makes its code throw on that event. */
function flaky(
  fails: (e: StoredEvent) => Promise<boolean> | boolean,
  tries: Map<string, number>,
): AnyProjection {
  const check = async (trx: Parameters<AnyProjection['apply']>[0], e: StoredEvent) => {
    tries.set(e.id, (tries.get(e.id) ?? 0) + 1);
    if (await fails(e)) {
      // A statement that fails in the database, as a real bug would: the transaction is aborted.
      await sql`SELECT 1 / 0`.execute(trx);
    }
  };
  return {
    ...activityProjection,
    async apply(trx, e, ctx) {
      await check(trx, e);
      await activityProjection.apply(trx, e, ctx);
    },
    async applyBatch(trx, events, ctx) {
      for (const e of events) if (e.id === poison.id) await check(trx, e);
      await activityProjection.applyBatch?.(trx, events, ctx);
    },
  };
}

function runner(p: AnyProjection) {
  return new ProjectionRunner({
    pool: db.pool,
    store,
    projections: [p],
    redis: redis.client,
    prefix: redis.prefix,
    log: silent,
    batchSize: 50,
    standbyRetryMs: 50,
    restartDelayMs: 20,
    retry: { attempts: 3, firstDelayMs: 10, maxDelayMs: 40 },
    retryPollMs: 100,
  });
}

/** `billflow_parked_events{consumer="activity"}` as the gateway's /metrics shows it. */
async function parkedMetric(): Promise<number | undefined> {
  const registry = new Registry();
  registerProjectionMetrics(registry, { pool: db.pool, db: kysely, store } as unknown as AppServices);
  const text = await registry.metrics();
  const m = /^billflow_parked_events\{consumer="activity"\} (\S+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

async function caughtUp(timeoutMs = 30_000) {
  const head = await store.headPosition();
  await expect
    .poll(async () => (await readCheckpoint(kysely, 'activity'))?.position, { timeout: timeoutMs })
    .toBe(head);
}

beforeAll(async () => {
  db = await createTestDatabase('poison', 8);
  redis = await createTestRedis('poison');
  store = new PostgresEventStore(db.pool, { pollIntervalMs: 50 });
  await store.init();
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  await ensureCheckpoints(kysely);
  for (let u = 1; u <= 40; u++) await store.append(`user-${u}`, history(u), 'no_stream');
  const all = await readWholeLog(store, 40 * history(1).length);
  // A sign-in in the middle of the log, inside a batch with others before and after it.
  poison = all.find((e) => e.type === 'UserSignedIn' && e.streamId === 'user-17') as StoredEvent;
  await rebuildProjection(kysely, store, activityProjection);
  clean = await snapshot();
}, 60_000);

afterAll(async () => {
  await store?.close();
  await kysely?.destroy().catch(() => {});
  await redis?.cleanup();
  await db?.drop();
});

describe('poison events in a projection', () => {
  it('parks the event it keeps failing on after the retries, applies the rest, and applies it on a retry after the fix', async () => {
    await resetActivity();
    let broken = true;
    const tries = new Map<string, number>();
    const r = runner(flaky((e) => broken && e.id === poison.id, tries));
    await r.start();
    try {
      await caughtUp();
      const parked = await listParked(kysely, 'activity');
      expect(parked).toHaveLength(1);
      expect(parked[0]).toMatchObject({
        eventId: poison.id,
        position: poison.position,
        streamId: 'user-17',
        streamVersion: poison.streamVersion,
        eventType: 'UserSignedIn',
        attempts: 3,
        retryRequestedAt: null,
      });
      expect(parked[0].error).toMatch(/division by zero/);
      // Tried as part of its batch, then three times on its own.
      expect(tries.get(poison.id)).toBe(4);
      // The read model is the clean rebuild without that one event.
      const got = await snapshot();
      expect(got.activity_people).toEqual(clean.activity_people);
      const without = clean.activity.filter((row) => JSON.parse(row).id !== poison.id);
      expect(without).toHaveLength(clean.activity.length - 1);
      expect(got.activity).toEqual(without);
      // /metrics shows it.
      expect(await parkedMetric()).toBe(1);

      // A retry while still broken keeps it parked, with one more attempt and the request cleared.
      expect(await requestRetry(kysely, 'activity', poison.id)).toBe(true);
      await expect
        .poll(async () => (await listParked(kysely, 'activity'))[0]?.attempts, { timeout: 10_000 })
        .toBe(4);
      expect((await listParked(kysely, 'activity'))[0].retryRequestedAt).toBeNull();

      // The fix ships; the operator retries: applied, and the row goes.
      broken = false;
      expect(await requestRetry(kysely, 'activity', poison.id)).toBe(true);
      await expect
        .poll(async () => (await listParked(kysely, 'activity')).length, { timeout: 10_000 })
        .toBe(0);
      expect(await snapshot()).toEqual(clean);
      expect(await requestRetry(kysely, 'activity', poison.id)).toBe(false);
      expect(await parkedMetric()).toBe(0);
    } finally {
      await r.stop();
    }
  });

  it('a deadlock or a lost connection is not poison: the runner restarts from its checkpoint and parks nothing', async () => {
    await resetActivity();
    let failures = 0;
    const tries = new Map<string, number>();
    const p = flaky(() => false, tries);
    const killing: AnyProjection = {
      ...p,
      async apply(trx, e, ctx) {
        // More times in a row than the retries allow for poison: five deadlocks (as Postgres reports
        // them), then the connection dies twice.
        if (e.id === poison.id && failures < 7) {
          failures++;
          if (failures <= 5)
            await sql`DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = 'deadlock_detected'; END $$`.execute(
              trx,
            );
          await sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(trx);
        }
        await p.apply(trx, e, ctx);
      },
      applyBatch: undefined,
    };
    const r = runner(killing);
    await r.start();
    try {
      await caughtUp();
      expect(failures).toBe(7);
      expect(await listParked(kysely, 'activity')).toEqual([]);
      expect(await snapshot()).toEqual(clean);
    } finally {
      await r.stop();
    }
  });

  it('a rebuild parks what the projection fails on and swaps in the rest', async () => {
    const tries = new Map<string, number>();
    const result = await rebuildProjection(
      kysely,
      store,
      flaky((e) => e.id === poison.id, tries),
    );
    expect(result.parked).toBe(1);
    const parked = await listParked(kysely, 'activity');
    expect(parked.map((x) => x.eventId)).toEqual([poison.id]);
    expect((await snapshot()).activity).toEqual(
      clean.activity.filter((row) => JSON.parse(row).id !== poison.id),
    );
    // A rebuild with the fixed code applies it and clears the stale parked row.
    expect((await rebuildProjection(kysely, store, activityProjection)).parked).toBe(0);
    expect(await listParked(kysely, 'activity')).toEqual([]);
    expect(await snapshot()).toEqual(clean);
  });

  it('a rebuild keeps a dismissed parked event on record, dismissed, and uncounted', async () => {
    const failing = () => flaky((e) => e.id === poison.id, new Map());
    await rebuildProjection(kysely, store, failing());
    expect(await dismissParked(kysely, 'activity', poison.id, 1, 'Accepted as lost')).toBe('dismissed');
    // Parked again by the next build: still the dismissed row, not a new parked one.
    expect((await rebuildProjection(kysely, store, failing())).parked).toBe(1);
    const parked = await listParked(kysely, 'activity');
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ eventId: poison.id, dismissReason: 'Accepted as lost' });
    expect((await parkedCounts(kysely)).activity).toBeUndefined();
    // Applied by a fixed build: the record of the dismissal stays.
    await rebuildProjection(kysely, store, activityProjection);
    expect((await listParked(kysely, 'activity')).map((p) => p.dismissReason)).toEqual(['Accepted as lost']);
    await sql`DELETE FROM parked_events WHERE consumer = 'activity'`.execute(kysely);
  });
});
