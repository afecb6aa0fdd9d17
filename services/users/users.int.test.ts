// Users and dashboard calls over REST and GraphQL against a real gateway: the role
// matrix, the rules the spec leaves to us, and figures that come from events.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';

let t: TestApp;
const tokens: Record<'ADMIN' | 'MODERATOR' | 'USER' | 'GUEST', string> = {
  ADMIN: '',
  MODERATOR: '',
  USER: '',
  GUEST: '',
};
let adminId: number;
const PASSWORD = 'Passw0rd-123';

async function createUser(email: string, role = 'USER', extra: Record<string, unknown> = {}) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: PASSWORD, role, ...extra },
    token: tokens.ADMIN,
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: number; email: string };
}

beforeAll(async () => {
  t = await startTestApp();
  const admin = await signIn(t.url, t.admin.email, t.admin.password);
  tokens.ADMIN = admin.tokens.accessToken;
  adminId = admin.user.id;
  for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
    await createUser(`${role.toLowerCase()}@matrix.test`, role);
    tokens[role] = (await signIn(t.url, `${role.toLowerCase()}@matrix.test`, PASSWORD)).tokens.accessToken;
  }
});
afterAll(async () => {
  await t?.stop();
});

describe('role matrix: every Users and Dashboard call, every role, and no token', () => {
  type Call = {
    method: string;
    path: (id: number) => string;
    body?: unknown;
    admin: number;
    others: number;
    self?: boolean;
  };
  // `admin` is the ADMIN's expected status; `others` that of MODERATOR, USER and GUEST.
  const calls: Call[] = [
    { method: 'GET', path: () => '/api/user/users?page=1&limit=10', admin: 200, others: 403 },
    { method: 'GET', path: (id) => `/api/user/users/${id}`, admin: 200, others: 403 },
    {
      method: 'PUT',
      path: (id) => `/api/user/users/${id}`,
      body: { firstName: 'Renamed' },
      admin: 200,
      others: 403,
    },
    { method: 'PUT', path: (id) => `/api/user/users/${id}/deactivate`, admin: 200, others: 403 },
    { method: 'PUT', path: (id) => `/api/user/users/${id}/reactivate`, admin: 200, others: 403 },
    {
      method: 'PUT',
      path: (id) => `/api/user/users/${id}/role`,
      body: { role: 'GUEST' },
      admin: 200,
      others: 403,
    },
    {
      method: 'PUT',
      path: (id) => `/api/user/users/${id}/change-password`,
      body: { newPassword: 'secret6' },
      admin: 200,
      others: 403,
    },
    {
      method: 'POST',
      path: () => '/api/auth/register',
      body: { email: 'matrix-new@matrix.test', password: PASSWORD },
      admin: 201,
      others: 403,
    },
    { method: 'DELETE', path: (id) => `/api/user/users/${id}`, admin: 200, others: 403 },
    { method: 'GET', path: () => '/api/user/profile', admin: 200, others: 200 },
    { method: 'PUT', path: () => '/api/user/profile', body: { lastName: 'Self' }, admin: 200, others: 200 },
    { method: 'GET', path: () => '/api/user/statistics', admin: 200, others: 200 },
    { method: 'GET', path: (id) => `/api/user/statistics?userId=${id}`, admin: 200, others: 403 },
    { method: 'GET', path: () => '/api/user/overview-stats', admin: 200, others: 403 },
    { method: 'GET', path: () => '/api/dashboard/stats', admin: 200, others: 403 },
    { method: 'GET', path: () => '/api/health/detailed', admin: 200, others: 403 },
    { method: 'GET', path: () => '/api/auth/me', admin: 200, others: 200 },
  ];

  for (const call of calls) {
    it(`${call.method} ${call.path(0).replace('/0', '/{id}').replace('=0', '={id}')}`, async () => {
      // A fresh target per call, so destructive calls do not interfere with each other.
      const target = await createUser(`target-${Math.random().toString(36).slice(2)}@matrix.test`);
      const path = call.path(target.id);
      const body =
        call.body && (call.body as any).email
          ? { ...(call.body as object), email: `n${Math.random().toString(36).slice(2)}@m.test` }
          : call.body;
      const anon = await api(t.url, call.method, path, { body });
      expect(anon.status, 'no token').toBe(401);
      for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
        const r = await api(t.url, call.method, path, { body, token: tokens[role] });
        expect(r.status, role).toBe(call.others);
        expect(r.body.success, role).toBe(call.others < 300);
      }
      const r = await api(t.url, call.method, path, { body, token: tokens.ADMIN });
      expect(r.status, `ADMIN: ${JSON.stringify(r.body)}`).toBe(call.admin);
    });
  }

  it('GraphQL refuses the same operations to non-admins', async () => {
    for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
      const r = await gql(t.url, '{ users { total } }', {}, tokens[role]);
      expect(r.errors?.[0].extensions?.code).toBe('FORBIDDEN');
      const d = await gql(t.url, '{ dashboardStats { activeUsers } }', {}, tokens[role]);
      expect(d.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    }
    const ok = await gql(
      t.url,
      '{ users(page:1, limit:2) { total totalPages data { email } } }',
      {},
      tokens.ADMIN,
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data.users.data).toHaveLength(2);
  });
});

