// The operations page's calls over REST and GraphQL against a real gateway, Postgres and Redis: the
// role matrix, a failed BullMQ job shown and run again, a parked event shown and retried, the live
// feed, and an answer while Redis is down.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { startScratchRedis } from '../../test/support/scratch-services.js';
import { socketClient } from '../../test/support/socket.js';
import { ensureParkedTable, parkEvent } from '../consumers/parked.js';
import type { StoredEvent } from '../eventstore/port.js';
import { APPEND_LOCK_CLASS } from '../eventstore/postgres.js';
import { QUEUES, queuePrefix } from '../shared/queues.js';
import { redisOptions } from '../shared/redis.js';

let t: TestApp;
let maintenance: Queue;
const ROLES = ['ADMIN', 'MODERATOR', 'USER', 'GUEST'] as const;
type Role = (typeof ROLES)[number];
const tokens = {} as Record<Role, string>;
const PASSWORD = 'Passw0rd-123';

beforeAll(async () => {
  t = await startTestApp();
  tokens.ADMIN = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
    const email = `${role.toLowerCase()}@operations.test`;
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: { email, password: PASSWORD, role },
      token: tokens.ADMIN,
    });
    expect(r.status).toBe(201);
    tokens[role] = (await signIn(t.url, email, PASSWORD)).tokens.accessToken;
  }
  maintenance = new Queue(QUEUES.maintenance, {
    connection: redisOptions(t.env.REDIS_URL),
    prefix: queuePrefix(t.env.REDIS_PREFIX),
  });
  await ensureParkedTable(t.started.app.db);
});

afterAll(async () => {
  await maintenance?.close();
  await t?.stop();
});

const overview = async () => {
  const r = await api(t.url, 'GET', '/api/operations', { token: tokens.ADMIN });
  expect(r.status).toBe(200);
  return r.body.data as {
    redis: string;
    queues: Array<{
      name: string;
      available: boolean;
      counts: Record<string, number> | null;
      failedJobs: Array<{
        id: string;
        name: string;
        failedReason: string;
        attemptsMade: number;
        failedAt: string;
      }>;
    }>;
    consumers: Array<{
      name: string;
      kind: string;
      checkpoint: string | null;
      lagSeconds: number | null;
      parked: Array<{
        eventId: string;
        eventType: string;
        error: string;
        attempts: number;
        retryRequested: boolean;
      }>;
    }>;
    logHolder: unknown;
  };
};

const failedJob = async (queue: string, id: string) =>
  (await overview()).queues.find((q) => q.name === queue)?.failedJobs.find((j) => j.id === id);

/** A job the maintenance worker does not know: it fails on every run. */
async function addFailingJob(secret = 'payload-not-shown') {
  const job = await maintenance.add('no-such-job', { marker: secret }, { jobId: `op-${randomUUID()}` });
  await expect.poll(() => failedJob(QUEUES.maintenance, job.id!), { timeout: 15_000 }).toBeDefined();
  return job.id!;
}

function fakeEvent(): StoredEvent {
  return {
    id: randomUUID(),
    type: 'UserProfileUpdated',
    schemaVersion: 1,
    streamId: 'user-424242',
    streamVersion: 3,
    position: '0000000000000999:0000000000000999',
    data: {},
    metadata: {} as StoredEvent['metadata'],
    createdAt: new Date(),
  };
}

/** A consumer no runner owns, so nothing acts on the retry request while the test looks. */
const IDLE_CONSUMER = 'pm:operations-test';

