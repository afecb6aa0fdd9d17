// A subscription's caller is checked when the socket connects; these tests prove a later demotion or
// deactivation ends what the old role allowed: the socket is closed with 4403 and a reconnect is
// checked again with the current role.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { socketClient } from '../../test/support/socket.js';

let t: TestApp;
let adminToken: string;

beforeAll(async () => {
  t = await startTestApp();
  adminToken = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

async function userWithRole(email: string, role: string) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    token: adminToken,
    body: { email, password: 'Passw0rd-123', role },
  });
  expect(r.status).toBe(201);
  const session = await signIn(t.url, email, 'Passw0rd-123');
  return { id: r.body.data.id as number, token: session.tokens.accessToken };
}

/** A graphql-ws client that does not retry, recording close codes and userChanged messages. */
function watch(token: string) {
  const closes: number[] = [];
  const messages: unknown[] = [];
  const errors: unknown[] = [];
  const client = socketClient(t.url, token, {
    on: { closed: (e) => closes.push((e as { code: number }).code) },
  });
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  client.subscribe(
    { query: 'subscription { userChanged { id type } }' },
    { next: (v) => messages.push(v), error: (e) => errors.push(e), complete: () => {} },
  );
  return { client, closes, messages, errors, connected };
}

it('a demoted admin’s socket is closed with 4403, and as a USER her subscription is refused when it starts', async () => {
  const bea = await userWithRole('bea.live@access.test', 'ADMIN');
  const w = watch(bea.token);
  await w.connected;
  // Still an admin: changes arrive.
  await api(t.url, 'PUT', `/api/user/users/${bea.id}`, { token: adminToken, body: { firstName: 'Bea' } });
  await expect.poll(() => w.messages.length, { timeout: 10_000 }).toBeGreaterThan(0);

  const demoted = await api(t.url, 'PUT', `/api/user/users/${bea.id}/role`, {
    token: adminToken,
    body: { role: 'USER' },
  });
  expect(demoted.status).toBe(200);
  await expect.poll(() => w.closes, { timeout: 10_000 }).toContain(4403);
  await w.client.dispose();

  // Same token, new socket: the connection is allowed (she is still a user), but the subscription is
  // refused as it starts (before any change happens), and later changes push nothing to her.
  const again = watch(bea.token);
  await again.connected;
  await expect.poll(() => again.messages.length + again.errors.length, { timeout: 10_000 }).toBe(1);
  expect(JSON.stringify([...again.messages, ...again.errors])).toMatch(/Not authorized/);
  await api(t.url, 'PUT', `/api/user/users/${bea.id}`, { token: adminToken, body: { lastName: 'After' } });
  await new Promise((r) => setTimeout(r, 500));
  expect(again.messages.length + again.errors.length).toBe(1);
  await again.client.dispose();
});

it('a deactivated admin’s socket is closed and a new one is refused', async () => {
  const cal = await userWithRole('cal.live@access.test', 'ADMIN');
  const w = watch(cal.token);
  await w.connected;
  const off = await api(t.url, 'PUT', `/api/user/users/${cal.id}/deactivate`, { token: adminToken });
  expect(off.status).toBe(200);
  await expect.poll(() => w.closes, { timeout: 10_000 }).toContain(4403);
  await w.client.dispose();
  const again = watch(cal.token);
  await expect.poll(() => again.closes, { timeout: 10_000 }).toContain(4403);
  await again.client.dispose();
});

it('other changes to a user (a profile edit) leave their socket open', async () => {
  const dee = await userWithRole('dee.live@access.test', 'ADMIN');
  const w = watch(dee.token);
  await w.connected;
  await api(t.url, 'PUT', `/api/user/users/${dee.id}`, { token: adminToken, body: { lastName: 'Stays' } });
  await expect
    .poll(() => w.messages.some((m) => JSON.stringify(m).includes('UserProfileUpdated')), { timeout: 10_000 })
    .toBe(true);
  expect(w.closes).toEqual([]);
  await w.client.dispose();
});
