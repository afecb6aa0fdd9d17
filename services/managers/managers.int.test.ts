// Managers over REST and GraphQL against a real gateway: the role matrix, the rules
// (one manager per user, only active users, the form's validation), and the log holds no plain
// personal data of a manager.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';

let t: TestApp;
const tokens = { ADMIN: '', MODERATOR: '', USER: '', GUEST: '' };
const PASSWORD = 'Passw0rd-123';
const users: Record<string, number> = {};

async function createUser(email: string, role = 'USER', extra: Record<string, unknown> = {}) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: PASSWORD, role, firstName: 'Lin', lastName: 'Ked', ...extra },
    token: tokens.ADMIN,
  });
  expect(r.status).toBe(201);
  return r.body.data.id as number;
}

const manager = (over: Record<string, unknown> = {}) => ({
  firstName: 'Mia',
  lastName: 'Ross',
  email: 'Mia.Ross@Example.com',
  phone: '555-0100',
  title: 'Controller',
  ...over,
});

async function create(body: unknown) {
  return api(t.url, 'POST', '/api/manager/managers', { body, token: tokens.ADMIN });
}

beforeAll(async () => {
  t = await startTestApp();
  tokens.ADMIN = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
    users[role] = await createUser(`${role.toLowerCase()}@managers.test`, role);
    tokens[role] = (await signIn(t.url, `${role.toLowerCase()}@managers.test`, PASSWORD)).tokens.accessToken;
  }
  users.free = await createUser('free@managers.test');
  users.other = await createUser('other@managers.test');
  users.inactive = await createUser('inactive@managers.test', 'USER', { isActive: false });
});
afterAll(async () => {
  await t?.stop();
});

