// Idempotency-Key as payment APIs use it: a retry with the same key gets the first answer again
// (status and body, a create included), a retry with another body is refused with 422, concurrent
// duplicates do not both run, keys are per caller, and the same holds for mutations over graphql-ws.
// The stored answers are encrypted and purged after 24 h.
import { randomBytes, randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { MAINTENANCE_QUEUE } from '../../workers/maintenance.js';
import { redisOptions } from '../shared/redis.js';
import { IdempotencyStore } from './idempotency.js';

let t: TestApp;
let adminToken: string;

const streamOf = async (id: string) => (await t.started.app.store.readStream(id)).events;
const profileUpdates = async (userId: number) =>
  (await streamOf(`user-${userId}`)).filter((e) => e.type === 'UserProfileUpdated');
const usersWithEmail = async (email: string) => {
  const list = await api(t.url, 'GET', '/api/user/users?limit=100', { token: adminToken });
  return list.body.data.data.filter((u: { email: string }) => u.email === email);
};
const rows = async () =>
  (await t.started.app.pool.query('SELECT caller, key, fingerprint, status, body FROM idempotency_keys'))
    .rows;

async function createUser(email: string, token = adminToken) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: 'long-enough-1', role: 'ADMIN' },
    token,
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: number; email: string };
}

function register(email: string, key: string, token = adminToken) {
  return api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: 'long-enough-1', firstName: 'Ida' },
    token,
    headers: { 'idempotency-key': key },
  });
}

function updateUser(id: number, body: unknown, key?: string, token = adminToken) {
  return api(t.url, 'PUT', `/api/user/users/${id}`, {
    body,
    token,
    headers: key ? { 'idempotency-key': key } : {},
  });
}

const UPDATE_MUTATION =
  'mutation($id:Int!,$input:UpdateUserInput!){ updateUser(id:$id, input:$input){ id lastName } }';

async function gqlPost(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), json: await res.json() };
}

beforeAll(async () => {
  t = await startTestApp();
  adminToken = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
});

