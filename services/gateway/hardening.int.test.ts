// Hostile input at the gateway (GraphQL and transport), against a real gateway,
// Postgres and Redis: operation limits over HTTP and graphql-ws, no suggestions, no introspection
// when signed out, CORS only for our own and configured origins, WebSocket message caps, body
// limits per route, security headers and no-store, and /metrics off the public port.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp, testSecrets } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { type ConfigError, loadConfig } from '../shared/config.js';
import { REFUSED_BODY_DRAIN } from './rest/envelope.js';

const PARTNER = 'https://partner.example';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const INLINE_SCRIPT = "if(location.pathname!=='/login')document.getElementById('root').replaceChildren()";

let t: TestApp;
let withToken: TestApp;
let webDist: string;
let adminToken: string;
let guestToken: string;

beforeAll(async () => {
  // A built app in miniature: index.html with the prerendered screen's inline script.
  webDist = await mkdtemp(path.join(tmpdir(), 'billflow-web-'));
  await writeFile(
    path.join(webDist, 'index.html'),
    `<!doctype html><html><head><title>Billflow</title></head><body><div id="root"></div><script>${INLINE_SCRIPT}</script><script type="module" src="/assets/app.js"></script></body></html>`,
  );
  t = await startTestApp({ webDist, env: { CORS_ORIGINS: PARTNER } });
  withToken = await startTestApp({ env: { METRICS_TOKEN } });
  adminToken = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const guest = { email: 'guest@hardening.test', password: 'Guest-Passw0rd-91!' };
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { ...guest, firstName: 'Gus', lastName: 'Guest', role: 'GUEST' },
    token: adminToken,
  });
  expect(r.status).toBe(201);
  guestToken = (await signIn(t.url, guest.email, guest.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
  await withToken?.stop();
  if (webDist) await rm(webDist, { recursive: true, force: true });
});

const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { id }`).join(' ')} }`;
const manyTokens = (n: number) => `{ me { ${'id '.repeat(n)}} }`;
// Each level spreads the one below ten times: few tokens, no aliases, 10,000 leaf fields to cost.
const fragmentBomb = `{ me { ...F1 } }
fragment F1 on User { ${'...F2 '.repeat(10)}}
fragment F2 on User { ${'...F3 '.repeat(10)}}
fragment F3 on User { ${'...F4 '.repeat(10)}}
fragment F4 on User { ${'id '.repeat(10)}}`;
// __type is not __schema: deep type walks count like any other depth.
const deepTypeWalk = `{ __type(name: "User") { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } }`;

function messagesOf(r: { errors?: { message: string }[] }) {
  return (r.errors ?? []).map((e) => e.message).join(' | ');
}

