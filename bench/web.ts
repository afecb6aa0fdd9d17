// The web figures of `npm run bench`: the JavaScript /login needs, as the gateway sends it,
// and /login's Largest Contentful Paint under Lighthouse's mobile throttling, in Debian's Chromium.
//
// The product runs as deployed (bench/processes.ts), its gateway serving a production build of the
// web app. `BENCH_WEB_DIST=<dir>` measures an existing build instead (e.g. an older one, for a
// before/after comparison). The LCP is judged against its floor, measured in turn with it: a blank
// page's LCP (one line of text, no style, no script) under the same throttling in the same browser,
// what the host, the browser and the throttled network charge for any page at all.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/support/browser.js';
import { ROOT } from '../tools/local-services.js';
import { startRole } from './processes.js';

/**
 * Lighthouse's mobile preset (simulated throttling): 150 ms RTT, 1,638.4 kbit/s down, 675 kbit/s up,
 * 4× CPU slowdown, on a 412×823 screen at 1.75 device pixels per CSS pixel. Applied through CDP.
 */
export const MOBILE_THROTTLING = {
  latencyMs: 150,
  downloadBytesPerSecond: (1_638.4 * 1000) / 8,
  uploadBytesPerSecond: (675 * 1000) / 8,
  cpuSlowdown: 4,
  viewport: { width: 412, height: 823 },
  deviceScaleFactor: 1.75,
};

export interface ScriptTransfer {
  path: string;
  /** Body bytes as sent to a client that accepts br and gzip (what a browser gets). */
  sent: number;
  encoding: string;
  /** Body bytes as sent to a client that accepts gzip only. */
  gzip: number;
  /** The file itself. */
  raw: number;
}

export interface WebFigures {
  /** The JS /login loads before it can render and run the sign-in form. */
  loginScripts: ScriptTransfer[];
  loginSent: number;
  loginGzip: number;
  loginRaw: number;
  /** LCP of each cold load, milliseconds. */
  lcpRuns: number[];
  lcpMedian: number;
  lcpElement: string;
  /** The floor: a blank page's LCP in each cold load, in turn with /login's, milliseconds. */
  blankLcpRuns: number[];
  blankLcpMedian: number;
  /** /login's median LCP over the blank page's. */
  lcpRatio: number;
  /** Every script a throttled /login load fetched in its first seconds (idle prefetches included). */
  browserScripts: { path: string; encodedBytes: number }[];
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(url: string, acceptEncoding: string | null): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function decoded(res: RawResponse): Buffer {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.body);
  if (encoding === 'gzip') return gunzipSync(res.body);
  return res.body;
}

/**
 * The JS that /login needs, fetched as a browser would: the page's module script and the modules it
 * preloads (Vite lists every static import of the entry as a modulepreload), over HTTP through the
 * gateway. Lazy chunks (router, shell, screens, toasts) are not in the page and do not count.
 */
export async function measureLoginScripts(base: string): Promise<ScriptTransfer[]> {
  const page = await get(`${base}/login`, 'br, gzip');
  if (page.status !== 200) throw new Error(`/login answered ${page.status}`);
  const html = decoded(page).toString('utf8');
  const paths = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) paths.add(m[1]);
  for (const m of html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)) paths.add(m[1]);
  const transfers: ScriptTransfer[] = [];
  for (const p of paths) {
    const url = new URL(p, base).href;
    const [sent, gzip, raw] = await Promise.all([get(url, 'br, gzip'), get(url, 'gzip'), get(url, null)]);
    if (sent.status !== 200) throw new Error(`${p} answered ${sent.status}`);
    transfers.push({
      path: p,
      sent: sent.body.length,
      encoding: String(sent.headers['content-encoding'] ?? 'identity'),
      gzip: gzip.body.length,
      raw: raw.body.length,
    });
  }
  return transfers;
}

interface LoadResult {
  lcp: number;
  element: string;
  scripts: { path: string; encodedBytes: number }[];
}

/** The floor's page: what any page needs to paint (a line of text), laid out for a phone as /login is. */
const BLANK_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in</title></head><body><h1>Sign in</h1></body></html>';

