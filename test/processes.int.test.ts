// Several processes, as deployed (docker-compose.yml): two gateways, two projectors and two workers,
// each its own OS process, on one database and one Redis prefix. A change made through one gateway
// reaches a subscriber of the other; killing the active projector hands its work to the standby.
import { createClient } from 'graphql-ws';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RoleProcess, startRole } from '../bench/processes.js';
import { testSecrets } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/db.js';
import { api } from './support/http.js';
import { createTestRedis, type TestRedis } from './support/redis.js';

let db: TestDatabase;
let redis: TestRedis;
let env: Record<string, string>;
const running: RoleProcess[] = [];
let gatewayA: RoleProcess;
let gatewayB: RoleProcess;
let projector1: RoleProcess;
let worker1: RoleProcess;
let adminToken: string;
const admin = { email: 'admin@processes.test', password: 'Processes-Passw0rd!' };

async function start(role: 'gateway' | 'projector' | 'worker') {
  const p = await startRole(role, env);
  running.push(p);
  return p;
}

/** Signs in once the users read model shows the admin (a projector must have caught up). */
async function signInWhenReady(url: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await api(url, 'POST', '/api/auth/login', { body: admin });
    if (r.status === 200) return r.body.data.tokens.accessToken as string;
    if (Date.now() > deadline) throw new Error(`sign-in never worked: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

beforeAll(async () => {
  db = await createTestDatabase('procs');
  await db.pool.end();
  redis = await createTestRedis('procs');
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    LOG_LEVEL: 'warn',
    ...testSecrets(),
  };
  // A gateway first, on an empty database with no projector yet (it must start and create the
  // first admin all the same); then the first projector alone, so it is the active one; the second
  // then stands by.
  gatewayA = await start('gateway');
  projector1 = await start('projector');
  adminToken = await signInWhenReady(gatewayA.url!);
  await start('projector');
  gatewayB = await start('gateway');
  worker1 = await start('worker');
  await start('worker');
}, 240_000);

afterAll(async () => {
  await Promise.allSettled(running.map((p) => p.stop()));
  await redis?.cleanup();
  await db?.drop();
}, 60_000);

/** Subscribes to userChanged on a gateway and resolves with the first push whose lastName matches. */
function pushOf(url: string, lastName: string) {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { token: adminToken },
    retryAttempts: 0,
  });
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  const received = new Promise<number>((resolve, reject) => {
    client.subscribe(
      { query: 'subscription { userChanged { id user { lastName } } }' },
      {
        next: (msg: any) => {
          if (msg.data?.userChanged?.user?.lastName === lastName) resolve(Date.now());
        },
        error: reject,
        complete: () => {},
      },
    );
  });
  return { client, connected, received };
}

async function adminId(url: string) {
  const me = await api(url, 'GET', '/api/auth/me', { token: adminToken });
  expect(me.status).toBe(200);
  return me.body.data.id as number;
}

it('a subscriber on gateway B sees a change made through gateway A', async () => {
  const id = await adminId(gatewayA.url!);
  const watch = pushOf(gatewayB.url!, 'Through-A');
  await watch.connected;
  const r = await api(gatewayA.url!, 'PUT', `/api/user/users/${id}`, {
    token: adminToken,
    body: { lastName: 'Through-A' },
  });
  expect(r.status).toBe(200);
  await expect(Promise.race([watch.received, timeout(15_000)])).resolves.toBeTypeOf('number');
  await watch.client.dispose();
}, 60_000);

it('killing the active projector hands over to the standby, and no change is lost', async () => {
  const id = await adminId(gatewayA.url!);
  projector1.kill('SIGKILL');
  const watch = pushOf(gatewayB.url!, 'After-Handover');
  await watch.connected;
  const sent = Date.now();
  const r = await api(gatewayA.url!, 'PUT', `/api/user/users/${id}`, {
    token: adminToken,
    body: { lastName: 'After-Handover' },
  });
  // The mutation is stored whether or not a projector is there; the standby then applies it.
  expect(r.status).toBe(200);
  const at = await Promise.race([watch.received, timeout(20_000)]);
  expect(typeof at).toBe('number');
  process.stderr.write(
    `[processes] standby applied the change ${(at as number) - sent} ms after it was sent\n`,
  );
  const read = await api(gatewayB.url!, 'GET', `/api/user/users/${id}`, { token: adminToken });
  expect(read.body.data.lastName).toBe('After-Handover');
  await watch.client.dispose();
}, 60_000);

it('killing a worker mid-run loses no reaction and doubles none', async () => {
  // Each new ADMIN is a reaction of the users process manager: a job tells the admin roster, which
  // records the admin once (AdminRosterAdmitted). One worker is killed while those jobs run; the
  // other, and BullMQ's stalled-job recovery for what the dead one held, must finish every one.
  const ids: number[] = [];
  const register = (i: number) =>
    api(gatewayA.url!, 'POST', '/api/auth/register', {
      token: adminToken,
      body: { email: `admin${i}@workers.test`, password: 'Passw0rd-123', role: 'ADMIN' },
    }).then((r) => {
      expect(r.status).toBe(201);
      ids.push(r.body.data.id as number);
    });
  for (let i = 0; i < 10; i++) await register(i);
  worker1.kill('SIGKILL');
  await Promise.all(Array.from({ length: 20 }, (_, i) => register(10 + i)));

  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    const admitted = async () => {
      const r = await pool.query(
        `SELECT (data->>'userId')::int AS id, count(*)::int AS n FROM es_events
         WHERE stream_id = 'adminroster' AND event_type = 'AdminRosterAdmitted' GROUP BY 1`,
      );
      return new Map(r.rows.map((row) => [row.id as number, row.n as number]));
    };
    // Jobs the killed worker held come back once BullMQ sees them stalled (its lock ran out).
    await expect
      .poll(
        async () => {
          const m = await admitted();
          return ids.filter((id) => m.has(id)).length;
        },
        {
          timeout: 90_000,
          interval: 1000,
        },
      )
      .toBe(30);
    const counts = await admitted();
    expect(ids.map((id) => counts.get(id))).toEqual(ids.map(() => 1));
  } finally {
    await pool.end();
  }
}, 150_000);

function timeout(ms: number) {
  return new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`nothing after ${ms} ms`)), ms));
}
