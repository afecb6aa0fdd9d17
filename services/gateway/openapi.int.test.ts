// The REST contract: GET /api/openapi.json is valid OpenAPI 3, generated from the
// zod contracts, and has a complete entry for every /api route the gateway registers; /api/docs
// shows it from our own assets. Documenting a route changes none of its answers.
import { validate } from '@readme/openapi-parser';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api } from '../../test/support/http.js';
import { DOCS_PREFIX, type RegisteredRoute, registerApiDocs, registeredRoutes } from './openapi.js';
import { routeDoc } from './rest/contracts.js';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any>; securitySchemes: Record<string, any> };
};

const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The /api routes a client calls (HEAD follows GET; the docs page's own files are not API). */
function apiRoutes(routes: RegisteredRoute[]) {
  return routes.filter(
    (r) =>
      r.url.startsWith('/api/') &&
      !r.url.startsWith(`${DOCS_PREFIX}/`) &&
      r.url !== DOCS_PREFIX &&
      r.method !== 'HEAD',
  );
}

/** What a route's entry lacks, one line per route: empty when every route is fully described. */
function missingEntries(doc: Doc, routes: RegisteredRoute[]): string[] {
  const missing: string[] = [];
  for (const { method, url } of routes) {
    const op = doc.paths[toOpenApiPath(url)]?.[method.toLowerCase()];
    const name = `${method} ${url}`;
    if (!op) {
      missing.push(`${name}: no entry`);
      continue;
    }
    const lacks: string[] = [];
    if (!op.summary) lacks.push('summary');
    if (!Array.isArray(op.security)) lacks.push('security (bearer or [] for public)');
    for (const param of url.matchAll(/:([A-Za-z0-9_]+)/g)) {
      const p = (op.parameters ?? []).find((x: any) => x.in === 'path' && x.name === param[1]);
      if (!p?.required) lacks.push(`path parameter ${param[1]}`);
    }
    const responses = Object.entries<any>(op.responses ?? {});
    // JSON, a page (the OAuth callback answers the popup with HTML), a file (the CSV export, an
    // approval's invoice PDF, a NACHA file as text), or a redirect saying where to ("To /…": an
    // e-mail link's button lands on the public result page).
    const success = responses.find(
      ([code, r]) =>
        (/^2/.test(code) &&
          (r.content?.['application/json']?.schema ||
            r.content?.['text/html']?.schema ||
            r.content?.['text/csv']?.schema ||
            r.content?.['text/plain']?.schema ||
            r.content?.['application/pdf']?.schema)) ||
        (/^3/.test(code) && /^To \//.test(r.description ?? '')),
    );
    if (!success)
      lacks.push('a 2xx JSON (or HTML page, CSV, text or PDF file) answer, or a 3xx saying where to');
    const failures = responses.filter(
      ([code, r]) =>
        /^[45]/.test(code) &&
        r.content?.['application/json']?.schema?.$ref === '#/components/schemas/ErrorEnvelope',
    );
    if (failures.length === 0) lacks.push('error answers in the envelope');
    if (lacks.length) missing.push(`${name}: ${lacks.join(', ')}`);
  }
  return missing;
}

let t: TestApp;
let doc: Doc;

beforeAll(async () => {
  t = await startTestApp();
  const res = await fetch(`${t.url}/api/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3 document', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    const result = await validate(structuredClone(doc) as any);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has a complete entry for every /api route the gateway registers', () => {
    const gateway = t.started.gateway;
    if (!gateway) throw new Error('no gateway');
    const routes = apiRoutes(registeredRoutes(gateway));
    // The router's own view: no /api route escaped the recorder (e.g. one added before it).
    const printed = gateway.printRoutes({ commonPrefix: false });
    for (const line of printed.matchAll(/(\/api\/[^\s]+) \(([A-Z, ]+)\)/g)) {
      for (const method of line[2].split(', ').filter((m) => m !== 'HEAD')) {
        if (line[1].startsWith(`${DOCS_PREFIX}/`) || line[1] === DOCS_PREFIX) continue;
        expect(routes).toContainEqual({ method, url: line[1] });
      }
    }
    expect(routes.length).toBeGreaterThanOrEqual(25);
    expect(missingEntries(doc, routes)).toEqual([]);
    // And nothing else: the document lists /api paths only.
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/'))).toBe(true);
  });

  it('catches a route added without an entry', async () => {
    const server = Fastify();
    await registerApiDocs(server);
    server.get('/api/things/:id', async () => ({ success: true, data: null }));
    server.post(
      '/api/things',
      {
        schema: routeDoc({
          summary: 'Add a thing',
          tags: ['things'],
          body: z.object({ n: z.number() }),
          data: z.null(),
        }),
      },
      async () => ({ success: true, data: null }),
    );
    await server.ready();
    try {
      const missing = missingEntries(server.swagger() as unknown as Doc, apiRoutes(registeredRoutes(server)));
      expect(missing).toHaveLength(1);
      expect(missing[0]).toMatch(
        /^GET \/api\/things\/:id: summary, security .*, a 2xx JSON \(or HTML page, CSV, text or PDF file\) answer, or a 3xx saying where to, error answers in the envelope$/,
      );
    } finally {
      await server.close();
    }
  });

  it('takes bodies and queries from the command contracts, and marks which routes need a token', () => {
    const login = doc.paths['/api/auth/login'].post;
    const loginBody = login.requestBody.content['application/json'].schema;
    expect(loginBody.required).toEqual(expect.arrayContaining(['email', 'password']));
    expect(loginBody.properties.password).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    expect(login.security).toEqual([]);
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));

    const role = doc.paths['/api/user/users/{id}/role'].put;
    expect(role.security).toEqual([{ bearerAuth: [] }]);
    expect(role.requestBody.content['application/json'].schema.properties.role.enum).toEqual(
      expect.arrayContaining(['ADMIN', 'MODERATOR', 'USER', 'GUEST']),
    );
    const register = doc.paths['/api/auth/register'].post;
    expect(Object.keys(register.responses)).toContain('201');
    expect(register.requestBody.content['application/json'].schema.properties.password.minLength).toBe(8);

    const profile = doc.paths['/api/user/profile'].put.requestBody.content['application/json'].schema;
    expect(Object.keys(profile.properties).sort()).toEqual([
      'currentPassword',
      'email',
      'firstName',
      'lastName',
    ]);

    const list = doc.paths['/api/user/users'].get;
    expect(list.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['query:page', 'query:limit']),
    );
    const listed = list.responses['200'].content['application/json'].schema;
    expect(listed.properties.meta.properties.pagination.$ref).toBe('#/components/schemas/Pagination');
    // The users list's data is the page itself (its rows in data.data), as that route always answered.
    expect(listed.properties.data.properties.data.items.$ref).toBe('#/components/schemas/User');

    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ErrorEnvelope.properties.code.enum).toContain('VALIDATION');
    expect(doc.components.schemas.ErrorEnvelope.required).toEqual(
      expect.arrayContaining(['success', 'error', 'message', 'code']),
    );
  });
});

describe('documenting a route changes none of its answers', () => {
  it('keeps the application field errors, status codes and whole bodies', async () => {
    const bad = await api(t.url, 'POST', '/api/auth/login', { body: { email: 'nope', password: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'VALIDATION' });
    expect(bad.body.errors?.map((e) => e.field).sort()).toEqual(['email', 'password']);

    const login = await api(t.url, 'POST', '/api/auth/login', { body: t.admin });
    expect(login.status).toBe(200);
    const token = login.body.data.tokens.accessToken;
    // A path id the contract documents as digits still reaches the application: 404, not a 400.
    const notANumber = await api(t.url, 'PUT', '/api/user/users/abc/role', { token, body: { role: 'USER' } });
    expect(notANumber.status).toBe(404);
    expect(notANumber.body).toMatchObject({ success: false, code: 'NOT_FOUND', message: 'User not found' });
    // Query strings are not coerced or filled in by Fastify either: the application's own 400.
    const badPage = await api(t.url, 'GET', '/api/user/users?limit=0', { token });
    expect(badPage.status).toBe(400);
    expect(badPage.body.errors?.[0]?.field).toBe('limit');
    // An answer with a field the contract does not list is sent whole (no serializer strips it).
    const ready = await api(t.url, 'GET', '/api/health/ready');
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.body.data).sort()).toEqual(['database', 'degraded', 'redis', 'status']);
    const me = await api(t.url, 'GET', '/api/auth/me', { token });
    expect(me.body.data).toMatchObject({ email: t.admin.email, role: 'ADMIN', isActive: true });
  });
});

describe('/api/docs', () => {
  it('serves the reference page and every file it loads from this server', async () => {
    const page = await fetch(`${t.url}${DOCS_PREFIX}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:\/\//);
    const refs = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.some((r) => /\.js$/.test(r))).toBe(true);
    expect(refs.some((r) => /\.css$/.test(r))).toBe(true);
    for (const ref of refs) {
      const url = new URL(ref, `${t.url}${DOCS_PREFIX}/`);
      expect(url.origin, ref).toBe(new URL(t.url).origin);
      const res = await fetch(url);
      expect(res.status, ref).toBe(200);
    }
    // The page reads the same document.
    const json = await fetch(`${t.url}${DOCS_PREFIX}/json`);
    expect(await json.json()).toEqual(doc);
  });
});
