// The projection runner against real Postgres and Redis: one active runner per projection with the
// others standing by, rebuild-and-swap, and crashes injected at random steps of the runner that must
// leave the read models exactly equal to a clean rebuild.

import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORGETTING_EVENTS } from '../schema/shared/events.js';
import { ensureCheckpoints, readCheckpoint } from '../services/consumers/checkpoints.js';
import type { NewEvent } from '../services/eventstore/port.js';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { projections } from '../services/modules/index.js';
import { testSecrets } from '../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { readWholeLog } from '../test/support/event-log.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';
import { rebuildByName } from '../tools/rebuild.js';
import { activityProjection } from './dashboard/activity.js';
import type { Database } from './database.js';
import type { AnyProjection } from './projection.js';
import { rebuildProjection } from './rebuild.js';
import { ProjectionRunner, type RunnerOptions } from './runner.js';
import { usersProjection } from './users/users.js';

const silent = { info() {}, warn() {}, error() {} };
const PROJECTIONS: AnyProjection[] = [usersProjection, activityProjection];
const TOTAL_EVENTS = 10_000;

/** A small deterministic generator, so a failing trial can be replayed from its seed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Realistic user histories: registrations, then sign-ins, edits, role changes, (de)activations, deletes. */
function userHistories(total: number): Array<{ stream: string; events: NewEvent[] }> {
  const random = rng(42);
  const roles = ['ADMIN', 'MODERATOR', 'USER', 'GUEST'] as const;
  const out: Array<{ stream: string; events: NewEvent[] }> = [];
  let count = 0;
  for (let u = 1; count < total; u++) {
    const at = new Date(Date.UTC(2026, 0, 1) + u * 60_000).toISOString();
    let role: (typeof roles)[number] = roles[u % 4];
    const events: NewEvent[] = [
      {
        id: randomUUID(),
        type: 'UserRegistered',
        schemaVersion: 2,
        data: {
          userId: u,
          email: `user${u}@runner.test`,
          firstName: `First${u}`,
          lastName: u % 7 === 0 ? null : `Last${u}`,
          role,
          isActive: true,
          credentialId: 'hash',
          registeredAt: at,
        },
      },
    ];
    const length = Math.min(total - count, 5 + Math.floor(random() * 30));
    let active = true;
    let deleted = false;
    for (let i = 1; i < length && !deleted; i++) {
      const when = new Date(Date.parse(at) + i * 1000).toISOString();
      const r = random();
      let e: NewEvent;
      if (r < 0.45)
        e = { id: randomUUID(), type: 'UserSignedIn', data: { userId: u, at: when, ip: '10.0.0.1' } };
      else if (r < 0.6)
        e = {
          id: randomUUID(),
          type: 'UserProfileUpdated',
          data: { userId: u, lastName: `Last${u}-${i}`, firstName: i % 2 ? `F${i}` : null, updatedAt: when },
        };
      else if (r < 0.72) {
        const to = roles[Math.floor(random() * 4)];
        e = {
          id: randomUUID(),
          type: 'UserRoleChanged',
          data: { userId: u, from: role, to, changedAt: when },
        };
        role = to;
      } else if (r < 0.82) {
        e = {
          id: randomUUID(),
          type: active ? 'UserDeactivated' : 'UserReactivated',
          data: { userId: u, at: when },
        };
        active = !active;
      } else if (r < 0.9)
        e = {
          id: randomUUID(),
          type: 'UserPasswordChanged',
          schemaVersion: 2,
          data: { userId: u, credentialId: `h${i}`, by: 'admin', at: when },
        };
      else if (r < 0.97) e = { id: randomUUID(), type: 'UserSignedOut', data: { userId: u, at: when } };
      else {
        e = { id: randomUUID(), type: 'UserDeleted', data: { userId: u, at: when } };
        deleted = true;
      }
      events.push(e);
    }
    count += events.length;
    out.push({ stream: `user-${u}`, events });
  }
  return out;
}

let db: TestDatabase;
let redis: TestRedis;
let store: PostgresEventStore;
let kysely: Kysely<Database>;

async function snapshot(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const p of PROJECTIONS)
    for (const table of p.tables) {
      const r = await sql`SELECT * FROM ${sql.table(table)}`.execute(kysely);
      out[table] = r.rows.map((row) => JSON.stringify(row)).sort();
    }
  return out;
}

