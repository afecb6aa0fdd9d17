// An Idempotency-Key gives a request deterministic command ids, so a retry that re-runs (its first
// answer was never stored: the process died after the append) appends nothing twice; every event of
// one request carries its correlation id, across streams; malformed headers are a 400. Replaying the
// stored first answer is tested in idempotency.int.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import type { StoredEvent } from '../eventstore/port.js';
import { claimStreamOf } from '../users/auth.js';

let t: TestApp;
let adminToken: string;

async function createUser(email: string, token = adminToken) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: 'long-enough-1', role: 'ADMIN' },
    token,
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: number; email: string };
}

const streamOf = async (id: string) => (await t.started.app.store.readStream(id)).events;
const profileUpdates = async (userId: number) =>
  (await streamOf(`user-${userId}`)).filter((e) => e.type === 'UserProfileUpdated');
const lastNameOf = async (userId: number) =>
  (await api(t.url, 'GET', `/api/user/users/${userId}`, { token: adminToken })).body.data.lastName;

beforeAll(async () => {
  t = await startTestApp();
  adminToken = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t.stop();
});

describe('Idempotency-Key', () => {
  // As if the process died between the append and storing the answer: no answer to replay.
  const forgetAnswer = (key: string) =>
    t.started.app.pool.query('DELETE FROM idempotency_keys WHERE key = $1', [key]);

  it('a retried REST request that re-runs appends nothing the second time, even after a later change', async () => {
    const u = await createUser('retry-rest@ctx.test');
    const send = (lastName: string, key?: string) =>
      api(t.url, 'PUT', `/api/user/users/${u.id}`, {
        body: { lastName },
        token: adminToken,
        headers: key ? { 'idempotency-key': key } : {},
      });
    expect((await send('First', 'edit-1')).status).toBe(200);
    await forgetAnswer('edit-1');
    expect((await send('Later')).status).toBe(200);
    // The first request's answer was lost; the client sends it again with the same key.
    const retried = await send('First', 'edit-1');
    expect(retried.status).toBe(200);
    expect(retried.body.data.lastName).toBe('Later');
    expect(await lastNameOf(u.id)).toBe('Later');
    expect((await profileUpdates(u.id)).map((e) => (e.data as { lastName?: string }).lastName)).toEqual([
      'First',
      'Later',
    ]);
    // A new key is a new request.
    expect((await send('First', 'edit-2')).status).toBe(200);
    expect(await lastNameOf(u.id)).toBe('First');
  });

  it('a retried GraphQL mutation that re-runs appends nothing the second time', async () => {
    const u = await createUser('retry-gql@ctx.test');
    const mutate = (lastName: string, key: string) =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${adminToken}`,
          'idempotency-key': key,
        },
        body: JSON.stringify({
          query: 'mutation($id:Int!,$input:UpdateUserInput!){ updateUser(id:$id, input:$input){ lastName } }',
          variables: { id: u.id, input: { lastName } },
        }),
      }).then((r) => r.json());
    await mutate('Once', 'gql-1');
    await forgetAnswer('gql-1');
    await api(t.url, 'PUT', `/api/user/users/${u.id}`, { body: { lastName: 'Twice' }, token: adminToken });
    const again = await mutate('Once', 'gql-1');
    expect(again.data.updateUser.lastName).toBe('Twice');
    expect(await profileUpdates(u.id)).toHaveLength(2);
  });

  it('is scoped to the caller: another user with the same key is another request', async () => {
    const target = await createUser('shared-key-target@ctx.test');
    const other = await createUser('second-admin@ctx.test');
    const otherToken = (await signIn(t.url, other.email, 'long-enough-1')).tokens.accessToken;
    for (const [token, lastName] of [
      [adminToken, 'ByFirst'],
      [otherToken, 'BySecond'],
    ]) {
      const r = await api(t.url, 'PUT', `/api/user/users/${target.id}`, {
        body: { lastName },
        token,
        headers: { 'idempotency-key': 'same-key' },
      });
      expect(r.status).toBe(200);
    }
    expect(await lastNameOf(target.id)).toBe('BySecond');
  });

  it('refuses a malformed key with a 400 in the envelope, and changes nothing', async () => {
    const u = await createUser('bad-key@ctx.test');
    const r = await api(t.url, 'PUT', `/api/user/users/${u.id}`, {
      body: { lastName: 'Never' },
      token: adminToken,
      headers: { 'idempotency-key': 'has spaces and ü' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'VALIDATION' });
    expect(r.body.error).toMatch(/^Idempotency-Key must be/);
    expect(await profileUpdates(u.id)).toEqual([]);
  });

  it('ignores a key on a GET, even a malformed one', async () => {
    const r = await api(t.url, 'GET', '/api/user/users?limit=1', {
      token: adminToken,
      headers: { 'idempotency-key': 'has spaces and ü' },
    });
    expect(r.status).toBe(200);
  });
});

describe('correlation id', () => {
  it('ties together every event of one request, across streams, and is echoed back', async () => {
    const u = await createUser('before-move@ctx.test');
    const res = await fetch(`${t.url}/api/user/users/${u.id}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${adminToken}`,
        'x-correlation-id': 'audit-move-42',
      },
      body: JSON.stringify({ email: 'after-move@ctx.test', role: 'MODERATOR' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-correlation-id')).toBe('audit-move-42');
    const correlated = async (): Promise<StoredEvent[]> =>
      [
        ...(await streamOf(claimStreamOf(t.started.app, 'after-move@ctx.test'))),
        ...(await streamOf(`user-${u.id}`)),
        ...(await streamOf(claimStreamOf(t.started.app, 'before-move@ctx.test'))),
      ].filter((e) => e.metadata.correlationId === 'audit-move-42');
    // The old address may be released after the answer (by a process manager): it keeps the id.
    await expect.poll(async () => (await correlated()).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    const events = await correlated();
    expect(events.map((e) => e.type).sort()).toEqual([
      'UserEmailClaimed',
      'UserEmailReleased',
      'UserProfileUpdated',
      'UserRoleChanged',
    ]);
    // Each command keeps its own id; the request's id is what they share.
    expect(new Set(events.map((e) => e.metadata.commandId)).size).toBe(4);
  });

  it('is generated when the client sends none', async () => {
    const u = await createUser('no-header@ctx.test');
    const res = await fetch(`${t.url}/api/user/users/${u.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ lastName: 'Generated' }),
    });
    const id = res.headers.get('x-correlation-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [update] = await profileUpdates(u.id);
    expect(update.metadata.correlationId).toBe(id);
  });
});
