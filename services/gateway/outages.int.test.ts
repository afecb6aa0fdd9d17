// Outages of the real servers while the product runs: a scratch redis-server or Postgres is stopped
// and started again under it (never the shared ones). Redis down: sign-in, its limit, mutations and
// the health calls keep answering promptly, the log says so once, and live pushes resume by
// themselves. Postgres down: 503 with a clear message, readiness 503, and recovery without a restart.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createClient } from 'graphql-ws';
import { afterAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { testSecrets } from '../../test/support/app.js';
import { createTestDatabase } from '../../test/support/db.js';
import { api, signIn } from '../../test/support/http.js';
import { startScratchPostgres, startScratchRedis } from '../../test/support/scratch-services.js';
import { withDatabase } from '../../tools/local-services.js';
import { startApp } from '../main.js';
import { loadConfig } from '../shared/config.js';
import { DATABASE_UNAVAILABLE } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const admin = { email: 'admin@outage.test', password: 'Admin-Passw0rd!' };
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** The product in this process, its non-HTTP log captured line by line. */
async function startProduct(env: Record<string, string>) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    LOG_LEVEL: 'silent',
    ...testSecrets(),
    ...env,
  });
  const started = await startApp(config, { log: createLogger('info', {}, sink) });
  cleanups.push(() => started.close());
  return { started, url: started.url as string, lines };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

function watchUsers(url: string, token: string) {
  const messages: unknown[] = [];
  const client = createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { token },
    retryAttempts: 0,
  });
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  client.subscribe(
    { query: 'subscription { userChanged { id type } }' },
    { next: (v) => messages.push(v), error: () => {}, complete: () => {} },
  );
  cleanups.push(async () => client.dispose());
  return { messages, connected };
}

describe('Redis stops while the product runs', () => {
  it('keeps sign-in, its limit, mutations and health answering, logs once, and resumes live pushes', async () => {
    const redis = await startScratchRedis();
    cleanups.push(() => redis.close());
    const db = await createTestDatabase('outage_redis');
    await db.pool.end();
    cleanups.push(() => db.drop());
    const product = await startProduct({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'outage',
      LOGIN_MAX_FAILURES: '3',
    });
    const { url, lines } = product;
    const token = (await signIn(url, admin.email, admin.password)).tokens.accessToken;
    const live = watchUsers(url, token);
    await live.connected;
    // A push while Redis is up: the subscription works before the outage.
    await api(url, 'PUT', '/api/user/profile', { token, body: { firstName: 'Before' } });
    await expect.poll(() => live.messages.length, { timeout: 10_000 }).toBeGreaterThan(0);

    await redis.stop();

    const signedIn = await timed(() =>
      api(url, 'POST', '/api/auth/login', { body: { email: admin.email, password: admin.password } }),
    );
    expect(signedIn.value.status).toBe(200);
    expect(signedIn.ms).toBeLessThan(1000);

    // The failed-sign-in limit holds without Redis (it never fails open).
    const guesses = { email: 'nobody@outage.test', password: 'wrong-password' };
    for (let i = 0; i < 3; i++) {
      const r = await timed(() => api(url, 'POST', '/api/auth/login', { body: guesses }));
      expect(r.value.status).toBe(401);
      expect(r.ms).toBeLessThan(1000);
    }
    expect((await api(url, 'POST', '/api/auth/login', { body: guesses })).status).toBe(429);

    // A mutation answers promptly (no publish to wait on, catch-up polls Postgres) and shows its change.
    const edited = await timed(() =>
      api(url, 'PUT', '/api/user/profile', { token, body: { firstName: 'During' } }),
    );
    expect(edited.value.status).toBe(200);
    expect(edited.value.body.data.firstName).toBe('During');
    expect(edited.ms).toBeLessThan(2500);
    expect((await api(url, 'GET', '/api/user/profile', { token })).body.data.firstName).toBe('During');

    const health = await timed(() => api(url, 'GET', '/api/health/detailed', { token }));
    expect(health.value.body.data).toMatchObject({ status: 'degraded', redis: { status: 'disconnected' } });
    expect(health.ms).toBeLessThan(1000);
    const ready = await api(url, 'GET', '/api/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data).toMatchObject({ status: 'ready', degraded: true, redis: 'disconnected' });

    // Several reconnect attempts later, still one line about it, and no stack trace.
    await new Promise((r) => setTimeout(r, 2500));
    expect(lines.filter((l) => /Redis is down/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"stack"'))).toEqual([]);

    await redis.start();
    await expect.poll(() => lines.some((l) => /Redis is back/.test(l)), { timeout: 15_000 }).toBe(true);
    expect(lines.filter((l) => /Redis is down/.test(l))).toHaveLength(1);

    // Live pushes resume with no restart.
    const before = live.messages.length;
    await api(url, 'PUT', '/api/user/profile', { token, body: { firstName: 'After' } });
    await expect.poll(() => live.messages.length, { timeout: 10_000 }).toBeGreaterThan(before);
    expect((await api(url, 'GET', '/api/health/detailed', { token })).body.data).toMatchObject({
      status: 'healthy',
      redis: { status: 'connected' },
    });
  }, 90_000);
});

describe('Postgres stops while the product runs', () => {
  it('answers 503 with a clear message and readiness 503, and recovers by itself', async () => {
    const pg = await startScratchPostgres();
    cleanups.push(() => pg.close());
    const { url } = await startProduct({
      DATABASE_URL: withDatabase(pg.url, 'postgres'),
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: `outage_pg_${process.pid}`,
    });
    expect((await signIn(url, admin.email, admin.password)).tokens.accessToken).toBeTruthy();
    expect((await api(url, 'GET', '/api/health/ready')).status).toBe(200);

    await pg.stop();

    const login = await timed(() =>
      api(url, 'POST', '/api/auth/login', { body: { email: admin.email, password: admin.password } }),
    );
    expect(login.value.status).toBe(503);
    expect(login.value.body).toMatchObject({
      success: false,
      code: 'UNAVAILABLE',
      error: DATABASE_UNAVAILABLE,
      message: DATABASE_UNAVAILABLE,
    });
    const ready = await api(url, 'GET', '/api/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      success: false,
      code: 'UNAVAILABLE',
      data: { status: 'unavailable' },
    });

    await pg.start();
    await expect
      .poll(
        async () =>
          (
            await api(url, 'POST', '/api/auth/login', {
              body: { email: admin.email, password: admin.password },
            })
          ).status,
        { timeout: 20_000, interval: 500 },
      )
      .toBe(200);
    expect((await api(url, 'GET', '/api/health/ready')).status).toBe(200);
  }, 120_000);
});

describe('SIGTERM with Redis gone', () => {
  it('ends the process within 10 s', async () => {
    const redis = await startScratchRedis();
    cleanups.push(() => redis.close());
    const db = await createTestDatabase('outage_sigterm');
    await db.pool.end();
    cleanups.push(() => db.drop());
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...testSecrets(),
        NODE_ENV: 'test',
        ROLE: 'all',
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: db.url,
        REDIS_URL: redis.url,
        REDIS_PREFIX: 'sigterm',
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => child.exitCode === null && child.kill('SIGKILL'));
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    child.stderr?.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect.poll(() => out, { timeout: 60_000, interval: 200 }).toMatch(/listening on/);

    await redis.stop();
    await new Promise((r) => setTimeout(r, 1000));
    const t = performance.now();
    child.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r('still running'), 10_000)),
    ]);
    expect(code).not.toBe('still running');
    expect(performance.now() - t).toBeLessThan(10_000);
  }, 90_000);
});