describe('role matrix: REST', () => {
  const calls = [
    { method: 'GET', path: '/api/operations', admin: 200 },
    // Allowed for ADMIN; the job and event do not exist.
    { method: 'POST', path: '/api/operations/queues/maintenance/jobs/nope/retry', admin: 404 },
    { method: 'POST', path: `/api/operations/parked/users/${randomUUID()}/retry`, admin: 404 },
  ];
  for (const call of calls) {
    it(`${call.method} ${call.path}`, async () => {
      const anon = await api(t.url, call.method, call.path);
      expect(anon.status, 'no token').toBe(401);
      expect(anon.body).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
      for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
        const r = await api(t.url, call.method, call.path, { token: tokens[role] });
        expect(r.status, role).toBe(403);
        expect(r.body, role).toMatchObject({ success: false, code: 'FORBIDDEN' });
      }
      const r = await api(t.url, call.method, call.path, { token: tokens.ADMIN });
      expect(r.status, JSON.stringify(r.body)).toBe(call.admin);
    });
  }
});

describe('role matrix: GraphQL', () => {
  const ops = [
    { query: '{ operations { redis queues { name } } }', admin: null },
    { query: 'mutation { retryFailedJob(queue: "maintenance", jobId: "nope") }', admin: 'NOT_FOUND' },
    {
      query: `mutation { retryParkedEvent(consumer: "users", eventId: "${randomUUID()}") }`,
      admin: 'NOT_FOUND',
    },
  ];
  for (const op of ops) {
    it(op.query, async () => {
      const anon = await gql(t.url, op.query);
      expect(anon.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
      for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
        const r = await gql(t.url, op.query, {}, tokens[role]);
        expect(r.errors?.[0].extensions?.code, role).toBe('FORBIDDEN');
      }
      const r = await gql(t.url, op.query, {}, tokens.ADMIN);
      expect(r.errors?.[0]?.extensions?.code ?? null, JSON.stringify(r)).toBe(op.admin);
    });
  }

  it('subscription operationsChanged: refused to MODERATOR, USER and GUEST as it starts', async () => {
    for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
      const w = watchOperations(tokens[role]);
      await expect.poll(() => w.messages.length + w.errors.length, { timeout: 10_000 }).toBe(1);
      expect(JSON.stringify([...w.messages, ...w.errors]), role).toMatch(/Not authorized/);
      await w.client.dispose();
    }
  });
});

function watchOperations(token: string) {
  const messages: any[] = [];
  const errors: unknown[] = [];
  const client = socketClient(t.url, token);
  client.subscribe(
    {
      query:
        'subscription { operationsChanged { redis queues { name failedJobs { id attemptsMade } } consumers { name parked { eventId retryRequested } } } }',
    },
    { next: (v) => messages.push(v), error: (e) => errors.push(e), complete: () => {} },
  );
  return { client, messages, errors };
}

it('shows every module’s queue and process manager, the QuickBooks token refresh among them', async () => {
  const data = await overview();
  expect(data.queues.map((q) => q.name)).toContain('quickbooks');
  expect(data.consumers.map((c) => c.name)).toContain('pm:quickbooks');
});

