// Projections run side by side in one runner: one that fails on an event never holds back another
// (and, after its retries, parks that event and goes on).
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCheckpoints, readCheckpoint } from '../services/consumers/checkpoints.js';
import { listParked } from '../services/consumers/parked.js';
import type { NewEvent } from '../services/eventstore/port.js';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';
import type { Database } from './database.js';
import type { AnyProjection } from './projection.js';
import { ProjectionRunner } from './runner.js';
import { usersProjection } from './users/users.js';

/** Which projections the runner reported as failed. */
const failed: string[] = [];
const log = {
  info() {},
  warn() {},
  error(fields: unknown) {
    failed.push(String((fields as { projection?: string }).projection));
  },
};
let db: TestDatabase;
let redis: TestRedis;
let store: PostgresEventStore;
let kysely: Kysely<Database>;

const registered = (userId: number): NewEvent => ({
  id: randomUUID(),
  type: 'UserRegistered',
  schemaVersion: 2,
  data: {
    userId,
    email: `u${userId}@combined.test`,
    firstName: 'C',
    lastName: 'T',
    role: 'USER',
    isActive: true,
    credentialId: 'h',
    registeredAt: new Date().toISOString(),
  },
});
const signedOut = (userId: number): NewEvent => ({
  id: randomUUID(),
  type: 'UserSignedOut',
  data: { userId, at: new Date().toISOString() },
});

function runner(projections: AnyProjection[]) {
  return new ProjectionRunner({
    pool: db.pool,
    store,
    projections,
    redis: redis.client,
    prefix: redis.prefix,
    log,
    standbyRetryMs: 50,
    restartDelayMs: 20,
    // Slow retries: the broken one is still retrying its poison event while users moves on.
    retry: { attempts: 2, firstDelayMs: 1500, maxDelayMs: 1500 },
  });
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const at = async (name: string) => (await readCheckpoint(kysely, name))?.position;

beforeAll(async () => {
  db = await createTestDatabase('combined', 8);
  redis = await createTestRedis('combined');
  store = new PostgresEventStore(db.pool, { pollIntervalMs: 50 });
  await store.init();
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  await ensureCheckpoints(kysely);
  await store.append('user-1', [registered(1)], 'no_stream');
});

afterAll(async () => {
  await store?.close();
  await kysely?.destroy().catch(() => {});
  await redis?.cleanup();
  await db?.drop();
});

describe('projection runner, several projections', () => {
  it('a projection that fails on an event does not hold back the others', async () => {
    const broken: AnyProjection = {
      name: 'broken-on-sign-out',
      version: 1,
      tables: [],
      handles: ['UserSignedOut'],
      async setup() {},
      async apply(_trx, event) {
        throw new Error(`cannot apply ${event.type}`);
      },
    };
    const head = await store.headPosition();
    // Caught up with the log so far; the next sign-out is its poison.
    await sql`INSERT INTO projection_checkpoints (name, position, version) VALUES (${broken.name}, ${head}, 1)`.execute(
      kysely,
    );
    failed.length = 0;
    const r = runner([usersProjection, broken]);
    await r.start();
    try {
      // Both live and waiting, so the next event reaches them in the same read of the log.
      await until(async () => r.active.size === 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { position } = await store.append('user-1', [signedOut(1)], 'any');
      await until(async () => (await at('users')) === position);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await at(broken.name)).toBe(head);
      expect(await at('users')).toBe(position);
      // Then it parks the event and catches up too.
      await until(async () => (await at(broken.name)) === position);
      expect((await listParked(kysely, broken.name)).map((e) => e.eventType)).toEqual(['UserSignedOut']);
      // Only the broken one failed: its failure was not passed on to users.
      expect(failed.length).toBeGreaterThan(0);
      expect(new Set(failed)).toEqual(new Set([broken.name]));
    } finally {
      await r.stop();
    }
  });
});
