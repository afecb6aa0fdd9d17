// Sessions end everywhere: sign-out ends the access token with the session,
// a password change ends every other session, and a session has an absolute end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
});

async function newUser(email: string, password: string) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    token: admin,
    body: { email, password, role: 'USER' },
  });
  expect(r.status).toBe(201);
}

const me = (token: string) => api(t.url, 'GET', '/api/auth/me', { token });
const refresh = (refreshToken: string) => api(t.url, 'POST', '/api/auth/refresh', { body: { refreshToken } });

describe('sessions', () => {
  it('sign-out ends that session’s access token at once, and only that session', async () => {
    await newUser('leaver@sessions.test', 'Leaver-Passw0rd');
    const a = (await signIn(t.url, 'leaver@sessions.test', 'Leaver-Passw0rd')).tokens;
    const b = (await signIn(t.url, 'leaver@sessions.test', 'Leaver-Passw0rd')).tokens;
    expect((await me(a.accessToken)).status).toBe(200);
    const out = await api(t.url, 'POST', '/api/auth/logout', {
      token: a.accessToken,
      body: { refreshToken: a.refreshToken },
    });
    expect(out.status).toBe(200);
    expect((await me(a.accessToken)).status).toBe(401);
    expect((await refresh(a.refreshToken)).status).toBe(401);
    // The other tab's session is its own.
    expect((await me(b.accessToken)).status).toBe(200);
    // Sign-out with the access token alone ends its session too.
    await api(t.url, 'POST', '/api/auth/logout', { token: b.accessToken, body: {} });
    expect((await me(b.accessToken)).status).toBe(401);
    expect((await refresh(b.refreshToken)).status).toBe(401);
  });

  it('a password change ends every other session, refresh tokens and access tokens, and keeps this one', async () => {
    await newUser('changer@sessions.test', 'Changer-Passw0rd');
    const here = (await signIn(t.url, 'changer@sessions.test', 'Changer-Passw0rd')).tokens;
    const there = (await signIn(t.url, 'changer@sessions.test', 'Changer-Passw0rd')).tokens;
    const changed = await api(t.url, 'PUT', '/api/user/password', {
      token: here.accessToken,
      body: { currentPassword: 'Changer-Passw0rd', newPassword: 'Changer-Passw0rd-2' },
    });
    expect(changed.status).toBe(200);
    expect((await me(there.accessToken)).status).toBe(401);
    expect((await refresh(there.refreshToken)).status).toBe(401);
    expect((await me(here.accessToken)).status).toBe(200);
    expect((await refresh(here.refreshToken)).status).toBe(200);
  });

  it('an admin setting a password ends all of that user’s sessions', async () => {
    await newUser('reset@sessions.test', 'Reset-Passw0rd');
    const s = await signIn(t.url, 'reset@sessions.test', 'Reset-Passw0rd');
    const set = await api(t.url, 'PUT', `/api/user/users/${s.user.id}/change-password`, {
      token: admin,
      body: { newPassword: 'Reset-Passw0rd-2' },
    });
    expect(set.status).toBe(200);
    expect((await me(s.tokens.accessToken)).status).toBe(401);
    expect((await refresh(s.tokens.refreshToken)).status).toBe(401);
  });

  it('a session ends at its absolute end, however recently it refreshed', async () => {
    await newUser('aging@sessions.test', 'Aging-Passw0rd');
    const s = await signIn(t.url, 'aging@sessions.test', 'Aging-Passw0rd');
    const r1 = await refresh(s.tokens.refreshToken);
    expect(r1.status).toBe(200);
    await t.started.app.pool.query(
      "UPDATE auth_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1",
      [s.user.id],
    );
    expect((await refresh(r1.body.data.tokens.refreshToken)).status).toBe(401);
    expect((await me(r1.body.data.tokens.accessToken)).status).toBe(401);
  });

  it('refuses an access token without a session (from before sessions)', async () => {
    const s = await signIn(t.url, 'admin@billflow.test', t.admin.password);
    const { SignJWT } = await import('jose');
    const old = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(s.user.id))
      .setIssuer('billflow')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(t.env.JWT_SECRET));
    expect((await me(old)).status).toBe(401);
  });
});
