// GraphiQL works with no internet: the page at GET /graphql names only files this
// server sends, and each of them (the bundle, its styles, Monaco's workers) answers 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

describe('GraphiQL at /graphql', () => {
  it('loads every script and stylesheet from this server', async () => {
    const origin = new URL(t.url).origin;
    const page = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toMatch(/<div id="?root"?/);

    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
    const sources = scripts
      .map((attrs) => /\ssrc=["']?([^"'\s>]+)/.exec(attrs)?.[1])
      .filter((s) => s !== undefined);
    const links = [...html.matchAll(/<link\b[^>]*\shref=["']?([^"'\s>]+)/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThanOrEqual(1);
    expect(links.some((l) => l.endsWith('.css'))).toBe(true);

    const loaded = new Map<string, string>();
    for (const ref of [...sources, ...links]) {
      const url = new URL(ref, `${t.url}/graphql`);
      expect(url.origin, ref).toBe(origin);
      const res = await fetch(url);
      expect(res.status, ref).toBe(200);
      loaded.set(ref, await res.text());
    }
    // Each <script> either names a file or holds data (the options), never code of its own.
    for (const attrs of scripts)
      expect(/\ssrc=/.test(attrs) || /type="?application\/json/.test(attrs)).toBe(true);
    // The bundle itself (GraphiQL and Monaco) is among them, not a loader that fetches it elsewhere.
    const bundle = [...loaded.values()].find(
      (body) => body.includes('renderYogaGraphiQL') && body.length > 1e6,
    );
    expect(bundle).toBeDefined();

    // Monaco's editor workers, named by the page's small environment script, come from here too.
    const env = [...loaded.values()].find(
      (body) => body.includes('MonacoEnvironment') && body.length < 10_000,
    );
    expect(env).toBeDefined();
    const base = /['"](\/graphql\/graphiql\/[^'"]+)['"]/.exec(env as string)?.[1];
    const workerUrls = [...(env as string).matchAll(/['"](\/[\w.-]+\.worker\.js)['"]/g)].map(
      (m) => `${base}${m[1]}`,
    );
    expect(workerUrls.length).toBe(3);
    for (const w of workerUrls) {
      const res = await fetch(new URL(w, t.url));
      expect(res.status, w).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/javascript/);
    }
  });

  it('sends the bundle compressed and cacheable', async () => {
    const html = await (await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    const src = /<script src="([^"]*graphiql\.js)"/.exec(html)?.[1];
    expect(src).toBeDefined();
    const res = await fetch(new URL(src as string, t.url), { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect((await res.text()).length).toBeGreaterThan(1e6);
  });
});