describe('REST', () => {
  it('a retried create gets the first answer, status and body, and makes one user', async () => {
    const first = await register('retried-create@idem.test', 'create-1');
    expect(first.status).toBe(201);
    const retried = await register('retried-create@idem.test', 'create-1');
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(first.body);
    expect(await usersWithEmail('retried-create@idem.test')).toHaveLength(1);
    expect(
      (await streamOf(`user-${first.body.data.id}`)).filter((e) => e.type === 'UserRegistered'),
    ).toHaveLength(1);
  });

  it('a retried update gets the first answer even after a later change, and appends one event', async () => {
    const u = await createUser('retried-update@idem.test');
    const first = await updateUser(u.id, { lastName: 'First' }, 'edit-1');
    expect(first.status).toBe(200);
    expect((await updateUser(u.id, { lastName: 'Later' })).status).toBe(200);
    const res = await fetch(`${t.url}/api/user/users/${u.id}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${adminToken}`,
        'idempotency-key': 'edit-1',
      },
      body: JSON.stringify({ lastName: 'First' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(res.headers.get('x-correlation-id')).toBeTruthy();
    expect(await res.json()).toEqual(first.body);
    // The retry changed nothing: the later change stands, and 'First' was applied once.
    const updates = await profileUpdates(u.id);
    expect(updates.map((e) => (e.data as { lastName?: string }).lastName)).toEqual(['First', 'Later']);
  });

  it('a retry with another body, method or path is refused with 422 and changes nothing', async () => {
    const u = await createUser('mismatch@idem.test');
    const other = await createUser('mismatch-other@idem.test');
    expect((await updateUser(u.id, { lastName: 'Kept' }, 'edit-m')).status).toBe(200);
    const differentBody = await updateUser(u.id, { lastName: 'Changed' }, 'edit-m');
    expect(differentBody.status).toBe(422);
    expect(differentBody.body).toMatchObject({ success: false, code: 'IDEMPOTENCY_MISMATCH' });
    expect(differentBody.body.message).toMatch(/already used with a different request/);
    const differentPath = await updateUser(other.id, { lastName: 'Kept' }, 'edit-m');
    expect(differentPath.status).toBe(422);
    expect(await profileUpdates(u.id)).toHaveLength(1);
    expect(await profileUpdates(other.id)).toHaveLength(0);
    // The same body in another key order is the same request.
    const reordered = await updateUser(u.id, { lastName: 'Kept' }, 'edit-m');
    expect(reordered.status).toBe(200);
  });

  it('stores a 4xx validation answer and replays it', async () => {
    const u = await createUser('invalid-edit@idem.test');
    const first = await updateUser(u.id, { email: 'not-an-address' }, 'bad-edit');
    expect(first.status).toBe(400);
    const res = await fetch(`${t.url}/api/user/users/${u.id}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${adminToken}`,
        'idempotency-key': 'bad-edit',
      },
      body: JSON.stringify({ email: 'not-an-address' }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(await res.json()).toEqual(first.body);
  });

  it('does not store an answer that asks for a retry (409): the key is given back', async () => {
    await createUser('taken@idem.test');
    const refused = await register('taken@idem.test', 'conflict-1');
    expect(refused.status).toBe(409);
    expect(
      await t.started.app.pool.query("SELECT 1 FROM idempotency_keys WHERE key = 'conflict-1'"),
    ).toMatchObject({
      rowCount: 0,
    });
    const again = await fetch(`${t.url}/api/auth/register`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${adminToken}`,
        'idempotency-key': 'conflict-1',
      },
      body: JSON.stringify({ email: 'taken@idem.test', password: 'long-enough-1', firstName: 'Ida' }),
    });
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('runs one of several concurrent duplicates; the others are told it is in flight or get its answer', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => register('concurrent@idem.test', 'concurrent-1')),
    );
    const created = answers.filter((a) => a.status === 201);
    const inFlight = answers.filter((a) => a.status === 409);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.length + inFlight.length).toBe(answers.length);
    for (const a of created) expect(a.body).toEqual(created[0].body);
    for (const a of inFlight) {
      expect(a.body).toMatchObject({ success: false, code: 'CONFLICT' });
      expect(a.body.message).toBe('A request with this Idempotency-Key is still being processed');
    }
    expect(await usersWithEmail('concurrent@idem.test')).toHaveLength(1);
  });

  it('keys are per caller: another user with the same key is another request', async () => {
    const second = await createUser('second-admin@idem.test');
    const secondToken = (await signIn(t.url, second.email, 'long-enough-1')).tokens.accessToken;
    const target = await createUser('shared-target@idem.test');
    const byFirst = await updateUser(target.id, { lastName: 'ByFirst' }, 'shared-key');
    // Same key, another body: not a mismatch, because it is not the same caller's key.
    const bySecond = await updateUser(target.id, { lastName: 'BySecond' }, 'shared-key', secondToken);
    expect(byFirst.status).toBe(200);
    expect(bySecond.status).toBe(200);
    expect(bySecond.body.data.lastName).toBe('BySecond');
    // A create with a key the first caller used for another create runs too, with its own body.
    expect((await register('by-first@idem.test', 'shared-create')).status).toBe(201);
    const created = await register('by-second@idem.test', 'shared-create', secondToken);
    expect(created.status).toBe(201);
    expect(created.body.data.email).toBe('by-second@idem.test');
    expect(await usersWithEmail('by-second@idem.test')).toHaveLength(1);
    // Two callers, two commands: each appended its event.
    const updates = await profileUpdates(target.id);
    expect(new Set(updates.map((e) => e.metadata.userId))).toEqual(new Set([String(1), String(second.id)]));
  });

  it('ignores a key on a GET and on a sign-in, and stores nothing for them', async () => {
    const before = (await rows()).length;
    const get = await fetch(`${t.url}/api/user/users?limit=1`, {
      headers: { authorization: `Bearer ${adminToken}`, 'idempotency-key': 'not a valid key on a GET' },
    });
    expect(get.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const login = await fetch(`${t.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'sign-in-1' },
        body: JSON.stringify({ email: t.admin.email, password: t.admin.password }),
      });
      expect(login.status).toBe(200);
      expect(login.headers.get('idempotent-replayed')).toBeNull();
    }
    expect((await rows()).length).toBe(before);
  });

  it('keeps the answer encrypted: the table holds neither the e-mail nor the password', async () => {
    const email = 'secret-person@idem.test';
    expect((await register(email, 'private-1')).status).toBe(201);
    const { rows: stored } = await t.started.app.pool.query(
      'SELECT caller, key, fingerprint, status, body, created_at, completed_at FROM idempotency_keys WHERE key = $1',
      ['private-1'],
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ caller: 'user:1', status: 201 });
    expect(stored[0].completed_at).not.toBeNull();
    const everything = JSON.stringify(stored[0]) + Buffer.from(stored[0].body).toString('latin1');
    expect(everything).not.toContain(email);
    expect(everything).not.toContain('secret-person');
    expect(everything).not.toContain('long-enough-1');
  });
});