describe('failed jobs', () => {
  it('shows a failed job with its reason and attempts, never its data', async () => {
    const id = await addFailingJob('secret-marker-4711');
    const job = await failedJob(QUEUES.maintenance, id);
    expect(job).toMatchObject({ id, name: 'no-such-job', attemptsMade: 1 });
    expect(job?.failedReason).toMatch(/no-such-job/);
    expect(Date.parse(job!.failedAt)).toBeGreaterThan(Date.now() - 60_000);
    const data = await overview();
    expect(JSON.stringify(data)).not.toContain('secret-marker-4711');
    const q = data.queues.find((x) => x.name === QUEUES.maintenance)!;
    expect(q.available).toBe(true);
    expect(q.counts?.failed).toBeGreaterThanOrEqual(1);
    expect(data.redis).toBe('up');
  });

  it('retry runs the job again (REST), and a job that is not failed is refused with 409', async () => {
    const id = await addFailingJob();
    const r = await api(t.url, 'POST', `/api/operations/queues/maintenance/jobs/${id}/retry`, {
      token: tokens.ADMIN,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, data: { queue: 'maintenance', jobId: id } });
    // The worker ran it a second time (it fails again: its name is still unknown).
    await expect
      .poll(async () => (await failedJob(QUEUES.maintenance, id))?.attemptsMade, { timeout: 15_000 })
      .toBe(2);

    const delayed = await maintenance.add('later', {}, { delay: 60_000, jobId: `op-${randomUUID()}` });
    const refused = await api(t.url, 'POST', `/api/operations/queues/maintenance/jobs/${delayed.id}/retry`, {
      token: tokens.ADMIN,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: 'CONFLICT' });
    await delayed.remove();
  });

  it('retry over GraphQL; an unknown queue is 404', async () => {
    const id = await addFailingJob();
    const r = await gql(
      t.url,
      `mutation { retryFailedJob(queue: "maintenance", jobId: "${id}") }`,
      {},
      tokens.ADMIN,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ retryFailedJob: true });
    await expect
      .poll(async () => (await failedJob(QUEUES.maintenance, id))?.attemptsMade, { timeout: 15_000 })
      .toBe(2);
    const unknown = await api(t.url, 'POST', `/api/operations/queues/nope/jobs/${id}/retry`, {
      token: tokens.ADMIN,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('the live feed pushes a newly failed job to an admin', async () => {
    const w = watchOperations(tokens.ADMIN);
    await expect.poll(() => w.messages.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(w.errors).toEqual([]);
    const id = await addFailingJob();
    await expect
      .poll(
        () =>
          w.messages
            .at(-1)
            ?.data?.operationsChanged.queues.some((q: any) => q.failedJobs.some((j: any) => j.id === id)),
        { timeout: 10_000 },
      )
      .toBe(true);
    await w.client.dispose();
  });
});

describe('parked events', () => {
  it('shows a parked event under its consumer; retry marks it requested (REST)', async () => {
    const event = fakeEvent();
    await parkEvent(t.started.app.db, IDLE_CONSUMER, event, new Error('handler exploded'), 5);
    const consumer = (await overview()).consumers.find((c) => c.name === IDLE_CONSUMER);
    expect(consumer).toMatchObject({ kind: 'process-manager', checkpoint: null });
    expect(consumer?.parked).toEqual([
      expect.objectContaining({
        eventId: event.id,
        eventType: 'UserProfileUpdated',
        error: 'handler exploded',
        attempts: 5,
        retryRequested: false,
      }),
    ]);
    const r = await api(t.url, 'POST', `/api/operations/parked/${IDLE_CONSUMER}/${event.id}/retry`, {
      token: tokens.ADMIN,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after = (await overview()).consumers.find((c) => c.name === IDLE_CONSUMER);
    expect(after?.parked.find((p) => p.eventId === event.id)?.retryRequested).toBe(true);
  });

  it('retry over GraphQL; a malformed id is 400 and changes nothing', async () => {
    const event = fakeEvent();
    await parkEvent(t.started.app.db, IDLE_CONSUMER, event, new Error('again'), 3);
    const bad = await api(t.url, 'POST', `/api/operations/parked/${IDLE_CONSUMER}/not-a-uuid/retry`, {
      token: tokens.ADMIN,
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'VALIDATION' });
    // A NUL byte in the consumer's name reached Postgres and answered 500 (found by the fuzz test).
    const nul = await api(t.url, 'POST', `/api/operations/parked/%00/${event.id}/retry`, {
      token: tokens.ADMIN,
    });
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ success: false, code: 'VALIDATION' });
    const nulGql = await gql(
      t.url,
      'mutation($c: String!, $e: String!) { retryParkedEvent(consumer: $c, eventId: $e) }',
      { c: '\u0000', e: event.id },
      tokens.ADMIN,
    );
    expect(nulGql.errors?.[0]?.extensions?.code).toBe('VALIDATION');
    const r = await gql(
      t.url,
      `mutation { retryParkedEvent(consumer: "${IDLE_CONSUMER}", eventId: "${event.id}") }`,
      {},
      tokens.ADMIN,
    );
    expect(r.data).toEqual({ retryParkedEvent: true });
    const after = (await overview()).consumers.find((c) => c.name === IDLE_CONSUMER);
    expect(after?.parked.find((p) => p.eventId === event.id)?.retryRequested).toBe(true);
  });

  it('lists every projection with its checkpoint and lag, and counts parked events in the detailed health', async () => {
    const data = await overview();
    for (const name of ['users', 'activity']) {
      const c = data.consumers.find((x) => x.name === name);
      expect(c?.kind, name).toBe('projection');
      expect(c?.checkpoint, name).toEqual(expect.any(String));
      expect(c?.lagSeconds, name).toEqual(expect.any(Number));
    }
    const health = await api(t.url, 'GET', '/api/health/detailed', { token: tokens.ADMIN });
    expect(health.body.data.parkedEvents).toBeGreaterThanOrEqual(1);
    expect(health.body.data).toHaveProperty('logHolder');
    expect(health.body.data.database.status).toBe('connected');
  });
});

describe('dismissing a parked event', () => {
  const dismiss = (eventId: string, body: unknown, token: string | null = tokens.ADMIN) =>
    api(t.url, 'POST', `/api/operations/parked/${IDLE_CONSUMER}/${eventId}/dismiss`, { token, body });
  const parkedCount = async () =>
    (await api(t.url, 'GET', '/api/health/detailed', { token: tokens.ADMIN })).body.data
      .parkedEvents as number;

  it('ADMIN only, with a reason; the event leaves the parked count but stays listed on record', async () => {
    const event = fakeEvent();
    await parkEvent(t.started.app.db, IDLE_CONSUMER, event, new Error('cannot apply'), 3);
    const before = await parkedCount();
    expect((await dismiss(event.id, { reason: 'x' }, null)).status).toBe(401);
    for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
      const r = await dismiss(event.id, { reason: 'Known bad data' }, tokens[role]);
      expect(r.status, role).toBe(403);
      expect(r.body, role).toMatchObject({ success: false, code: 'FORBIDDEN' });
    }
    for (const body of [undefined, {}, { reason: '' }, { reason: '  \u200B\u200B ' }]) {
      const r = await dismiss(event.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.errors?.[0]).toMatchObject({ field: 'reason' });
    }
    expect(await parkedCount()).toBe(before);

    const r = await dismiss(event.id, { reason: 'Test data from the old import; nothing to apply' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      data: {
        consumer: IDLE_CONSUMER,
        eventId: event.id,
        reason: 'Test data from the old import; nothing to apply',
      },
      message: expect.stringMatching(/dismissed/),
    });
    expect(await parkedCount()).toBe(before - 1);
    const consumer = (await overview()).consumers.find((c) => c.name === IDLE_CONSUMER) as any;
    expect(consumer.parked.map((p: any) => p.eventId)).not.toContain(event.id);
    expect(consumer.dismissed).toEqual([
      expect.objectContaining({
        eventId: event.id,
        eventType: 'UserProfileUpdated',
        error: 'cannot apply',
        reason: 'Test data from the old import; nothing to apply',
        dismissedBy: { id: expect.any(Number), name: 'System Administrator' },
        dismissedAt: expect.any(String),
      }),
    ]);

    // On record: not dismissed twice, not retried.
    const again = await dismiss(event.id, { reason: 'again' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'CONFLICT' });
    const retry = await api(t.url, 'POST', `/api/operations/parked/${IDLE_CONSUMER}/${event.id}/retry`, {
      token: tokens.ADMIN,
    });
    expect(retry.status).toBe(409);
    expect(retry.body.message ?? retry.body.error).toMatch(/dismissed/);
    expect((await dismiss(randomUUID(), { reason: 'nothing there' })).status).toBe(404);
  });

  it('over GraphQL alike: ADMIN only, reason required, listed as dismissed', async () => {
    const event = fakeEvent();
    await parkEvent(t.started.app.db, IDLE_CONSUMER, event, new Error('no handler'), 1);
    const mutation =
      'mutation($c: String!, $e: String!, $r: String!) { dismissParkedEvent(consumer: $c, eventId: $e, reason: $r) }';
    const vars = { c: IDLE_CONSUMER, e: event.id, r: 'Duplicate of an applied event' };
    expect((await gql(t.url, mutation, vars)).errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    for (const role of ['MODERATOR', 'USER', 'GUEST'] as const)
      expect((await gql(t.url, mutation, vars, tokens[role])).errors?.[0].extensions?.code, role).toBe(
        'FORBIDDEN',
      );
    const blank = await gql(t.url, mutation, { ...vars, r: '\u200B' }, tokens.ADMIN);
    expect(blank.errors?.[0].extensions?.code).toBe('VALIDATION');
    const r = await gql(t.url, mutation, vars, tokens.ADMIN);
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ dismissParkedEvent: true });
    const q = await gql(
      t.url,
      '{ operations { consumers { name parked { eventId } dismissed { eventId reason dismissedBy { name } } } } }',
      {},
      tokens.ADMIN,
    );
    const c = q.data.operations.consumers.find((x: any) => x.name === IDLE_CONSUMER);
    expect(c.parked.map((p: any) => p.eventId)).not.toContain(event.id);
    expect(c.dismissed).toContainEqual({
      eventId: event.id,
      reason: 'Duplicate of an applied event',
      dismissedBy: { name: 'System Administrator' },
    });
  });
});

it('names an append left open as the transaction holding back the log, on the page and in health', async () => {
  const appender = new pg.Client({ connectionString: t.env.DATABASE_URL });
  await appender.connect();
  try {
    await appender.query('BEGIN');
    // What an append does first: its stream's lock, then a write (which gives it a transaction id).
    await appender.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [APPEND_LOCK_CLASS, 'user-open']);
    await appender.query('SELECT pg_current_xact_id()');
    const pid = (await appender.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const holder = (await overview()).logHolder as { pid: number; ageSeconds: number; query: string } | null;
    expect(holder).toMatchObject({ pid, ageSeconds: expect.any(Number), state: 'idle in transaction' });
    expect(holder?.query.length).toBeLessThanOrEqual(200);
    const health = await api(t.url, 'GET', '/api/health/detailed', { token: tokens.ADMIN });
    expect(health.body.data.logHolder).toMatchObject({ pid });
    // The GraphQL health says the same (the dashboard's card reads it there).
    const viaGraphql = await gql(
      t.url,
      '{ systemHealth { parkedEvents logHolder { pid ageSeconds state } } }',
      {},
      tokens.ADMIN,
    );
    expect(viaGraphql.data.systemHealth.logHolder).toMatchObject({ pid, state: 'idle in transaction' });
    expect(viaGraphql.data.systemHealth.parkedEvents).toEqual(expect.any(Number));
    await appender.query('ROLLBACK');
    expect((await overview()).logHolder).toBeNull();
  } finally {
    await appender.end();
  }
});

it('answers quickly while Redis is down, with the queues marked unavailable', async () => {
  const redis = await startScratchRedis();
  const own = await startTestApp({ env: { REDIS_URL: redis.url } });
  try {
    const token = (await signIn(own.url, own.admin.email, own.admin.password)).tokens.accessToken;
    const before = await api(own.url, 'GET', '/api/operations', { token });
    expect(before.body.data.redis).toBe('up');
    await redis.stop();
    const started = Date.now();
    const r = await api(own.url, 'GET', '/api/operations', { token });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(r.status).toBe(200);
    expect(r.body.data.redis).toBe('down');
    expect(r.body.data.queues.every((q: any) => q.available === false && q.counts === null)).toBe(true);
    // The read models still show.
    expect(r.body.data.consumers.some((c: any) => c.name === 'users' && c.checkpoint)).toBe(true);
    await redis.start(); // so that stopping the app can clean its keys
  } finally {
    await own.stop().catch(() => {});
    await redis.close();
  }
}, 60_000);
