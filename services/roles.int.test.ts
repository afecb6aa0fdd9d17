// The same build as separate processes: two gateways and one projector (and a worker) against one
// Postgres and Redis. A subscription held on gateway B receives a change made through gateway A.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { testSecrets } from '../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { api, signIn } from '../test/support/http.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';

const ROOT = path.resolve(import.meta.dirname, '..');
let db: TestDatabase;
let redis: TestRedis;
const children: ChildProcess[] = [];
let env: Record<string, string>;

/** Starts `services/main.ts` with a role; resolves with its printed URL (gateways) or once running. */
function startRole(role: string): Promise<string | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, ROLE: role, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${role} did not start: ${out} ${err}`)), 30_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m || /running/.test(out)) {
        clearTimeout(timer);
        resolve(m ? m[1] : null);
      }
    });
    child.stderr!.on('data', (d) => {
      err += d;
    });
    child.once('exit', (code) => reject(new Error(`${role} exited ${code}: ${err}`)));
  });
}

beforeAll(async () => {
  db = await createTestDatabase('roles');
  redis = await createTestRedis('roles');
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ADMIN_EMAIL: 'admin@roles.test',
    ADMIN_PASSWORD: 'Admin-Passw0rd!',
    LOG_LEVEL: 'error',
    ...testSecrets(),
  };
}, 60_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
  );
  await redis?.cleanup();
  await db?.drop();
});

it('a change made through gateway A reaches a subscriber on gateway B', { timeout: 90_000 }, async () => {
  // Projector and worker first, so the gateways' first-admin registration can read its write.
  await Promise.all([startRole('projector'), startRole('worker')]);
  const a = await startRole('gateway');
  const b = await startRole('gateway');
  expect(a).not.toBe(b);
  const admin = await signIn(a!, 'admin@roles.test', 'Admin-Passw0rd!');
  const token = admin.tokens.accessToken;

  const received: any[] = [];
  const client = createClient({
    url: `${b!.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { token },
  });
  const subscribed = new Promise<void>((resolve, reject) => {
    client.subscribe(
      { query: 'subscription { userChanged { id type user { email role } } }' },
      { next: (v) => received.push(v), error: reject, complete: () => {} },
    );
    client.on('connected', () => setTimeout(resolve, 200));
  });
  await subscribed;

  const created = await api(a!, 'POST', '/api/auth/register', {
    body: { email: 'live@roles.test', password: 'Passw0rd-123' },
    token,
  });
  expect(created.status).toBe(201);
  // read-your-writes across processes: gateway B already sees it
  const onB = await api(b!, 'GET', `/api/user/users/${created.body.data.id}`, { token });
  expect(onB.status).toBe(200);
  await api(a!, 'PUT', `/api/user/users/${created.body.data.id}/role`, {
    body: { role: 'MODERATOR' },
    token,
  });

  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !received.some((r) => r.data?.userChanged?.type === 'UserRoleChanged')) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const types = received.map((r) => r.data?.userChanged?.type);
  expect(types).toContain('UserRegistered');
  expect(types).toContain('UserRoleChanged');
  const last = received.find((r) => r.data.userChanged.type === 'UserRoleChanged');
  expect(last.data.userChanged.user).toEqual({ email: 'live@roles.test', role: 'MODERATOR' });
  await client.dispose();
});

it('refuses a subscription without a valid token (socket closed 4403)', async () => {
  const url = (await startRole('gateway'))!;
  const closed = await new Promise<number>((resolve) => {
    const client = createClient({
      url: `${url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { token: 'nope' },
      retryAttempts: 0,
    });
    client.on('closed', (e: any) => resolve(e.code));
    client.subscribe(
      { query: 'subscription { userChanged { id } }' },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
  });
  expect(closed).toBe(4403);
}, 60_000);