describe('managers: create, read, update, link, unlink, search, delete', () => {
  it('creates a manager (trimmed, e-mail lower-cased, empty optional fields absent) and lists it', async () => {
    const r = await create(manager({ firstName: '  Mia ', phone: '', title: '' }));
    expect(r.status).toBe(201);
    expect(r.body.message).toBe('Manager created successfully');
    expect(r.body.data).toMatchObject({
      firstName: 'Mia',
      lastName: 'Ross',
      email: 'mia.ross@example.com',
      phone: null,
      title: null,
      status: 'ACTIVE',
      isActive: true,
      userId: null,
      user: null,
    });
    const list = await api(t.url, 'GET', '/api/manager/managers?page=1&limit=10', { token: tokens.ADMIN });
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { id: number }) => m.id)).toContain(r.body.data.id);
    expect(list.body.meta.pagination).toMatchObject({ page: 1, limit: 10 });
    expect(list.body.meta.pagination.total).toBeGreaterThanOrEqual(1);
  });

  it('refuses the form’s invalid input with its texts, and changes nothing', async () => {
    const before = await api(t.url, 'GET', '/api/manager/managers?limit=100', { token: tokens.ADMIN });
    const r = await create({ firstName: ' ', lastName: '', email: 'nope' });
    expect(r.status).toBe(400);
    const messages = Object.fromEntries(r.body.errors!.map((e) => [e.field, e.message]));
    expect(messages).toMatchObject({
      firstName: 'First name is required',
      lastName: 'Last name is required',
      email: 'Please enter a valid email address',
    });
    expect((await create(manager({ firstName: 'x\u202Ey' }))).status).toBe(400);
    expect((await create(manager({ title: 'x'.repeat(101) }))).status).toBe(400);
    const after = await api(t.url, 'GET', '/api/manager/managers?limit=100', { token: tokens.ADMIN });
    expect(after.body.meta.pagination.total).toBe(before.body.meta.pagination.total);
  });

  it('links a user at creation, shows the user, and refuses a second manager for that user', async () => {
    const r = await create(manager({ email: 'linked@example.com', userId: users.free }));
    expect(r.status).toBe(201);
    expect(r.body.data.userId).toBe(users.free);
    expect(r.body.data.user).toMatchObject({ id: users.free, email: 'free@managers.test', role: 'USER' });
    const again = await create(manager({ email: 'second@example.com', userId: users.free }));
    expect(again.status).toBe(409);
    expect(again.body.error ?? again.body.message).toMatch(/already linked to another manager/);
    const other = await create(manager({ email: 'third@example.com' }));
    const link = await api(t.url, 'PUT', `/api/manager/managers/${other.body.data.id}/link-user`, {
      body: { userId: users.free },
      token: tokens.ADMIN,
    });
    expect(link.status).toBe(409);
  });

  it('refuses to link an unknown or inactive user', async () => {
    const m = await create(manager({ email: 'refuse@example.com' }));
    const id = m.body.data.id;
    const unknown = await api(t.url, 'PUT', `/api/manager/managers/${id}/link-user`, {
      body: { userId: 999_999 },
      token: tokens.ADMIN,
    });
    expect(unknown.status).toBe(404);
    const inactive = await api(t.url, 'PUT', `/api/manager/managers/${id}/link-user`, {
      body: { userId: users.inactive },
      token: tokens.ADMIN,
    });
    expect(inactive.status).toBe(409);
    expect(
      (await api(t.url, 'GET', `/api/manager/managers/${id}`, { token: tokens.ADMIN })).body.data.userId,
    ).toBe(null);
  });

  it('links and unlinks through their calls, and an update without userId unlinks', async () => {
    const m = await create(manager({ email: 'cycle@example.com' }));
    const id = m.body.data.id;
    const linked = await api(t.url, 'PUT', `/api/manager/managers/${id}/link-user`, {
      body: { userId: users.other },
      token: tokens.ADMIN,
    });
    expect(linked.status).toBe(200);
    expect(linked.body.data.user.id).toBe(users.other);
    const unlinked = await api(t.url, 'PUT', `/api/manager/managers/${id}/unlink-user`, {
      token: tokens.ADMIN,
    });
    expect(unlinked.status).toBe(200);
    expect(unlinked.body.message).toBe('User unlinked successfully');
    expect(unlinked.body.data.userId).toBeNull();
    // Relink, then edit the form with 'none' (absent userId): unlinked, and the details changed.
    await api(t.url, 'PUT', `/api/manager/managers/${id}/link-user`, {
      body: { userId: users.other },
      token: tokens.ADMIN,
    });
    const updated = await api(t.url, 'PUT', `/api/manager/managers/${id}`, {
      body: manager({ email: 'cycle@example.com', title: 'CFO', phone: '' }),
      token: tokens.ADMIN,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.message).toBe('Manager updated successfully');
    expect(updated.body.data).toMatchObject({ title: 'CFO', phone: null, userId: null });
  });

  it('searches by name and e-mail, and treats wildcards as text', async () => {
    await create(manager({ firstName: 'Zed', lastName: 'Quill', email: 'zq@example.com' }));
    const byName = await api(t.url, 'GET', '/api/manager/managers/search?q=zed%20qu', {
      token: tokens.ADMIN,
    });
    expect(byName.status).toBe(200);
    expect(byName.body.data.map((m: { email: string }) => m.email)).toEqual(['zq@example.com']);
    const byMail = await api(t.url, 'GET', '/api/manager/managers/search?q=ZQ@', { token: tokens.ADMIN });
    expect(byMail.body.data).toHaveLength(1);
    const wildcard = await api(t.url, 'GET', '/api/manager/managers/search?q=%25', { token: tokens.ADMIN });
    expect(wildcard.body.data).toEqual([]);
  });

  it('deletes a manager: gone from lists, its user free again, its history kept', async () => {
    const m = await create(manager({ email: 'gone@example.com', userId: users.MODERATOR }));
    const id = m.body.data.id;
    const del = await api(t.url, 'DELETE', `/api/manager/managers/${id}`, { token: tokens.ADMIN });
    expect(del.status).toBe(200);
    expect(del.body.message).toBe('Manager deleted successfully');
    expect((await api(t.url, 'GET', `/api/manager/managers/${id}`, { token: tokens.ADMIN })).status).toBe(
      404,
    );
    expect((await api(t.url, 'DELETE', `/api/manager/managers/${id}`, { token: tokens.ADMIN })).status).toBe(
      404,
    );
    const next = await create(manager({ email: 'next@example.com', userId: users.MODERATOR }));
    expect(next.status).toBe(201);
    const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
    try {
      const events = await pool.query(
        `SELECT event_type FROM es_events WHERE stream_id = $1 ORDER BY stream_version`,
        [`manager-${id}`],
      );
      expect(events.rows.map((r) => r.event_type)).toEqual(['ManagerCreated', 'ManagerDeleted']);
    } finally {
      await pool.end();
    }
  });

  it('keeps names, e-mail and phone out of the log in plain text', async () => {
    await create(manager({ firstName: 'Plainname', email: 'plain-check@example.com', phone: '555-0199' }));
    const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
    try {
      const r = await pool.query(`SELECT data::text AS d FROM es_events WHERE event_type LIKE 'Manager%'`);
      const all = r.rows.map((x) => x.d).join('\n');
      expect(all).not.toMatch(/Plainname|plain-check|555-0199/);
      expect(all).toMatch(/"pii"/);
    } finally {
      await pool.end();
    }
  });

  it('answers the same through GraphQL, live changes included', async () => {
    const created = await gql(
      t.url,
      'mutation($i: ManagerInput!) { createManager(input: $i) { id email user { id } } }',
      { i: manager({ email: 'gql@example.com', userId: null }) },
      tokens.ADMIN,
    );
    expect(created.errors).toBeUndefined();
    const id = created.data.createManager.id;
    const page = await gql(
      t.url,
      '{ managers(page: 1, limit: 5) { total data { id email } } }',
      {},
      tokens.ADMIN,
    );
    expect(page.data.managers.data.length).toBeLessThanOrEqual(5);
    const found = await gql(
      t.url,
      'query($q: String!) { searchManagers(q: $q) { id } }',
      { q: 'gql@' },
      tokens.ADMIN,
    );
    expect(found.data.searchManagers).toEqual([{ id }]);
    const refused = await gql(t.url, '{ managers { total } }', {}, tokens.MODERATOR);
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('role matrix: every Managers call, every role, and no token', () => {
  it('lets ADMIN through and refuses MODERATOR, USER, GUEST (403) and no token (401)', async () => {
    const m = await create(manager({ email: 'matrix@example.com' }));
    const id = m.body.data.id;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/api/manager/managers'],
      ['GET', `/api/manager/managers/${id}`],
      ['GET', '/api/manager/managers/search?q=mia'],
      ['POST', '/api/manager/managers', manager({ email: 'nobody@example.com' })],
      ['PUT', `/api/manager/managers/${id}`, manager({ email: 'matrix@example.com' })],
      ['PUT', `/api/manager/managers/${id}/link-user`, { userId: users.USER }],
      ['PUT', `/api/manager/managers/${id}/unlink-user`],
      ['DELETE', `/api/manager/managers/${id}`],
    ];
    for (const [method, path, body] of calls) {
      for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
        const r = await api(t.url, method, path, { body, token: tokens[role] });
        expect(r.status, `${role} ${method} ${path}`).toBe(403);
        expect(r.body.success).toBe(false);
      }
      expect((await api(t.url, method, path, { body })).status, `anonymous ${method} ${path}`).toBe(401);
    }
    // Nothing the refused calls tried happened.
    const still = await api(t.url, 'GET', `/api/manager/managers/${id}`, { token: tokens.ADMIN });
    expect(still.body.data.userId).toBeNull();
    for (const [method, path, body] of calls) {
      const r = await api(t.url, method, path, { body, token: tokens.ADMIN });
      expect(r.status, `ADMIN ${method} ${path}`).toBeLessThan(300);
    }
  });
});