describe('GraphQL over HTTP', () => {
  it('replays a mutation retried with the key in the header or in extensions', async () => {
    const u = await createUser('gql-http@idem.test');
    const body = (lastName: string) => ({
      query: UPDATE_MUTATION,
      variables: { id: u.id, input: { lastName } },
    });
    const viaHeader = await gqlPost(body('Header'), { 'idempotency-key': 'gql-header' });
    expect(viaHeader.json.data.updateUser.lastName).toBe('Header');
    const viaExtensions = await gqlPost({ ...body('Ext'), extensions: { idempotencyKey: 'gql-ext' } });
    expect(viaExtensions.json.data.updateUser.lastName).toBe('Ext');
    await updateUser(u.id, { lastName: 'Later' });

    const againHeader = await gqlPost(body('Header'), { 'idempotency-key': 'gql-header' });
    expect(againHeader.replayed).toBe('true');
    expect(againHeader.json).toEqual(viaHeader.json);
    const againExt = await gqlPost({ ...body('Ext'), extensions: { idempotencyKey: 'gql-ext' } });
    expect(againExt.json).toEqual(viaExtensions.json);
    expect(await profileUpdates(u.id)).toHaveLength(3);

    const mismatch = await gqlPost({ ...body('Other'), extensions: { idempotencyKey: 'gql-ext' } });
    expect(mismatch.status).toBe(422);
    expect(mismatch.json.errors[0].extensions.code).toBe('IDEMPOTENCY_MISMATCH');
    expect(await profileUpdates(u.id)).toHaveLength(3);
  });

  it('refuses a malformed key in extensions with a 400, and changes nothing', async () => {
    const u = await createUser('gql-bad-key@idem.test');
    const r = await gqlPost({
      query: UPDATE_MUTATION,
      variables: { id: u.id, input: { lastName: 'Never' } },
      extensions: { idempotencyKey: 'has spaces' },
    });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ extensions: { code: 'VALIDATION' } });
    expect(r.json.errors[0].message).toMatch(/^extensions.idempotencyKey must be/);
    expect(await profileUpdates(u.id)).toHaveLength(0);
  });

  it('ignores a key on a query', async () => {
    const before = (await rows()).length;
    const r = await gqlPost({ query: '{ me { id } }', extensions: { idempotencyKey: 'a-query' } });
    expect(r.json.data.me.id).toBeDefined();
    expect((await rows()).length).toBe(before);
  });
});

describe('graphql-ws', () => {
  let client: Client;
  beforeAll(() => {
    client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { token: adminToken },
      retryAttempts: 0,
    });
  });
  afterAll(async () => {
    await client?.dispose();
  });

  const run = (payload: {
    query: string;
    variables?: Record<string, unknown>;
    extensions?: Record<string, unknown>;
  }) =>
    new Promise<any>((resolve, reject) => {
      let result: unknown;
      client.subscribe(payload, {
        next: (v) => {
          result = v;
        },
        error: reject,
        complete: () => resolve(result),
      });
    });

  it('a mutation retried with the same key in extensions gets the same result and appends one event', async () => {
    const u = await createUser('ws-retry@idem.test');
    const payload = {
      query: UPDATE_MUTATION,
      variables: { id: u.id, input: { lastName: 'OverSocket' } },
      extensions: { idempotencyKey: 'ws-1' },
    };
    const first = await run(payload);
    expect(first.data.updateUser.lastName).toBe('OverSocket');
    await updateUser(u.id, { lastName: 'Later' });
    const again = await run(payload);
    expect(again).toEqual(first);
    const updates = await profileUpdates(u.id);
    expect(updates.map((e) => (e.data as { lastName?: string }).lastName)).toEqual(['OverSocket', 'Later']);

    const mismatch = await run({ ...payload, variables: { id: u.id, input: { lastName: 'Other' } } });
    expect(mismatch.errors[0].extensions.code).toBe('IDEMPOTENCY_MISMATCH');
    expect(await profileUpdates(u.id)).toHaveLength(2);
    // Sent over HTTP instead, the same request gets the same answer.
    const overHttp = await gqlPost(payload);
    expect(overHttp.json).toEqual(first);
  });

  it('refuses a malformed key in extensions', async () => {
    await expect(
      run({
        query: UPDATE_MUTATION,
        variables: { id: 1, input: { lastName: 'x' } },
        extensions: { idempotencyKey: 'bad key' },
      }),
    ).rejects.toSatisfy((errors: unknown) =>
      JSON.stringify(errors).includes('extensions.idempotencyKey must be'),
    );
  });
});