describe('rules the spec leaves to us', () => {
  it('an admin cannot deactivate, delete or demote themself', async () => {
    const deactivate = await api(t.url, 'PUT', `/api/user/users/${adminId}/deactivate`, {
      token: tokens.ADMIN,
    });
    const remove = await api(t.url, 'DELETE', `/api/user/users/${adminId}`, { token: tokens.ADMIN });
    const demote = await api(t.url, 'PUT', `/api/user/users/${adminId}/role`, {
      body: { role: 'USER' },
      token: tokens.ADMIN,
    });
    expect([deactivate.status, remove.status, demote.status]).toEqual([403, 403, 403]);
    const me = await api(t.url, 'GET', '/api/auth/me', { token: tokens.ADMIN });
    expect(me.body.data).toMatchObject({ role: 'ADMIN', isActive: true });
  });

  it('the last active ADMIN cannot be demoted, deactivated or deleted by another admin', async () => {
    // A second admin exists; demote the first through the second, then the second is the last one.
    const second = await createUser('second-admin@matrix.test', 'ADMIN');
    const secondToken = (await signIn(t.url, second.email, PASSWORD)).tokens.accessToken;
    const third = await createUser('third-admin@matrix.test', 'ADMIN');
    // third demotes second: allowed (admin + third remain)
    const thirdToken = (await signIn(t.url, third.email, PASSWORD)).tokens.accessToken;
    expect(
      (
        await api(t.url, 'PUT', `/api/user/users/${second.id}/role`, {
          body: { role: 'USER' },
          token: thirdToken,
        })
      ).status,
    ).toBe(200);
    // deactivate third via admin: allowed (admin remains)
    expect(
      (await api(t.url, 'PUT', `/api/user/users/${third.id}/deactivate`, { token: tokens.ADMIN })).status,
    ).toBe(200);
    // now only the first admin is an active ADMIN; a re-promoted second tries to remove it
    expect(
      (
        await api(t.url, 'PUT', `/api/user/users/${second.id}/role`, {
          body: { role: 'ADMIN' },
          token: tokens.ADMIN,
        })
      ).status,
    ).toBe(200);
    expect(
      (await api(t.url, 'PUT', `/api/user/users/${adminId}/deactivate`, { token: secondToken })).status,
    ).toBe(200);
    // second is now the last active ADMIN: nobody can remove them (the deactivated first admin can't act)
    const r = await api(t.url, 'PUT', `/api/user/users/${second.id}/role`, {
      body: { role: 'USER' },
      token: secondToken,
    });
    expect(r.status).toBe(403); // self-demotion
    // restore the first admin for the remaining tests
    expect(
      (await api(t.url, 'PUT', `/api/user/users/${adminId}/reactivate`, { token: secondToken })).status,
    ).toBe(200);
    tokens.ADMIN = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
    // with two active admins, concurrently deactivating each other leaves exactly one active
    const [a, b] = await Promise.all([
      api(t.url, 'PUT', `/api/user/users/${second.id}/deactivate`, { token: tokens.ADMIN }),
      api(t.url, 'PUT', `/api/user/users/${adminId}/deactivate`, { token: secondToken }),
    ]);
    // One wins; the other is refused: 409 by the last-admin guard, or 401 if its caller was
    // already deactivated by the winner before its request was authenticated.
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([401, 409]).toContain(statuses[1]);
    const client = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await client.connect();
    const n = await client.query(
      "SELECT count(*)::int AS n FROM users WHERE role='ADMIN' AND is_active AND deleted_at IS NULL",
    );
    await client.end();
    expect(n.rows[0].n).toBe(1);
    // put things back: whichever survived reactivates the other
    const survivorToken = a.status === 200 ? tokens.ADMIN : secondToken;
    const other = a.status === 200 ? second.id : adminId;
    expect(
      (await api(t.url, 'PUT', `/api/user/users/${other}/reactivate`, { token: survivorToken })).status,
    ).toBe(200);
    tokens.ADMIN = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  });

  it('deactivating a user ends their sessions at once', async () => {
    const u = await createUser('session-end@matrix.test');
    const s = await signIn(t.url, u.email, PASSWORD);
    expect((await api(t.url, 'GET', '/api/auth/me', { token: s.tokens.accessToken })).status).toBe(200);
    expect(
      (await api(t.url, 'PUT', `/api/user/users/${u.id}/deactivate`, { token: tokens.ADMIN })).status,
    ).toBe(200);
    expect((await api(t.url, 'GET', '/api/auth/me', { token: s.tokens.accessToken })).status).toBe(401);
    expect(
      (await api(t.url, 'POST', '/api/auth/refresh', { body: { refreshToken: s.tokens.refreshToken } }))
        .status,
    ).toBe(401);
  });

  it("an admin's password reset signs the user's sessions out; their new sign-in works", async () => {
    const u = await createUser('reset-sessions@matrix.test');
    const s = await signIn(t.url, u.email, PASSWORD);
    expect(
      (
        await api(t.url, 'PUT', `/api/user/users/${u.id}/change-password`, {
          body: { newPassword: 'reset-by-admin' },
          token: tokens.ADMIN,
        })
      ).status,
    ).toBe(200);
    expect(
      (await api(t.url, 'POST', '/api/auth/refresh', { body: { refreshToken: s.tokens.refreshToken } }))
        .status,
    ).toBe(401);
    const fresh = await signIn(t.url, u.email, 'reset-by-admin');
    expect(
      (await api(t.url, 'POST', '/api/auth/refresh', { body: { refreshToken: fresh.tokens.refreshToken } }))
        .status,
    ).toBe(200);
  });

  it('deleting keeps the history and removes the user from lists; the address can be used again', async () => {
    const u = await createUser('to-delete@matrix.test');
    expect((await api(t.url, 'DELETE', `/api/user/users/${u.id}`, { token: tokens.ADMIN })).status).toBe(200);
    expect((await api(t.url, 'GET', `/api/user/users/${u.id}`, { token: tokens.ADMIN })).status).toBe(404);
    const list = await api(t.url, 'GET', '/api/user/users?limit=1000', { token: tokens.ADMIN });
    expect(list.body.data.data.map((x: any) => x.id)).not.toContain(u.id);
    const client = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await client.connect();
    const events = await client.query(
      'SELECT event_type FROM es_events WHERE stream_id = $1 ORDER BY stream_version',
      [`user-${u.id}`],
    );
    await client.end();
    expect(events.rows.map((r) => r.event_type)).toEqual(['UserRegistered', 'UserDeleted']);
    const again = await createUser('to-delete@matrix.test');
    expect(again.id).not.toBe(u.id);
  });

  it('keeps e-mails unique when an address is changed', async () => {
    const a = await createUser('unique-a@matrix.test');
    await createUser('unique-b@matrix.test');
    const r = await api(t.url, 'PUT', `/api/user/users/${a.id}`, {
      body: { email: 'UNIQUE-B@matrix.test' },
      token: tokens.ADMIN,
    });
    expect(r.status).toBe(409);
    const moved = await api(t.url, 'PUT', `/api/user/users/${a.id}`, {
      body: { email: 'unique-c@matrix.test' },
      token: tokens.ADMIN,
    });
    expect(moved.status).toBe(200);
    // the old address is free again
    await createUser('unique-a@matrix.test');
  });

  it('GraphQL updateUser changes one’s own e-mail only with the current password, as REST does', async () => {
    await createUser('self-mover@matrix.test', 'ADMIN');
    const session = await signIn(t.url, 'self-mover@matrix.test', PASSWORD);
    const token = session.tokens.accessToken;
    const change = (currentPassword?: string) =>
      gql(
        t.url,
        'mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { email } }',
        {
          id: session.user.id,
          input: { email: 'self-moved@matrix.test', ...(currentPassword ? { currentPassword } : {}) },
        },
        token,
      );
    const none = await change();
    expect(none.errors?.[0].extensions?.code).toBe('VALIDATION');
    expect(JSON.stringify(none.errors)).toContain('Current password is required');
    const wrong = await change('not-the-password');
    expect(wrong.errors?.[0].extensions?.code).toBe('VALIDATION');
    expect(JSON.stringify(wrong.errors)).toContain('Current password is incorrect');
    const me = await api(t.url, 'GET', '/api/auth/me', { token });
    expect(me.body.data.email).toBe('self-mover@matrix.test');
    const right = await change(PASSWORD);
    expect(right.errors).toBeUndefined();
    expect(right.data.updateUser.email).toBe('self-moved@matrix.test');
    await signIn(t.url, 'self-moved@matrix.test', PASSWORD);
    // Another ADMIN changing someone else's address needs no password (the rule is for one's own).
    const other = await createUser('other-mover@matrix.test');
    const byAdmin = await gql(
      t.url,
      'mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { email } }',
      { id: other.id, input: { email: 'other-moved@matrix.test' } },
      token,
    );
    expect(byAdmin.errors).toBeUndefined();
  });

  it('validates passwords: 6+ on admin change, with the spec’s message', async () => {
    const u = await createUser('pw-rule@matrix.test');
    const r = await api(t.url, 'PUT', `/api/user/users/${u.id}/change-password`, {
      body: { newPassword: '12345' },
      token: tokens.ADMIN,
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('Password must be at least 6 characters long');
    expect(
      (
        await api(t.url, 'PUT', `/api/user/users/${u.id}/change-password`, {
          body: { newPassword: 'k9-ok!' },
          token: tokens.ADMIN,
        })
      ).status,
    ).toBe(200);
    await signIn(t.url, u.email, 'k9-ok!');
  });

  it('answers 404 for unknown and malformed ids, including the literal "undefined"', async () => {
    for (const id of ['999999', 'undefined', 'abc', '-1']) {
      const r = await api(t.url, 'GET', `/api/user/users/${id}`, { token: tokens.ADMIN });
      expect(r.status, id).toBe(404);
      expect(r.body.error).toBe('User not found');
    }
    // Updates too: a plain profile edit (decided without a read-model lookup) and one with a role.
    for (const body of [{ lastName: 'Ghost' }, { lastName: 'Ghost', role: 'USER' }]) {
      const r = await api(t.url, 'PUT', '/api/user/users/999999', { token: tokens.ADMIN, body });
      expect(r.status, JSON.stringify(body)).toBe(404);
      expect(r.body.error).toBe('User not found');
    }
  });
});

describe('figures from events', () => {
  it('counts sign-ins and the last one', async () => {
    const u = await createUser('stats@matrix.test');
    for (let i = 0; i < 3; i++) await signIn(t.url, u.email, PASSWORD);
    // sign-ins are recorded asynchronously to the read model: poll briefly
    let stats: any;
    for (let i = 0; i < 50; i++) {
      stats = (await api(t.url, 'GET', `/api/user/statistics?userId=${u.id}`, { token: tokens.ADMIN })).body
        .data;
      if (stats.totalLogins === 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stats).toMatchObject({ totalLogins: 3, companiesManaged: 0, approvalsCreated: 0 });
    expect(Date.now() - new Date(stats.lastLogin).getTime()).toBeLessThan(60_000);
  });

  it('overview stats match the users read model', async () => {
    const r = await api(t.url, 'GET', '/api/user/overview-stats', { token: tokens.ADMIN });
    const list = await api(t.url, 'GET', '/api/user/users?limit=1000', { token: tokens.ADMIN });
    const users = list.body.data.data as Array<{ role: string; isActive: boolean }>;
    expect(r.body.data.totalUsers).toBe(users.length);
    expect(r.body.data.activeUsers).toBe(users.filter((u) => u.isActive).length);
    expect(r.body.data.newUsersThisMonth).toBe(users.length);
    const byRole = Object.fromEntries(
      ['ADMIN', 'MODERATOR', 'USER', 'GUEST'].map((role) => [
        role,
        users.filter((u) => u.role === role).length,
      ]),
    );
    expect(r.body.data.usersByRole).toEqual(byRole);
  });

  it('pages the list with the envelope’s pagination block', async () => {
    const r = await api(t.url, 'GET', '/api/user/users?page=2&limit=3', { token: tokens.ADMIN });
    expect(r.body.data.data).toHaveLength(3);
    expect(r.body.meta.pagination).toEqual({
      total: r.body.data.total,
      page: 2,
      limit: 3,
      totalPages: Math.ceil(r.body.data.total / 3),
    });
    expect((await api(t.url, 'GET', '/api/user/users?page=0', { token: tokens.ADMIN })).status).toBe(400);
  });

  it('the dashboard shows real counts and the newest activity in plain words', async () => {
    const u = await createUser('activity@matrix.test', 'USER', { firstName: 'Ada', lastName: 'Activity' });
    await api(t.url, 'PUT', `/api/user/users/${u.id}/role`, {
      body: { role: 'MODERATOR' },
      token: tokens.ADMIN,
    });
    const r = await api(t.url, 'GET', '/api/dashboard/stats', { token: tokens.ADMIN });
    expect(r.status).toBe(200);
    const overview = await api(t.url, 'GET', '/api/user/overview-stats', { token: tokens.ADMIN });
    expect(r.body.data.activeUsers).toBe(overview.body.data.activeUsers);
    expect(r.body.data).toMatchObject({ totalCompanies: 0, pendingApprovals: 0 });
    const me = (await api(t.url, 'GET', '/api/auth/me', { token: tokens.ADMIN })).body.data;
    const adminName = `${me.firstName} ${me.lastName}`;
    const descriptions = r.body.data.recentActivity.map((a: any) => a.description);
    expect(descriptions[0]).toBe(`${adminName} changed the role of Ada Activity from USER to MODERATOR`);
    expect(descriptions[1]).toBe(`${adminName} created user Ada Activity`);
    const times = r.body.data.recentActivity.map((a: any) => new Date(a.timestamp).getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });
});
