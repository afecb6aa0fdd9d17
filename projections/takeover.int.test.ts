// Projector take-over across real processes: two `ROLE=projector` processes on one database, the
// active one frozen with SIGSTOP (a host that hangs still acks TCP, so only the heartbeat lease can
// tell). The standby must apply a new event within 5 s; once the old one is thawed, nothing is
// applied twice (the read models equal a rebuild from the log).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NewEvent } from '../services/eventstore/port.js';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { testSecrets } from '../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';
import { activityProjection } from './dashboard/activity.js';
import type { Database } from './database.js';
import { rebuildProjection } from './rebuild.js';
import { usersProjection } from './users/users.js';

const ROOT = path.resolve(import.meta.dirname, '..');
let db: TestDatabase;
let redis: TestRedis;
let store: PostgresEventStore;
let kysely: Kysely<Database>;
const children: ChildProcess[] = [];
const logs = new Map<string, string[]>();

function startProjector(label: string): Promise<ChildProcess> {
  const url = new URL(db.url);
  // Tells the processes apart in pg_stat_activity.
  url.searchParams.set('application_name', label);
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ROLE: 'projector',
      DATABASE_URL: url.toString(),
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      LOG_LEVEL: 'warn',
      ...testSecrets(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${label} did not start: ${out} ${err}`)), 90_000);
    child.stderr?.on('data', (d) => {
      err += d;
      logs.set(label, [...(logs.get(label) ?? []), ...String(d).split('\n').filter(Boolean)]);
    });
    child.once('exit', (code) => reject(new Error(`${label} exited ${code}: ${err}`)));
    child.stdout?.on('data', (d) => {
      out += d;
      if (/running/.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

/** Which process holds the lease of a projection (by its application_name). */
async function holder(name: string): Promise<string | null> {
  const r = await sql<{ app: string }>`
    SELECT a.application_name AS app FROM consumer_leases l JOIN pg_stat_activity a ON a.pid = l.holder_pid
    WHERE l.name = ${name}`.execute(kysely);
  return r.rows[0]?.app ?? null;
}

const registered = (userId: number): NewEvent => ({
  id: randomUUID(),
  type: 'UserRegistered',
  schemaVersion: 2,
  data: {
    userId,
    email: `u${userId}@takeover.test`,
    firstName: 'Take',
    lastName: 'Over',
    role: 'USER',
    isActive: true,
    credentialId: 'h',
    registeredAt: new Date().toISOString(),
  },
});

const userShown = async (id: number) =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM users WHERE id = ${id}`.execute(kysely)).rows[0]
    .n === 1;

async function snapshot() {
  const out: Record<string, string[]> = {};
  for (const table of [...usersProjection.tables, ...activityProjection.tables]) {
    const r = await sql`SELECT * FROM ${sql.table(table)}`.execute(kysely);
    out[table] = r.rows.map((row) => JSON.stringify(row)).sort();
  }
  return out;
}

beforeAll(async () => {
  db = await createTestDatabase('takeover', 6);
  redis = await createTestRedis('takeover');
  store = new PostgresEventStore(db.pool, { pollIntervalMs: 50 });
  await store.init();
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
});

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  }
  await store?.close();
  await kysely?.destroy().catch(() => {});
  await redis?.cleanup();
  await db?.drop();
});

it('a standby projector takes over within 5 s from a frozen active one, and nothing is applied twice', {
  timeout: 240_000,
}, async () => {
  for (let u = 1; u <= 20; u++) await store.append(`user-${u}`, [registered(u)], 'no_stream');
  const a = await startProjector('projector-a');
  await expect.poll(() => holder('users'), { timeout: 60_000 }).toBe('projector-a');
  await expect.poll(() => holder('activity'), { timeout: 60_000 }).toBe('projector-a');
  const b = await startProjector('projector-b');
  await expect.poll(() => userShown(20), { timeout: 30_000 }).toBe(true);
  // Let b settle as a standby.
  await new Promise((r) => setTimeout(r, 1500));
  expect(await holder('users')).toBe('projector-a');

  a.kill('SIGSTOP');
  const frozenAt = performance.now();
  const frozenWall = new Date().toISOString();
  await store.append('user-21', [registered(21)], 'no_stream');
  await expect.poll(() => userShown(21), { timeout: 20_000, interval: 25 }).toBe(true);
  const takeoverMs = Math.round(performance.now() - frozenAt);
  process.stdout.write(
    `projector take-over: the standby applied a new event ${takeoverMs} ms after the active one froze\n`,
  );
  process.stdout.write(`frozen at ${frozenWall}\n`);
  for (const line of logs.get('projector-b') ?? [])
    if (/taking over/.test(line)) process.stdout.write(`${line}\n`);
  expect(takeoverMs).toBeLessThan(5000);
  expect(await holder('users')).toBe('projector-b');

  // The old one wakes up: it must notice it lost the lock and apply nothing twice.
  a.kill('SIGCONT');
  await new Promise((r) => setTimeout(r, 3000));
  for (let u = 22; u <= 30; u++) await store.append(`user-${u}`, [registered(u)], 'no_stream');
  await store.append(
    'user-22',
    [{ id: randomUUID(), type: 'UserSignedOut', data: { userId: 22, at: new Date().toISOString() } }],
    'any',
  );
  await expect.poll(() => userShown(30), { timeout: 20_000 }).toBe(true);
  const head = await store.headPosition();
  await expect
    .poll(
      async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM projection_checkpoints
          WHERE name IN ('users', 'activity') AND position = ${head}`.execute(kysely)
        ).rows[0].n,
      { timeout: 20_000 },
    )
    .toBe(2);
  for (const c of [a, b]) {
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
  const live = await snapshot();
  for (const p of [usersProjection, activityProjection]) await rebuildProjection(kysely, store, p);
  expect(live).toEqual(await snapshot());
  expect(live.activity).toHaveLength(31);
});
