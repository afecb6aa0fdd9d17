// The built web app as the gateway sends it: hashed assets precompressed
// (brotli, gzip) by Accept-Encoding and cached immutable for a year; index.html, also as the SPA
// fallback of client routes, revalidated on every load.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebBuild, WEB_DIST } from '../../e2e/support/browser.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET that leaves the body as sent (fetch would decode it, hiding the encoding under test). */
function get(base: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(target, base), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

let t: TestApp;
let indexHtml: Buffer;
let entryScript: string;

beforeAll(async () => {
  await ensureWebBuild();
  indexHtml = readFileSync(path.join(WEB_DIST, 'index.html'));
  const src = /<script type="module"[^>]*src="(\/assets\/[^"]+\.js)"/.exec(indexHtml.toString())?.[1];
  if (!src) throw new Error('index.html names no entry script');
  entryScript = src;
  t = await startTestApp({ webDist: WEB_DIST });
}, 240_000);
afterAll(async () => {
  await t?.stop();
});

describe('hashed assets', () => {
  it('go out brotli-compressed to a client that accepts br, cached immutable for a year', async () => {
    const file = readFileSync(path.join(WEB_DIST, entryScript));
    const res = await get(t.url, entryScript, { 'accept-encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.body.length).toBeLessThan(file.length / 2);
    expect(brotliDecompressSync(res.body).equals(file)).toBe(true);
  });

  it('go out gzip-compressed to a client that accepts only gzip', async () => {
    const file = readFileSync(path.join(WEB_DIST, entryScript));
    const res = await get(t.url, entryScript, { 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(gunzipSync(res.body).equals(file)).toBe(true);
  });

  it('go out as the file itself to a client that accepts no encoding', async () => {
    const file = readFileSync(path.join(WEB_DIST, entryScript));
    const res = await get(t.url, entryScript);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.body.equals(file)).toBe(true);
  });

  it('a missing asset is a 404, not the app', async () => {
    const res = await get(t.url, '/assets/missing-0000000.js', { 'accept-encoding': 'br, gzip' });
    expect(res.status).toBe(404);
  });
});

describe('index.html', () => {
  it('is revalidated on every load, compressed too', async () => {
    for (const target of ['/', '/index.html']) {
      const res = await get(t.url, target, { 'accept-encoding': 'br, gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(res.body).equals(indexHtml)).toBe(true);
    }
  });

  it('is the no-cache SPA fallback of client routes such as /users', async () => {
    const res = await get(t.url, '/users', { 'accept-encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(res.body).equals(indexHtml)).toBe(true);

    const plain = await get(t.url, '/users');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(plain.body.equals(indexHtml)).toBe(true);
  });
});