/** Runs one operation over graphql-ws and answers its result, or its errors. */
async function overSocket(query: string, variables: Record<string, unknown> = {}, token = adminToken) {
  const client = createClient({
    url: `${t.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { token },
    retryAttempts: 0,
  });
  try {
    return await new Promise<{ data?: unknown; errors?: { message: string }[] }>((resolve, reject) => {
      let result: { data?: unknown; errors?: { message: string }[] } = {};
      client.subscribe(
        { query, variables },
        {
          next: (v) => {
            result = v as typeof result;
          },
          error: (err) => {
            if (Array.isArray(err)) resolve({ errors: err as { message: string }[] });
            else reject(err);
          },
          complete: () => resolve(result),
        },
      );
    });
  } finally {
    await client.dispose();
  }
}

describe('GraphQL operation limits', () => {
  it('refuses a GUEST request with thousands of aliases of `me` at once, over HTTP', async () => {
    const started = performance.now();
    const r = await gql(t.url, aliases(2000), {}, guestToken);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(r.data ?? null).toBeNull();
    expect(messagesOf(r)).toMatch(/aliases limit of 15|token limit/i);
    // Fewer tokens, still too many aliases.
    expect(messagesOf(await gql(t.url, aliases(100), {}, guestToken))).toMatch(/aliases limit of 15/i);
    // The app's own operations stay well inside the limits.
    expect((await gql(t.url, aliases(15), {}, guestToken)).errors).toBeUndefined();
  });

  it('refuses too many tokens, too deep and too costly operations over HTTP', async () => {
    const tokens = await gql(t.url, manyTokens(2500), {}, adminToken);
    expect(tokens.data ?? null).toBeNull();
    expect(messagesOf(tokens)).toMatch(/token limit/i);

    const deep = await gql(t.url, deepTypeWalk, {}, adminToken);
    expect(deep.data ?? null).toBeNull();
    expect(messagesOf(deep)).toMatch(/depth limit/i);

    const costly = await gql(t.url, fragmentBomb, {}, adminToken);
    expect(costly.data ?? null).toBeNull();
    expect(messagesOf(costly)).toMatch(/cost limit/i);
  });

  it('applies the same limits to operations sent over graphql-ws', async () => {
    expect(messagesOf(await overSocket(aliases(200), {}, guestToken))).toMatch(/aliases limit/i);
    expect(messagesOf(await overSocket(manyTokens(2500)))).toMatch(/token limit/i);
    expect(messagesOf(await overSocket(fragmentBomb))).toMatch(/cost limit/i);
    expect(messagesOf(await overSocket(deepTypeWalk))).toMatch(/depth limit/i);
    // A refused operation does not cost the socket: an ordinary one still runs.
    expect(await overSocket('{ me { email } }', {}, guestToken)).toEqual({
      data: { me: { email: 'guest@hardening.test' } },
    });
  });
});

describe('GraphQL errors and introspection', () => {
  it('never suggests field, argument or enum names, over HTTP or graphql-ws', async () => {
    const field = await gql(t.url, '{ mee { id } }');
    expect(messagesOf(field)).toMatch(/Cannot query field "mee"/);
    const enumLiteral = await gql(
      t.url,
      'mutation { changeUserRole(id: 1, role: ADMN) { id } }',
      {},
      adminToken,
    );
    expect(messagesOf(enumLiteral)).toMatch(/ADMN/);
    const enumVariable = await gql(
      t.url,
      'mutation ($r: Role!) { changeUserRole(id: 1, role: $r) { id } }',
      { r: 'ADMN' },
      adminToken,
    );
    expect(messagesOf(enumVariable)).toMatch(/ADMN/);
    const socket = await overSocket('{ me { emial } }');
    expect(messagesOf(socket)).toMatch(/Cannot query field "emial"/);
    for (const r of [field, enumLiteral, enumVariable, socket]) {
      expect(messagesOf(r)).not.toMatch(/did you mean|\bme\b"|"email"|"ADMIN"/i);
    }
  });

  it('refuses introspection to signed-out callers and allows it to signed-in ones, in any order', async () => {
    const query = '{ __schema { queryType { name } } }';
    expect((await gql(t.url, query, {}, adminToken)).data).toEqual({
      __schema: { queryType: { name: 'Query' } },
    });
    const anonymous = await gql(t.url, query);
    expect(anonymous.data ?? null).toBeNull();
    expect(messagesOf(anonymous)).toMatch(/introspection/i);
    const byName = await gql(t.url, '{ __type(name: "User") { name } }');
    expect(messagesOf(byName)).toMatch(/introspection/i);
    expect((await gql(t.url, query, {}, guestToken)).data).toEqual({
      __schema: { queryType: { name: 'Query' } },
    });
    // __typename is not introspection: clients add it to every selection.
    expect((await gql(t.url, '{ __typename }')).data).toEqual({ __typename: 'Query' });
  });
});

describe('CORS on /graphql', () => {
  const preflight = (origin: string) =>
    fetch(`${t.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });

  it('allows the app itself and the configured origins, with credentials', async () => {
    for (const origin of [t.url, PARTNER]) {
      const res = await preflight(origin);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    }
  });

  it('gives no CORS headers to any other origin, `null` included', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example']) {
      const res = await preflight(origin);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const post = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ query: '{ me { email } }' }),
      });
      expect(post.headers.get('access-control-allow-origin')).toBeNull();
      expect(post.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });
});

describe('WebSocket message caps', () => {
  // A refused message is the client's fault: no stack trace on stderr (graphql-ws printed one per
  // socket, outside the structured logger). The gateway runs in this process.
  let stderr: MockInstance<typeof console.error>;
  beforeEach(() => {
    stderr = vi.spyOn(console, 'error');
  });
  afterEach(async () => {
    // The socket's error comes as it closes; give a late one a moment to show.
    await sleep(100);
    expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([]);
    stderr.mockRestore();
  });

  /** A raw graphql-transport-ws socket, its messages and its close. */
  async function rawSocket() {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: any[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    ws.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const next = async (type: string) => {
      for (let i = 0; i < 200 && !messages.some((m) => m.type === type); i++) await sleep(10);
      return messages.find((m) => m.type === type);
    };
    return { ws, messages, closed, next };
  }

  it('closes a socket whose connection_init is over 4 KB, with 1009', async () => {
    const { ws, closed, messages } = await rawSocket();
    ws.send(
      JSON.stringify({ type: 'connection_init', payload: { token: adminToken, padding: 'x'.repeat(5000) } }),
    );
    const timeout = sleep(3000).then(() => ({ code: 0, reason: 'still open after 3 s' }));
    expect((await Promise.race([closed, timeout])).code).toBe(1009);
    expect(messages.some((m) => m.type === 'connection_ack')).toBe(false);
    ws.terminate();
  });

  it('takes larger messages once initialised, and closes on one over 64 KB with 1009', async () => {
    const { ws, closed, next } = await rawSocket();
    ws.send(JSON.stringify({ type: 'connection_init', payload: { token: adminToken } }));
    expect(await next('connection_ack')).toBeTruthy();
    // 10 KB: over the cap before init, well under the one after.
    const query = `{ me { email } } # ${'x'.repeat(10_000)}`;
    ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
    expect((await next('next'))?.payload).toEqual({ data: { me: { email: t.admin.email } } });
    ws.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: `# ${'x'.repeat(70_000)}` } }));
    expect((await closed).code).toBe(1009);
  });
});

