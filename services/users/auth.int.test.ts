// Sign-in, tokens and registration over REST and GraphQL, against a real gateway, Postgres and Redis.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';

let t: TestApp;
let adminToken: string;

beforeAll(async () => {
  t = await startTestApp({ env: { LOGIN_MAX_FAILURES: '3' } });
  adminToken = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
});

async function register(body: Record<string, unknown>, token: string | null = adminToken) {
  return api(t.url, 'POST', '/api/auth/register', { body, token });
}

describe('sign-in over REST', () => {
  it('signs the first admin in and returns the user and both tokens', async () => {
    const r = await api(t.url, 'POST', '/api/auth/login', {
      body: { email: t.admin.email, password: t.admin.password },
    });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data.user).toMatchObject({ email: t.admin.email, role: 'ADMIN', isActive: true });
    expect(r.body.data.user.passwordHash).toBeUndefined();
    expect(r.body.data.tokens.accessToken).toMatch(/^ey/);
    expect(r.body.data.tokens.refreshToken.length).toBeGreaterThan(30);
    const me = await api(t.url, 'GET', '/api/auth/me', { token: r.body.data.tokens.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ email: t.admin.email, role: 'ADMIN' });
  });

  it('accepts the e-mail in any case', async () => {
    const r = await api(t.url, 'POST', '/api/auth/login', {
      body: { email: t.admin.email.toUpperCase(), password: t.admin.password },
    });
    expect(r.status).toBe(200);
  });

  it('answers 401 with the same message for a wrong password and an unknown e-mail', async () => {
    const wrong = await api(t.url, 'POST', '/api/auth/login', {
      body: { email: t.admin.email, password: 'nope-nope' },
    });
    const unknown = await api(t.url, 'POST', '/api/auth/login', {
      body: { email: 'ghost@billflow.test', password: 'nope-nope' },
    });
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ success: false, error: 'Invalid email or password' });
    }
    // a correct sign-in resets the admin's failure count, so the rate-limit tests below start clean
    await signIn(t.url, t.admin.email, t.admin.password);
  });

  it('answers 400 with field errors for invalid input and for malformed JSON', async () => {
    const r = await api(t.url, 'POST', '/api/auth/login', { body: { email: 'not-an-email', password: '' } });
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    expect(r.body.errors?.map((e) => e.field).sort()).toEqual(['email', 'password']);
    expect(r.body.errors?.find((e) => e.field === 'email')?.message).toBe(
      'Please enter a valid email address',
    );
    const bad = await api(t.url, 'POST', '/api/auth/login', { rawBody: '{"email":' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: 'Malformed request body' });
  });

  it('rate limits failed sign-ins per e-mail with 429, even for the right password afterwards', async () => {
    const email = 'limited@billflow.test';
    expect((await register({ email, password: 'Right-passw0rd' })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const r = await api(t.url, 'POST', '/api/auth/login', { body: { email, password: 'wrong-password' } });
      expect(r.status).toBe(401);
    }
    const limited = await api(t.url, 'POST', '/api/auth/login', {
      body: { email, password: 'Right-passw0rd' },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe(
      'Too many login attempts. Please wait a few minutes before trying again.',
    );
    // another account from the same address is not blocked by this e-mail's count
    expect(
      (
        await api(t.url, 'POST', '/api/auth/login', {
          body: { email: t.admin.email, password: t.admin.password },
        })
      ).status,
    ).toBe(200);
  });

  it('records sign-ins and sign-outs on their own stream: the user stream and admin edits are not touched', async () => {
    const email = 'sessions@billflow.test';
    const created = await register({ email, password: 'Passw0rd-123' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    const { store } = t.started.app;
    const before = (await store.readStream(`user-${id}`)).version;
    // Sign-ins racing an admin's edit of the same user: only the edit lands on the user stream.
    const [edit, ...signIns] = await Promise.all([
      api(t.url, 'PUT', `/api/user/users/${id}`, { body: { lastName: 'Edited' }, token: adminToken }),
      ...Array.from({ length: 2 }, () =>
        api(t.url, 'POST', '/api/auth/login', { body: { email, password: 'Passw0rd-123' } }),
      ),
    ]);
    expect(edit.status).toBe(200);
    expect(signIns.map((r) => r.status)).toEqual([200, 200]);
    const userStream = await store.readStream(`user-${id}`);
    expect(userStream.version).toBe(before + 1);
    expect(userStream.events.map((e) => e.type)).not.toContain('UserSignedIn');
    const logout = await api(t.url, 'POST', '/api/auth/logout', {
      body: { refreshToken: signIns[0].body.data.tokens.refreshToken },
      token: signIns[0].body.data.tokens.accessToken,
    });
    expect(logout.status).toBe(200);
    const sessions = await store.readStream(`usersessions-${id}`);
    expect(sessions.events.map((e) => e.type).sort()).toEqual([
      'UserSignedIn',
      'UserSignedIn',
      'UserSignedOut',
    ]);
    // The read model still counts them (by the user id in the data, whichever stream they are on).
    let stats: any;
    for (let i = 0; i < 100; i++) {
      stats = (await api(t.url, 'GET', `/api/user/statistics?userId=${id}`, { token: adminToken })).body.data;
      if (stats.totalLogins === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stats.totalLogins).toBe(2);
  });

  it('refuses an inactive user', async () => {
    const email = 'inactive@billflow.test';
    expect((await register({ email, password: 'Passw0rd-123', isActive: false })).status).toBe(201);
    const r = await api(t.url, 'POST', '/api/auth/login', { body: { email, password: 'Passw0rd-123' } });
    expect(r.status).toBe(403);
    expect(r.body.success).toBe(false);
  });

  it('answers 401 on /me without a token, with a garbage token and with a forged one', async () => {
    expect((await api(t.url, 'GET', '/api/auth/me')).status).toBe(401);
    expect((await api(t.url, 'GET', '/api/auth/me', { token: 'garbage' })).status).toBe(401);
    const [h, p] = adminToken.split('.');
    expect((await api(t.url, 'GET', '/api/auth/me', { token: `${h}.${p}.forgedsignature` })).status).toBe(
      401,
    );
  });
});

describe('refresh tokens', () => {
  it('rotates on use; an old token again gets its successor only right after, later it ends the session', async () => {
    const refresh = (refreshToken: string) =>
      api(t.url, 'POST', '/api/auth/refresh', { body: { refreshToken } });
    const first = await signIn(t.url, t.admin.email, t.admin.password);
    const r1 = await refresh(first.tokens.refreshToken);
    expect(r1.status).toBe(200);
    const second = r1.body.data.tokens;
    expect(second.refreshToken).not.toBe(first.tokens.refreshToken);
    expect((await api(t.url, 'GET', '/api/auth/me', { token: second.accessToken })).status).toBe(200);
    // The old token again at once (another tab): the same successor, the session goes on.
    const again = await refresh(first.tokens.refreshToken);
    expect(again.status).toBe(200);
    expect(again.body.data.tokens.refreshToken).toBe(second.refreshToken);
    // Once its successor has been used, the old token again is theft: the session ends.
    const r2 = await refresh(second.refreshToken);
    expect(r2.status).toBe(200);
    expect((await refresh(first.tokens.refreshToken)).status).toBe(401);
    expect((await refresh(r2.body.data.tokens.refreshToken)).status).toBe(401);
    expect((await api(t.url, 'GET', '/api/auth/me', { token: r2.body.data.tokens.accessToken })).status).toBe(
      401,
    );
  });

  it('ends the session when a rotated token comes back after the reuse window', async () => {
    const s = await signIn(t.url, t.admin.email, t.admin.password);
    const r1 = await api(t.url, 'POST', '/api/auth/refresh', {
      body: { refreshToken: s.tokens.refreshToken },
    });
    expect(r1.status).toBe(200);
    // As if the rotation was longer ago than the window.
    await t.started.app.pool.query(
      "UPDATE auth_refresh_tokens SET used_at = now() - interval '1 minute' WHERE used_at IS NOT NULL",
    );
    const late = await api(t.url, 'POST', '/api/auth/refresh', {
      body: { refreshToken: s.tokens.refreshToken },
    });
    expect(late.status).toBe(401);
    const next = await api(t.url, 'POST', '/api/auth/refresh', {
      body: { refreshToken: r1.body.data.tokens.refreshToken },
    });
    expect(next.status).toBe(401);
  });

  it('two tabs refreshing with the same token at once both get the same new pair', async () => {
    const s = await signIn(t.url, t.admin.email, t.admin.password);
    const results = await Promise.all(
      [1, 2].map(() =>
        api(t.url, 'POST', '/api/auth/refresh', { body: { refreshToken: s.tokens.refreshToken } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results[0].body.data.tokens.refreshToken).toBe(results[1].body.data.tokens.refreshToken);
    // And that pair works.
    const next = await api(t.url, 'POST', '/api/auth/refresh', {
      body: { refreshToken: results[0].body.data.tokens.refreshToken },
    });
    expect(next.status).toBe(200);
  });

  it('stores refresh tokens only hashed', async () => {
    const s = await signIn(t.url, t.admin.email, t.admin.password);
    const client = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await client.connect();
    const r = await client.query('SELECT count(*)::int AS n FROM auth_refresh_tokens WHERE token_hash = $1', [
      s.tokens.refreshToken,
    ]);
    await client.end();
    expect(r.rows[0].n).toBe(0);
  });

  it('logout revokes the refresh token', async () => {
    const s = await signIn(t.url, t.admin.email, t.admin.password);
    const out = await api(t.url, 'POST', '/api/auth/logout', {
      body: { refreshToken: s.tokens.refreshToken },
      token: s.tokens.accessToken,
    });
    expect(out.status).toBe(200);
    const r = await api(t.url, 'POST', '/api/auth/refresh', {
      body: { refreshToken: s.tokens.refreshToken },
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('Invalid or expired refresh token');
  });
});

describe('registration', () => {
  it('lets an ADMIN create a user who can then sign in, and reads its own write', async () => {
    const r = await register({
      email: 'New.User@Billflow.test',
      password: 'Passw0rd-123',
      firstName: 'New',
      lastName: 'User',
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      email: 'new.user@billflow.test',
      role: 'USER',
      isActive: true,
      firstName: 'New',
    });
    expect(typeof r.body.data.id).toBe('number');
    const s = await signIn(t.url, 'new.user@billflow.test', 'Passw0rd-123');
    expect(s.user.id).toBe(r.body.data.id);
  });

  it('refuses without a token (401) and for a non-admin (403), changing nothing', async () => {
    await register({ email: 'plain@billflow.test', password: 'Passw0rd-123', role: 'USER' });
    const user = await signIn(t.url, 'plain@billflow.test', 'Passw0rd-123');
    const noToken = await register({ email: 'x1@billflow.test', password: 'Passw0rd-123' }, null);
    const asUser = await register(
      { email: 'x2@billflow.test', password: 'Passw0rd-123', role: 'ADMIN' },
      user.tokens.accessToken,
    );
    expect(noToken.status).toBe(401);
    expect(asUser.status).toBe(403);
    for (const email of ['x1@billflow.test', 'x2@billflow.test']) {
      expect(
        (await api(t.url, 'POST', '/api/auth/login', { body: { email, password: 'Passw0rd-123' } })).status,
      ).toBe(401);
    }
  });

  it('validates: e-mail, password of 8+, role', async () => {
    const r = await register({ email: 'bad', password: 'short', role: 'KING' });
    expect(r.status).toBe(400);
    const fields = Object.fromEntries((r.body.errors ?? []).map((e) => [e.field, e.message]));
    expect(fields.email).toBe('Please enter a valid email address');
    expect(fields.password).toBe('Password must be at least 8 characters');
    expect(fields.role).toBeDefined();
  });

  it('keeps e-mails unique, case-insensitively, even under concurrent creates', async () => {
    const attempts = await Promise.all(
      ['dup@billflow.test', 'DUP@billflow.test', 'Dup@Billflow.test', 'dup@billflow.test'].map((email) =>
        register({ email, password: 'Passw0rd-123' }),
      ),
    );
    expect(attempts.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    expect(attempts.find((a) => a.status === 409)?.body.error).toBe('A user with this email already exists');
  });
});

describe('own password', () => {
  it('needs the current password and then replaces it', async () => {
    await register({ email: 'pw@billflow.test', password: 'Old-passw0rd' });
    const s = await signIn(t.url, 'pw@billflow.test', 'Old-passw0rd');
    const wrong = await api(t.url, 'PUT', '/api/user/password', {
      body: { currentPassword: 'not-it', newPassword: 'New-passw0rd' },
      token: s.tokens.accessToken,
    });
    expect(wrong.status).toBe(400);
    const ok = await api(t.url, 'PUT', '/api/user/password', {
      body: { currentPassword: 'Old-passw0rd', newPassword: 'New-passw0rd' },
      token: s.tokens.accessToken,
    });
    expect(ok.status).toBe(200);
    expect(
      (
        await api(t.url, 'POST', '/api/auth/login', {
          body: { email: 'pw@billflow.test', password: 'Old-passw0rd' },
        })
      ).status,
    ).toBe(401);
    await signIn(t.url, 'pw@billflow.test', 'New-passw0rd');
  });
});

describe('GraphQL twins', () => {
  it('signs in, reads me, and reports errors with codes and statuses', async () => {
    const login = await gql(
      t.url,
      'mutation($e:String!,$p:String!){ login(email:$e,password:$p){ user{ id email role } tokens{ accessToken refreshToken } } }',
      {
        e: t.admin.email,
        p: t.admin.password,
      },
    );
    expect(login.errors).toBeUndefined();
    const token = login.data.login.tokens.accessToken;
    const me = await gql(t.url, '{ me { email role isActive } }', {}, token);
    expect(me.data).toEqual({ me: { email: t.admin.email, role: 'ADMIN', isActive: true } });
    const anon = await gql(t.url, '{ me { email } }');
    expect(anon.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect(anon.status).toBe(401);
    const bad = await gql(t.url, 'mutation{ login(email:"x", password:"y"){ tokens{ accessToken } } }');
    expect(bad.errors?.[0].extensions?.code).toBe('VALIDATION');
    expect(bad.status).toBe(400);
  });

  it('creates a user only for an ADMIN', async () => {
    const q = 'mutation($i:RegisterUserInput!){ register(input:$i){ email role } }';
    const input = { email: 'gql-user@billflow.test', password: 'Passw0rd-123', role: 'MODERATOR' };
    const created = await gql(t.url, q, { i: input }, adminToken);
    expect(created.data).toEqual({ register: { email: 'gql-user@billflow.test', role: 'MODERATOR' } });
    const mod = await signIn(t.url, input.email, input.password);
    const refused = await gql(
      t.url,
      q,
      { i: { ...input, email: 'gql-2@billflow.test' } },
      mod.tokens.accessToken,
    );
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(refused.status).toBe(403);
  });
});

describe('gateway plumbing', () => {
  it('answers unknown /api paths with a 404 envelope', async () => {
    const r = await api(t.url, 'GET', '/api/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('answers 500 without internals when the database fails', async () => {
    const client = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await client.connect();
    await client.query('ALTER TABLE users RENAME TO users_broken');
    try {
      const r = await api(t.url, 'POST', '/api/auth/login', {
        body: { email: 'someone@billflow.test', password: 'whatever1' },
      });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({
        success: false,
        error: 'Internal server error',
        message: 'Internal server error',
        code: 'INTERNAL',
      });
      const g = await gql(t.url, '{ me { email } }', {}, adminToken);
      expect(JSON.stringify(g)).not.toMatch(/users_broken|relation|SELECT/);
    } finally {
      await client.query('ALTER TABLE users_broken RENAME TO users');
      await client.end();
    }
  });

  it('serves Prometheus metrics', async () => {
    // On the gateway's loopback metrics port, not the public one (hardening.int.test.ts).
    const res = await fetch(t.started.metricsUrl!);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('billflow_http_request_duration_seconds_bucket');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it("reports each projection's lag: 0 when caught up, the age of the oldest unapplied event when not", async () => {
    const lagOf = async (name: string) => {
      const text = await (await fetch(t.started.metricsUrl!)).text();
      const m = text.match(
        new RegExp(`^billflow_projection_lag_seconds\\{projection="${name}"\\} (\\S+)$`, 'm'),
      );
      return m ? Number(m[1]) : undefined;
    };
    // A write that waits for its read models: afterwards both are caught up with it.
    await api(t.url, 'PUT', '/api/user/profile', { body: { firstName: 'Lag' }, token: adminToken });
    expect(await lagOf('users')).toBeLessThan(1);
    expect(await lagOf('activity')).toBeLessThan(1);
    // A projection that never moved (checkpoint at the start) is as far behind as the first event.
    const first = await t.started.app.store.readAll('', 1);
    await t.started.app.pool.query(
      "INSERT INTO projection_checkpoints (name, position, version) VALUES ('stalled-probe', '', 1)",
    );
    try {
      const lag = (await lagOf('stalled-probe')) ?? Number.NaN;
      const expected = (Date.now() - first[0].createdAt.getTime()) / 1000;
      expect(lag).toBeGreaterThan(0);
      expect(Math.abs(lag - expected)).toBeLessThan(2);
    } finally {
      await t.started.app.pool.query("DELETE FROM projection_checkpoints WHERE name = 'stalled-probe'");
    }
  });

  it('gives the detailed health to an ADMIN only', async () => {
    const r = await api(t.url, 'GET', '/api/health/detailed', { token: adminToken });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      status: 'healthy',
      version: expect.any(String),
      database: { status: 'connected' },
      api: { status: 'operational' },
    });
    expect(r.body.data.uptime).toBeGreaterThanOrEqual(0);
    for (const k of ['memory', 'disk']) {
      expect(r.body.data[k].total).toBeGreaterThan(0);
      expect(r.body.data[k].percentage).toBeGreaterThan(0);
    }
    expect((await api(t.url, 'GET', '/api/health/detailed')).status).toBe(401);
    await register({ email: 'guest@billflow.test', password: 'Passw0rd-123', role: 'GUEST' });
    const guest = await signIn(t.url, 'guest@billflow.test', 'Passw0rd-123');
    expect(
      (await api(t.url, 'GET', '/api/health/detailed', { token: guest.tokens.accessToken })).status,
    ).toBe(403);
  });
});