/** Empty live tables and checkpoints at the start of the log: the runner must build them itself. */
async function resetReadModels() {
  await ensureCheckpoints(kysely);
  for (const p of PROJECTIONS) {
    for (const table of p.tables) await sql`DROP TABLE IF EXISTS ${sql.table(table)} CASCADE`.execute(kysely);
    await p.setup(kysely, 'public');
    await sql`INSERT INTO projection_checkpoints(name, position, version) VALUES (${p.name}, '', ${p.version})
      ON CONFLICT (name) DO UPDATE SET position = '', version = excluded.version`.execute(kysely);
  }
}

function runner(extra: Partial<RunnerOptions> = {}) {
  return new ProjectionRunner({
    pool: db.pool,
    store,
    projections: PROJECTIONS,
    redis: redis.client,
    prefix: redis.prefix,
    log: silent,
    batchSize: 250,
    standbyRetryMs: 50,
    restartDelayMs: 10,
    ...extra,
  });
}

async function waitCaughtUp(timeoutMs = 120_000) {
  const head = await store.headPosition();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const positions = await Promise.all(PROJECTIONS.map((p) => readCheckpoint(kysely, p.name)));
    if (positions.every((c) => c && c.position >= head)) return;
    if (Date.now() > deadline)
      throw new Error(`projections did not catch up to ${head}: ${JSON.stringify(positions)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let clean: Record<string, unknown[]>;

beforeAll(async () => {
  db = await createTestDatabase('runner', 12);
  redis = await createTestRedis('runner');
  store = new PostgresEventStore(db.pool, { pollIntervalMs: 50 });
  await store.init();
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  const histories = userHistories(TOTAL_EVENTS);
  for (let i = 0; i < histories.length; i += 32)
    await Promise.all(histories.slice(i, i + 32).map((h) => store.append(h.stream, h.events, 'no_stream')));
  // The reference: each projection rebuilt from the whole log into fresh tables and swapped in.
  for (const p of PROJECTIONS) await rebuildProjection(kysely, store, p, { batchSize: 2000 });
  clean = await snapshot();
}, 180_000);

afterAll(async () => {
  await store?.close();
  await kysely?.destroy().catch(() => {});
  await redis?.cleanup();
  await db?.drop();
});

describe('projection runner', () => {
  it('holds the reference to the real thing: 10,000 events, users and activity rows', async () => {
    const logged = await readWholeLog(store, TOTAL_EVENTS);
    expect(logged).toHaveLength(TOTAL_EVENTS);
    expect(clean.users.length).toBeGreaterThan(300);
    expect(clean.activity.length).toBe(TOTAL_EVENTS);
    // Deleted users stay in the table (history), marked deleted.
    expect(clean.users.some((row) => JSON.parse(row as string).deleted_at !== null)).toBe(true);
  });

  it('catching up live equals a clean rebuild', async () => {
    await resetReadModels();
    const r = runner();
    await r.start();
    await waitCaughtUp();
    await r.stop();
    expect(await snapshot()).toEqual(clean);
  });

  it('runs one active runner per projection; a standby takes over when it goes away', async () => {
    await resetReadModels();
    const a = runner();
    const b = runner();
    await a.start();
    await expect.poll(() => a.active.size, { timeout: 10_000 }).toBe(PROJECTIONS.length);
    await b.start();
    await waitCaughtUp();
    expect(b.active.size).toBe(0);
    await a.stop();
    await expect.poll(() => b.active.size, { timeout: 10_000 }).toBe(PROJECTIONS.length);
    // The standby carries on from the checkpoint with new events.
    const extra = `user-${900_001}`;
    await store.append(
      extra,
      [
        {
          id: randomUUID(),
          type: 'UserRegistered',
          schemaVersion: 2,
          data: {
            userId: 900_001,
            email: 'late@runner.test',
            firstName: 'Late',
            lastName: 'Comer',
            role: 'USER',
            isActive: true,
            credentialId: 'x',
            registeredAt: new Date().toISOString(),
          },
        },
      ],
      'no_stream',
    );
    await waitCaughtUp();
    const late = await sql<{ n: string }>`SELECT count(*)::text AS n FROM users WHERE id = 900001`.execute(
      kysely,
    );
    expect(late.rows[0].n).toBe('1');
    await b.stop();
    // Put the log back as the reference knows it, for the tests below.
    await sql`DELETE FROM es_events WHERE stream_id = ${extra}`.execute(kysely);
    // A store remembers the end of the log it read (shared by its subscribers); deleting from the
    // log behind its back is no operation the product has, so the tests below get a fresh one.
    await store.close();
    store = new PostgresEventStore(db.pool, { pollIntervalMs: 50 });
  });

  it('a rebuild builds fresh tables from the log and swaps them in, equal to the incremental read model', async () => {
    await resetReadModels();
    const r = runner();
    await r.start();
    await waitCaughtUp();
    await r.stop();
    const incremental = await snapshot();
    for (const p of PROJECTIONS) await rebuildProjection(kysely, store, p);
    expect(await snapshot()).toEqual(incremental);
    const schemas = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM pg_namespace WHERE nspname LIKE 'rb\\_%'`.execute(kysely);
    expect(schemas.rows[0].n).toBe('0');
  });

  it('a rebuild by hand (the CLI) while a runner is live swaps in, and the runner carries on to the same result', async () => {
    await resetReadModels();
    const r = runner();
    await r.start();
    // Mid catch-up: the runner is applying batches while the CLI rebuilds and swaps.
    await expect
      .poll(async () => (await readCheckpoint(kysely, 'users'))?.position ?? '', { timeout: 10_000 })
      .not.toBe('');
    const results = await rebuildByName(['all'], {
      DATABASE_URL: db.url,
      ENCRYPTION_KEY: testSecrets().ENCRYPTION_KEY,
    });
    // 'all' is every module's read model (services/modules): each replays the events of its types.
    const logged = await readWholeLog(store, TOTAL_EVENTS);
    const ofTypes = (types: readonly string[]) =>
      logged.filter((e) => types.includes(e.type) || FORGETTING_EVENTS.has(e.type)).length;
    expect(results.map((x) => [x.name, x.events])).toEqual(
      projections.map((p) => [p.name, ofTypes(p.handles)]),
    );
    expect(results.find((x) => x.name === 'users')?.events).toBeGreaterThan(TOTAL_EVENTS / 2);
    await waitCaughtUp();
    await r.stop();
    expect(await snapshot()).toEqual(clean);
    await expect(
      rebuildByName(['nope'], { DATABASE_URL: db.url, ENCRYPTION_KEY: testSecrets().ENCRYPTION_KEY }),
    ).rejects.toThrow(
      `Unknown projection nope; choose from: all, ${projections.map((p) => p.name).join(', ')}`,
    );
  });

  it('crashes injected at random points, 20 trials over 10,000 events, always end equal to a clean rebuild', {
    timeout: 600_000,
  }, async () => {
    const report: string[] = [];
    for (let trial = 1; trial <= 20; trial++) {
      const random = rng(1000 + trial);
      await resetReadModels();
      // 3 to 6 faults at random calls of the fault hook (3 points per batch where the writes go as one
      // statement, 4 where they go as a transaction; ~80 batches a run).
      const targets = new Set(
        Array.from({ length: 3 + Math.floor(random() * 4) }, () => Math.floor(random() * 230)),
      );
      let calls = 0;
      let injected = 0;
      let kills = 0;
      let processCrashes = 0;
      let current: ProjectionRunner | null = null;
      let replaced: Promise<void> | null = null;
      const faults: RunnerOptions['faults'] = async (point, trx) => {
        if (!targets.has(calls++)) return;
        injected++;
        const how = random();
        if (how < 0.2 && trx) {
          // The database connection dies in the middle of the batch's transaction.
          kills++;
          await sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(trx);
        }
        if (how > 0.8 && !replaced) {
          // The whole process dies here: the runner is dropped and a new one starts from scratch.
          processCrashes++;
          const dying = current;
          replaced = (async () => {
            await dying?.stop();
            current = runner({ faults });
            await current.start();
            replaced = null;
          })();
        }
        throw new Error(`injected fault at ${point}`);
      };
      current = runner({ faults });
      await current.start();
      await waitCaughtUp(300_000);
      while (replaced) await replaced;
      await waitCaughtUp(300_000);
      await (current as ProjectionRunner | null)?.stop();
      report.push(
        `trial ${trial}: ${injected} faults (${kills} connection kills, ${processCrashes} process crashes)`,
      );
      const got = await snapshot();
      expect(got, `trial ${trial} differs from the clean rebuild`).toEqual(clean);
    }
    // Faults really happened (the generator is seeded, so this is stable).
    const total = report.reduce((n, line) => n + Number(/: (\d+) faults/.exec(line)?.[1] ?? 0), 0);
    expect(total).toBeGreaterThanOrEqual(50);
    process.stdout.write(`${report.join('\n')}\n`);
  });
});
