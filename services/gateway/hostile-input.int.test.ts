// Hostile input and password checks, through the REST adapter as a client sends
// them: each is refused with the spec's envelope, changes nothing, and leaves no claim behind.
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

const register = (body: Record<string, unknown>) =>
  api(t.url, 'POST', '/api/auth/register', {
    token: admin,
    body: { password: 'Sturdy-Passw0rd', role: 'USER', ...body },
  });

/** The address is free: a create with it succeeds (and the user is deleted again). */
async function addressIsFree(email: string) {
  const r = await register({ email });
  expect(r.status).toBe(201);
  await api(t.url, 'DELETE', `/api/user/users/${r.body.data.id}`, { token: admin });
}

describe('names and addresses', () => {
  it.each([
    ['a NUL byte', 'Ann\u0000Lee'],
    ['a lone surrogate', 'Ann\uD800Lee'],
    ['a text-direction override', 'Ann\u202Eeel'],
    ['a right-to-left isolate', 'Ann\u2067Lee\u2069'],
    ['a line break', 'Ann\nLee created user Root'],
    ['101 characters', 'x'.repeat(101)],
  ])('refuses %s in a name with a 400 and leaves the address free', async (_, firstName) => {
    const email = `name-${Math.random().toString(36).slice(2)}@hostile.test`;
    const r = await register({ email, firstName });
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    expect(r.body.errors?.[0]?.field).toBe('firstName');
    await addressIsFree(email);
  });

  it('refuses a 5,000-character address and a lone surrogate in a password', async () => {
    const long = await register({ email: `${'a'.repeat(4990)}@hostile.test` });
    expect(long.status).toBe(400);
    expect(long.body.errors?.[0]?.field).toBe('email');
    const bad = await api(t.url, 'POST', '/api/auth/login', {
      body: { email: 'nobody@hostile.test', password: 'pass\uDC00word' },
    });
    expect(bad.status).toBe(400);
  });

  it('keeps names with accents, apostrophes and other scripts', async () => {
    const r = await register({ email: 'zoe@hostile.test', firstName: 'Zoë', lastName: "O'Brien-Łukasz 李" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ firstName: 'Zoë', lastName: "O'Brien-Łukasz 李" });
  });

  it('a create that fails after claiming its address leaves no claim behind', async () => {
    const email = 'half-made@hostile.test';
    // The credentials table gone: the create fails after the claim, inside the product.
    await t.started.app.pool.query('ALTER TABLE user_credentials RENAME TO user_credentials_away');
    try {
      expect((await register({ email })).status).toBe(500);
    } finally {
      await t.started.app.pool.query('ALTER TABLE user_credentials_away RENAME TO user_credentials');
    }
    await addressIsFree(email);
  });
});

describe('passwords', () => {
  it('refuses common passwords, at either length rule', async () => {
    const r = await register({ email: 'common@hostile.test', password: 'password' });
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]).toMatchObject({
      field: 'password',
      message: expect.stringMatching(/too common/),
    });
    const u = await register({ email: 'setme@hostile.test' });
    const set = await api(t.url, 'PUT', `/api/user/users/${u.body.data.id}/change-password`, {
      token: admin,
      body: { newPassword: 'qwerty' },
    });
    expect(set.status).toBe(400);
  });

  it('the admin route that sets a password cannot be used on oneself', async () => {
    const me = await api(t.url, 'GET', '/api/user/profile', { token: admin });
    const r = await api(t.url, 'PUT', `/api/user/users/${me.body.data.id}/change-password`, {
      token: admin,
      body: { newPassword: 'Another-Passw0rd' },
    });
    expect(r.status).toBe(403);
    await signIn(t.url, t.admin.email, t.admin.password);
  });

  it('changing one’s own e-mail needs the current password, and guesses at it are throttled', async () => {
    await register({ email: 'mover@hostile.test', password: 'Mover-Passw0rd' });
    const token = (await signIn(t.url, 'mover@hostile.test', 'Mover-Passw0rd')).tokens.accessToken;
    const change = (currentPassword?: string) =>
      api(t.url, 'PUT', '/api/user/profile', {
        token,
        body: { email: 'moved@hostile.test', ...(currentPassword ? { currentPassword } : {}) },
      });
    expect((await change()).status).toBe(400);
    const guesses = [];
    for (let i = 0; i < 8; i++) guesses.push((await change(`wrong-${i}`)).status);
    expect(guesses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(guesses.slice(5)).toEqual([429, 429, 429]);
    // Even the right one waits out the window now.
    expect((await change('Mover-Passw0rd')).status).toBe(429);
    const me = await api(t.url, 'GET', '/api/user/profile', { token });
    expect(me.body.data.email).toBe('mover@hostile.test');
  });

  it('an inactive account with the right password spends no sign-in attempts', async () => {
    const u = await register({ email: 'resting@hostile.test', password: 'Resting-Passw0rd' });
    await api(t.url, 'PUT', `/api/user/users/${u.body.data.id}`, { token: admin, body: { isActive: false } });
    const statuses = [];
    for (let i = 0; i < 7; i++)
      statuses.push(
        (
          await api(t.url, 'POST', '/api/auth/login', {
            body: { email: 'resting@hostile.test', password: 'Resting-Passw0rd' },
          })
        ).status,
      );
    expect(statuses).toEqual([403, 403, 403, 403, 403, 403, 403]);
  });
});