/** Serves BLANK_PAGE on a loopback port of its own. */
async function blankServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(BLANK_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * One cold load in a fresh context (no cache, no connections) under mobile throttling: /login of
 * `base`, or the blank page at `blankUrl` (the floor).
 */
async function throttledLoad(
  browser: import('playwright-core').Browser,
  base: string,
  blankUrl?: string,
): Promise<LoadResult> {
  const t = MOBILE_THROTTLING;
  const context = await browser.newContext({
    viewport: t.viewport,
    deviceScaleFactor: t.deviceScaleFactor,
    isMobile: true,
    hasTouch: true,
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: t.latencyMs,
      downloadThroughput: t.downloadBytesPerSecond,
      uploadThroughput: t.uploadBytesPerSecond,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: t.cpuSlowdown });
    const scriptUrls = new Map<string, string>();
    const scripts: LoadResult['scripts'] = [];
    cdp.on('Network.responseReceived', (e) => {
      if (e.type === 'Script') scriptUrls.set(e.requestId, new URL(e.response.url).pathname);
    });
    cdp.on('Network.loadingFinished', (e) => {
      const p = scriptUrls.get(e.requestId);
      if (p) scripts.push({ path: p, encodedBytes: e.encodedDataLength });
    });

    if (blankUrl) {
      await page.goto(blankUrl, { waitUntil: 'load', timeout: 60_000 });
      await page.waitForTimeout(1000);
    } else {
      await page.goto(`${base}/login`, { waitUntil: 'load', timeout: 60_000 });
      await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 60_000 });
      // LCP is final once the page has painted its content; idle prefetches then finish too.
      await page.waitForTimeout(3000);
    }
    const { lcp, element } = await page.evaluate(
      () =>
        new Promise<{ lcp: number; element: string }>((resolve, reject) => {
          new PerformanceObserver((list) => {
            const entries = list.getEntries() as (PerformanceEntry & { element?: Element | null })[];
            const last = entries[entries.length - 1];
            const el = last?.element;
            resolve({
              lcp: last.startTime,
              // No element: it has left the page since (the prerendered sign-in screen, which React
              // replaces once it runs).
              element: el
                ? `<${el.tagName.toLowerCase()}> ${(el.textContent ?? '').trim().slice(0, 40)}`
                : 'prerendered, since replaced',
            });
          }).observe({ type: 'largest-contentful-paint', buffered: true });
          setTimeout(() => reject(new Error('no largest-contentful-paint entry')), 5000);
        }),
    );
    return { lcp, element, scripts };
  } finally {
    await context.close();
  }
}

/** Builds the web app into .local/bench-web (web/dist is left to the browser tests). */
function buildWeb(): string {
  const outDir = path.join(ROOT, '.local', 'bench-web');
  const build = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'web/vite.config.ts',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'error',
    ],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  );
  if (build.status !== 0) throw new Error('the web build failed');
  return outDir;
}

export async function benchWeb(options: { env: Record<string, string>; runs: number }): Promise<WebFigures> {
  const dist = process.env.BENCH_WEB_DIST ? path.resolve(process.env.BENCH_WEB_DIST) : buildWeb();
  // As deployed: the projector (which prepares the read models the gateway's start-up reads) and the
  // gateway.
  const projector = await startRole('projector', options.env);
  const gateway = await startRole('gateway', { ...options.env, WEB_DIST: dist }).catch(async (err) => {
    await projector.stop();
    throw err;
  });
  try {
    const base = gateway.url!;
    const loginScripts = await measureLoginScripts(base);
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const blank = await blankServer();
    const loads: LoadResult[] = [];
    const blankLoads: LoadResult[] = [];
    try {
      // In turn: both see the same phases of the host.
      for (let i = 0; i < options.runs; i++) {
        loads.push(await throttledLoad(browser, base));
        blankLoads.push(await throttledLoad(browser, base, blank.url));
      }
    } finally {
      await browser.close();
      await blank.close();
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const lcps = loads.map((l) => l.lcp);
    const blankLcps = blankLoads.map((l) => l.lcp);
    const sum = (k: 'sent' | 'gzip' | 'raw') => loginScripts.reduce((n, s) => n + s[k], 0);
    return {
      loginScripts,
      loginSent: sum('sent'),
      loginGzip: sum('gzip'),
      loginRaw: sum('raw'),
      lcpRuns: lcps,
      lcpMedian: median(lcps),
      lcpElement: loads[0]?.element ?? '?',
      blankLcpRuns: blankLcps,
      blankLcpMedian: median(blankLcps),
      lcpRatio: median(lcps) / median(blankLcps),
      browserScripts: loads[0]?.scripts ?? [],
    };
  } finally {
    await gateway.stop();
    await projector.stop();
  }
}