describe('request body limits', () => {
  it('refuses a sign-in body over 16 KB with 413 in the envelope, and takes a normal one', async () => {
    const r = await api(t.url, 'POST', '/api/auth/login', {
      body: { email: t.admin.email, password: t.admin.password, padding: 'x'.repeat(20_000) },
    });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({
      success: false,
      code: 'VALIDATION',
      message: 'Request body is too large',
    });
    expect((await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken).toBeTruthy();
  });

  it("answers a 2 MiB sign-in body with a 413 that Node's fetch reads, in the envelope", async () => {
    // fetch sends the whole body before it reads the answer: a socket closed before the body is
    // read leaves it with EPIPE or a reset instead of the 413.
    const body = JSON.stringify({ email: t.admin.email, password: 'x'.repeat(2 * 1024 * 1024) });
    // Once with its length, once as a stream of unknown length (chunked), refused while it is read.
    for (const streamed of [false, true]) {
      const res = await fetch(`${t.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: streamed ? new Blob([body]).stream() : body,
        ...(streamed ? { duplex: 'half' } : {}),
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({
        success: false,
        code: 'VALIDATION',
        message: 'Request body is too large',
      });
    }
    expect((await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken).toBeTruthy();
  });

  it('reads a refused body to its end before it answers and closes, for a client slower than loopback', async () => {
    // 2 MiB in 64 KiB pieces a few ms apart, as over a real network: every piece must be taken (no
    // EPIPE or reset while writing) and the 413 must come once the body is done.
    const { port } = new URL(t.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    let writeError: Error | null = null;
    let answeredAfter = -1;
    let written = 0;
    socket.on('data', (d) => {
      if (answeredAfter < 0) answeredAfter = written;
      answer += d;
    });
    socket.on('error', (err) => {
      writeError = err;
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const size = 2 * 1024 * 1024;
    socket.write(
      `POST /api/auth/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
    );
    while (written < size && !socket.destroyed) {
      await sleep(3);
      const piece = Buffer.alloc(Math.min(64 * 1024, size - written), 120);
      await new Promise<void>((resolve) => socket.write(piece, () => resolve()));
      written += piece.length;
    }
    await closed;
    expect(writeError).toBeNull();
    expect(written).toBe(size);
    expect(answeredAfter).toBe(size);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      success: false,
      code: 'VALIDATION',
      message: 'Request body is too large',
    });
  });

  it('still cuts off a refused body beyond the bound it reads: one declared larger, one that never ends', async () => {
    const { port } = new URL(t.url);
    /** A raw connection to the gateway: what it answers, how the socket ended, when. */
    const connect = async () => {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const seen = { answer: '', error: null as string | null, closed: false };
      socket.on('data', (d) => {
        seen.answer += d;
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        seen.error = err.code ?? err.message;
      });
      const closed = new Promise<void>((resolve) =>
        socket.once('close', () => {
          seen.closed = true;
          resolve();
        }),
      );
      return { socket, seen, closed };
    };
    const head = (length: string) =>
      `POST /api/auth/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${length}\r\n\r\n`;
    const refused = (answer: string) => {
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        success: false,
        code: 'VALIDATION',
        message: 'Request body is too large',
      });
    };

    // Declared beyond the bound: nothing of it is awaited. The 413 comes and the connection closes
    // though not one byte of the body was sent (were it awaited, only the time bound would end it).
    const declared = await connect();
    const asked = Date.now();
    declared.socket.write(head(`content-length: ${REFUSED_BODY_DRAIN.bytes * 8}`));
    await declared.closed;
    expect(Date.now() - asked).toBeLessThan(REFUSED_BODY_DRAIN.ms);
    refused(declared.seen.answer);

    // Of unknown length (chunked) and endless, sent as fast as the gateway takes it: the gateway reads
    // up to its bound, answers and closes, and the client's writes fail. What the client got written
    // past the bound sits in the two sockets' buffers (a few MiB on loopback). The ceiling stops a
    // gateway that never cuts it off.
    const endless = await connect();
    endless.socket.write(head('transfer-encoding: chunked'));
    const piece = Buffer.alloc(256 * 1024, 120);
    const chunk = Buffer.concat([
      Buffer.from(`${piece.length.toString(16)}\r\n`),
      piece,
      Buffer.from('\r\n'),
    ]);
    const ceiling = 512 * 1024 * 1024;
    let written = 0;
    while (!endless.seen.closed && written < ceiling) {
      written += piece.length;
      if (!endless.socket.write(chunk))
        await Promise.race([new Promise((resolve) => endless.socket.once('drain', resolve)), endless.closed]);
    }
    await endless.closed;
    expect(written).toBeGreaterThan(REFUSED_BODY_DRAIN.bytes);
    expect(written).toBeLessThan(REFUSED_BODY_DRAIN.bytes + 56 * 1024 * 1024);
    // The client was still writing when the gateway closed (EPIPE or a reset, as a rule); an answer
    // it read first is the 413.
    if (endless.seen.answer) refused(endless.seen.answer);

    // The gateway still serves.
    expect((await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken).toBeTruthy();
  });

  it('refuses over 256 KB elsewhere under /api and over 128 KB on /graphql', async () => {
    const profile = await api(t.url, 'PUT', '/api/user/profile', {
      body: { firstName: 'x'.repeat(300_000) },
      token: adminToken,
    });
    expect(profile.status).toBe(413);
    expect(profile.body).toMatchObject({ success: false, code: 'VALIDATION' });
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ query: `{ me { id } } # ${'x'.repeat(140_000)}` }),
    });
    expect(res.status).toBe(413);
  });
});