describe('the store', () => {
  const fresh = () =>
    new IdempotencyStore(t.started.app.pool, t.started.app.config.ENCRYPTION_KEY, t.started.app.log, {
      abandonAfterMs: 200,
    });

  it('lets a retry take over a claim abandoned by a process that died, and gives back a released key', async () => {
    const store = fresh();
    const key = `abandoned-${randomUUID()}`;
    const fp = store.fingerprint('POST', '/x', { a: 1 });
    expect((await store.claim('user:9', key, fp)).outcome).toBe('run');
    expect((await store.claim('user:9', key, fp)).outcome).toBe('in-flight');
    expect((await store.claim('user:9', key, store.fingerprint('POST', '/x', { a: 2 }))).outcome).toBe(
      'mismatch',
    );
    await new Promise((r) => setTimeout(r, 400));
    const takeover = await store.claim('user:9', key, fp);
    expect(takeover.outcome).toBe('run');
    if (takeover.outcome !== 'run') return;
    // A 5xx is not stored: the key is released and the next retry runs.
    await store.release('user:9', key, takeover.runId);
    expect((await store.claim('user:9', key, fp)).outcome).toBe('run');
  });

  it('runs a request again when its stored answer cannot be decrypted (rotated ENCRYPTION_KEY)', async () => {
    const store = fresh();
    const rotated = new IdempotencyStore(
      t.started.app.pool,
      randomBytes(32).toString('base64'),
      t.started.app.log,
    );
    const key = `rotated-${randomUUID()}`;
    const fp = store.fingerprint('POST', '/x', {});
    const claim = await store.claim('user:9', key, fp);
    if (claim.outcome !== 'run') throw new Error('expected a claim');
    await store.complete('user:9', key, claim.runId, 200, 'application/json', '{}');
    // Same secret for the HMAC would be needed for the same fingerprint: use the rotated store's own.
    await t.started.app.pool.query('UPDATE idempotency_keys SET fingerprint = $1 WHERE key = $2', [
      rotated.fingerprint('POST', '/x', {}),
      key,
    ]);
    expect((await rotated.claim('user:9', key, rotated.fingerprint('POST', '/x', {}))).outcome).toBe('run');
  });

  it('forgets answers after 24 h, and the maintenance job purges them', async () => {
    const store = fresh();
    const key = `old-${randomUUID()}`;
    const fp = store.fingerprint('POST', '/x', {});
    const claim = await store.claim('user:9', key, fp);
    if (claim.outcome !== 'run') throw new Error('expected a claim');
    await store.complete('user:9', key, claim.runId, 200, 'application/json', '{"ok":true}');
    expect(await store.claim('user:9', key, fp)).toMatchObject({ outcome: 'replay', body: '{"ok":true}' });
    await t.started.app.pool.query(
      "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1",
      [key],
    );
    // Expired, not yet purged: the key is new again (even with another body).
    expect((await store.claim('user:9', key, store.fingerprint('POST', '/y', {}))).outcome).toBe('run');
    await t.started.app.pool.query(
      "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1",
      [key],
    );

    const { app } = t.started;
    const prefix = `${app.config.REDIS_PREFIX}:q`;
    const connection = redisOptions(app.config.REDIS_URL);
    const events = new QueueEvents(MAINTENANCE_QUEUE, { connection, prefix });
    await events.waitUntilReady();
    const { Queue } = await import('bullmq');
    const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
    try {
      expect((await queue.getJobSchedulers()).map((s) => s.key)).toContain('purge-idempotency-keys');
      const job = await queue.add('purge-idempotency-keys', {}, { jobId: `test-${randomUUID()}` });
      const result = await job.waitUntilFinished(events, 10_000);
      expect(result.purged).toBeGreaterThanOrEqual(1);
    } finally {
      await queue.close();
      await events.close();
    }
    const left = await app.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
    expect(left.rowCount).toBe(0);
  });
});
