// The launcher under vitest: globalSetup has already started (or reused) Postgres and Redis, so a
// second ensureLocalServices() must reuse them, and its stop() must leave them running.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, expect, inject, it } from 'vitest';
import { ensureDatabase, ensureLocalServices, portOpen, withDatabase } from './local-services.js';

const databaseUrl = inject('databaseUrl');
const redisUrl = inject('redisUrl');
const port = (url: string) => Number(new URL(url).port);
// The launcher's own ports: only when the run uses them can a call without URLs safely be tried
// (otherwise it would start a second Postgres here).
const launcherPorts =
  port(databaseUrl) === Number(process.env.BILLFLOW_PG_PORT ?? 54329) &&
  port(redisUrl) === Number(process.env.BILLFLOW_REDIS_PORT ?? 63790);

// Scratch databases this file made, dropped at the end.
const made: string[] = [];
afterAll(async () => {
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, 'postgres') });
  await admin.connect();
  for (const name of made) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
});

it.skipIf(!launcherPorts)(
  'reuses the running Postgres and Redis, and its stop() leaves them running',
  async () => {
    const saved = { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL };
    // Without URLs in the environment the launcher looks at its own ports: they are taken, so it reuses.
    delete process.env.DATABASE_URL;
    delete process.env.REDIS_URL;
    process.env.BILLFLOW_QUIET = '1';
    try {
      const services = await ensureLocalServices();
      expect(port(services.databaseUrl)).toBe(port(databaseUrl));
      expect(port(services.redisUrl)).toBe(port(redisUrl));

      const client = new pg.Client({ connectionString: services.databaseUrl });
      await client.connect();
      expect((await client.query('SELECT 1 + 1 AS two')).rows[0].two).toBe(2);
      await client.end();

      const redis = new Redis(services.redisUrl, { maxRetriesPerRequest: 1 });
      expect(await redis.ping()).toBe('PONG');
      redis.disconnect();

      await services.stop();
      // It started nothing, so it stopped nothing: both still answer.
      expect(await portOpen(port(databaseUrl))).toBe(true);
      expect(await portOpen(port(redisUrl))).toBe(true);
      const again = new pg.Client({ connectionString: databaseUrl });
      await again.connect();
      await again.query('SELECT 1');
      await again.end();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  },
);

it('reuses servers given by URL, and stopping them is a no-op', async () => {
  const saved = { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL };
  process.env.DATABASE_URL = databaseUrl;
  process.env.REDIS_URL = redisUrl;
  try {
    const services = await ensureLocalServices();
    expect(services.databaseUrl).toBe(databaseUrl);
    expect(services.redisUrl).toBe(redisUrl);
    await services.stop();
    expect(await portOpen(port(databaseUrl))).toBe(true);
    expect(await portOpen(port(redisUrl))).toBe(true);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

it('withDatabase() swaps only the database name', () => {
  const url = withDatabase('postgres://postgres:secret@127.0.0.1:54329/postgres?sslmode=disable', 'billflow');
  const u = new URL(url);
  expect(u.pathname).toBe('/billflow');
  expect(u.password).toBe('secret');
  expect(u.port).toBe('54329');
  expect(u.searchParams.get('sslmode')).toBe('disable');
});

it('ensureDatabase() creates a missing database once and is idempotent', async () => {
  const name = `bf_launcher_${randomBytes(4).toString('hex')}`;
  made.push(name);
  const url = withDatabase(databaseUrl, name);
  expect(await ensureDatabase(url)).toBe(url);
  expect(await ensureDatabase(url)).toBe(url);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  expect((await client.query('SELECT current_database() AS db')).rows[0].db).toBe(name);
  await client.end();
});