describe('security headers and caching', () => {
  it('serves the web app under a CSP that allows its inline script by hash and no framing', async () => {
    const res = await fetch(`${t.url}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const hash = createHash('sha256').update(INLINE_SCRIPT).digest('base64');
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('marks answers with personal data no-store, and not the health checks', async () => {
    const me = await fetch(`${t.url}/api/auth/me`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(me.headers.get('cache-control')).toBe('no-store');
    expect(me.headers.get('x-content-type-options')).toBe('nosniff');
    expect(me.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const refused = await api(t.url, 'POST', '/api/auth/login', { body: { email: 'a@b.c', password: 'x' } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const graphql = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ query: '{ me { email } }' }),
    });
    expect(graphql.headers.get('cache-control')).toBe('no-store');
    const health = await fetch(`${t.url}/api/health`);
    expect(health.headers.get('cache-control')).not.toBe('no-store');
  });

  it('keeps GraphiQL under the same policy: no inline script, no framing', async () => {
    const res = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('/metrics', () => {
  it('is not on the public port by default, but on a loopback port of its own', async () => {
    // The public port (which serves the web app here) answers /metrics with a 404, neither the
    // metrics nor the web app's HTML.
    const publicPort = await fetch(`${t.url}/metrics`);
    expect(publicPort.status).toBe(404);
    expect(await publicPort.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    // A client-side route on the same port still gets the web app.
    expect(await (await fetch(`${t.url}/operations`)).text()).toContain('<title>Billflow</title>');
    expect((await fetch(`${withToken.url}/metrics`)).status).not.toBe(200);
    const metricsUrl = t.started.metricsUrl;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl!).port).not.toBe(new URL(t.url).port);
    const res = await fetch(metricsUrl!);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('billflow_http_request_duration_seconds_bucket');
  });

  it('with METRICS_TOKEN, is on the public port for that bearer token only', async () => {
    const anonymous = await fetch(`${withToken.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
    const wrong = await fetch(`${withToken.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${withToken.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('process_cpu_user_seconds_total');
  });
});

describe('configuration', () => {
  const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1', ...testSecrets() };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
      return '';
    } catch (err) {
      return (err as ConfigError).problems.join('\n');
    }
  };

  it('takes CORS_ORIGINS as origins only, never `null` or a path', () => {
    expect(problems({ CORS_ORIGINS: 'https://a.example, https://b.example:8443' })).toBe('');
    expect(problems({ CORS_ORIGINS: 'null' })).toMatch(/CORS_ORIGINS must be origins/);
    expect(problems({ CORS_ORIGINS: 'https://a.example/app' })).toMatch(/CORS_ORIGINS must be origins/);
  });

  it('does not echo a METRICS_TOKEN it refuses', () => {
    const said = problems({ METRICS_TOKEN: 'short-secret' });
    expect(said).toMatch(/METRICS_TOKEN must be at least 16 characters/);
    expect(said).not.toContain('short-secret');
  });
});

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
