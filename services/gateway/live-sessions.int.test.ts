// Live streams do not outlive access: a socket ends with its session (sign-out, a
// password change elsewhere, an admin's reset, deletion) and with its token; GraphQL over SSE is not
// served at all; and `login` over graphql-ws counts against the caller's address like over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { socketClient } from '../../test/support/socket.js';

let t: TestApp;

beforeAll(async () => {
  // Access tokens of 5 s: a socket must close when its token expires.
  t = await startTestApp({ env: { ACCESS_TOKEN_TTL_SECONDS: '5', LOGIN_MAX_FAILURES: '3' } });
  await signIn(t.url, t.admin.email, t.admin.password);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

async function admin(email: string) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    token: (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken,
    body: { email, password: 'Live-Passw0rd', role: 'ADMIN' },
  });
  expect(r.status).toBe(201);
  return r.body.data.id as number;
}

function socket(token: string) {
  const closes: number[] = [];
  const client = socketClient(t.url, token, {
    lazy: false,
    // The close is what these tests wait for (`closes`); graphql-ws would also print it to stderr.
    onNonLazyError: () => {},
    on: { closed: (e) => closes.push((e as { code: number }).code) },
  });
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  client.subscribe(
    { query: 'subscription { userChanged { id type } }' },
    { next: () => {}, error: () => {}, complete: () => {} },
  );
  return { client, closes, connected };
}

describe('a socket ends with its session', () => {
  it('sign-out closes that session’s sockets and no other', async () => {
    await admin('out.live@sessions.test');
    const a = await signIn(t.url, 'out.live@sessions.test', 'Live-Passw0rd');
    const b = await signIn(t.url, 'out.live@sessions.test', 'Live-Passw0rd');
    const sa = socket(a.tokens.accessToken);
    const sb = socket(b.tokens.accessToken);
    await Promise.all([sa.connected, sb.connected]);
    await api(t.url, 'POST', '/api/auth/logout', {
      token: a.tokens.accessToken,
      body: { refreshToken: a.tokens.refreshToken },
    });
    await expect.poll(() => sa.closes, { timeout: 5000 }).toContain(4403);
    await new Promise((r) => setTimeout(r, 300));
    expect(sb.closes).toEqual([]);
    await sa.client.dispose();
    await sb.client.dispose();
  });

  it('a password change closes the other sessions’ sockets; an admin’s reset closes them all', async () => {
    const id = await admin('pw.live@sessions.test');
    const here = await signIn(t.url, 'pw.live@sessions.test', 'Live-Passw0rd');
    const there = await signIn(t.url, 'pw.live@sessions.test', 'Live-Passw0rd');
    const sHere = socket(here.tokens.accessToken);
    const sThere = socket(there.tokens.accessToken);
    await Promise.all([sHere.connected, sThere.connected]);
    const changed = await api(t.url, 'PUT', '/api/user/password', {
      token: here.tokens.accessToken,
      body: { currentPassword: 'Live-Passw0rd', newPassword: 'Live-Passw0rd-2' },
    });
    expect(changed.status).toBe(200);
    await expect.poll(() => sThere.closes, { timeout: 5000 }).toContain(4403);
    expect(sHere.closes).toEqual([]);
    const reset = await api(t.url, 'PUT', `/api/user/users/${id}/change-password`, {
      token: (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken,
      body: { newPassword: 'Live-Passw0rd-3' },
    });
    expect(reset.status).toBe(200);
    await expect.poll(() => sHere.closes, { timeout: 5000 }).toContain(4403);
    await sHere.client.dispose();
    await sThere.client.dispose();
  });

  it('a socket closes when the token it was opened with expires', async () => {
    const s = socket((await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken);
    await s.connected;
    const opened = Date.now();
    await expect.poll(() => s.closes, { timeout: 9000, interval: 200 }).toContain(4403);
    expect(Date.now() - opened).toBeLessThan(7000);
    await s.client.dispose();
  });
});

describe('other transports and limits', () => {
  it('does not serve GraphQL over server-sent events', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${(await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken}`,
      },
      body: JSON.stringify({ query: 'subscription { userChanged { id type } }' }),
    });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).not.toMatch(/event-stream/);
  });

  it('login over graphql-ws counts against the address as over HTTP', async () => {
    // A socket needs a signed-in caller; from it, someone could try other people's passwords.
    const client = socketClient(
      t.url,
      (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken,
    );
    const loginOnce = (email: string) =>
      new Promise<string>((resolve) => {
        client.subscribe(
          {
            query: 'mutation($e: String!) { login(email: $e, password: "nope-nope") { user { id } } }',
            variables: { e: email },
          },
          {
            next: (v) => resolve(JSON.stringify(v)),
            error: (e) => resolve(JSON.stringify(e)),
            complete: () => {},
          },
        );
      });
    // The address allows four times the per-e-mail limit (3) across accounts: the 13th is refused.
    const answers: string[] = [];
    for (let i = 0; i < 13; i++) answers.push(await loginOnce(`nobody${i}@ws.test`));
    expect(answers.slice(0, 12).every((a) => !/RATE_LIMITED/.test(a))).toBe(true);
    expect(answers[12]).toMatch(/RATE_LIMITED/);
    await client.dispose();
  });
});
