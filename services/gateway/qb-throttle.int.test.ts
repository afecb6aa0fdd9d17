// QuickBooks' throttles through the product: a 1,000-vendor sync that meets
// Intuit's limit waits it out (BullMQ delays the job, its progress says "waiting") and goes on
// from the page it stopped at; twenty syncs asked for at once run as one; and two processes that
// call one realm share one limiter in Redis, so together they stay within Intuit's limits.
// Intuit's 60-second window is 2 s in the simulator here, 1 s in the product's own limiter.
import { createClient } from 'graphql-ws';
import OAuthClient from 'intuit-oauth';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { QbThrottledError, QuickBooksClient } from '../quickbooks/client.js';
import { QbRateLimiter } from '../quickbooks/rate-limit.js';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
const qbApp = { clientId: 'billflow-throttle', clientSecret: 'throttle-secret-value-654' };

const simRequests = async () =>
  (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
    at: string;
    path: string;
    status: number;
    realmId: string | null;
  }>;

beforeAll(async () => {
  // The simulator allows 8 requests a 2-second window per realm (a sync slowed by a busy host still
  // meets it); the product's own limiter is set far above it, so the simulator is the one that says
  // 429 (as Intuit does when its count differs).
  sim = await startQboSandbox({
    clients: [qbApp],
    ratePerMinute: 8,
    rateWindowSeconds: 2,
    vendorsPerRealm: [1000],
  });
  t = await startTestApp({
    env: {
      QBO_OAUTH_BASE: sim.url,
      QBO_API_BASE: sim.url,
      QBO_RATE_WINDOW_SECONDS: '1',
      QBO_RATE_PER_MINUTE: '100000',
      QBO_RATE_PER_SECOND: '1000',
    },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('a vendor sync that meets Intuit’s throttle', () => {
  let companyId = 0;
  let realmId = '';
  /**
   * The sync as its read model answers once it has ended: the live progress may say done before the
   * read model has the completion (a busy host showed 'running' there), so wait for the end itself.
   */
  const waitFor = async (syncId: string) => {
    let s: any;
    const deadline = Date.now() + 60_000;
    for (;;) {
      s = (await api(t.url, 'GET', `/api/vendors/sync/${syncId}`, { token: admin })).body.data;
      if (s.status === 'completed' || s.status === 'failed' || Date.now() > deadline) return s;
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  beforeAll(async () => {
    const c = await api(t.url, 'POST', '/api/company/companies', {
      body: { name: 'Thousand Vendors Co' },
      token: admin,
    });
    companyId = c.body.data.id as number;
    ({ realmId } = await connectOverHttp({
      gatewayUrl: t.url,
      simUrl: sim.url,
      token: admin,
      companyId,
      app: qbApp,
      realmIndex: 0,
    }));
  });

  it('waits out each 429 (progress says waiting) and finishes all 1,000 vendors from where it stopped', async () => {
    await new Promise((r) => setTimeout(r, 2100)); // the earlier calls leave the window
    const before = (await simRequests()).length;
    const asked = await api(t.url, 'POST', '/api/vendors/sync', {
      body: { companyId, limit: 50 },
      token: admin,
    });
    expect(asked.status).toBe(202);
    const syncId = asked.body.data.syncId as string;
    const progress: any[] = [];
    let planted = false;
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { token: admin },
      retryAttempts: 0,
    });
    const done = new Promise<void>((resolve, reject) => {
      client.subscribe(
        {
          query: `subscription { vendorSyncProgress(syncId: "${syncId}") { processed synced failed total done waiting resumesAt } }`,
        },
        {
          next: (v: any) => {
            const p = v.data?.vendorSyncProgress;
            progress.push(p);
            // A 429 half way, whatever the host's speed: a busy one may read slower than the
            // simulator's window allows, and never meet the limit by itself.
            if (!planted && p?.processed >= 100 && !p.done) {
              planted = true;
              void fetch(`${sim.url}/__sim/faults`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ rules: [{ path: '/query$', realmId, kind: 'throttle', count: 1 }] }),
              });
            }
            if (p?.done) resolve();
          },
          error: reject,
          complete: () => {},
        },
      );
    });
    await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error('no end')), 60_000))]);
    await client.dispose();
    expect(await waitFor(syncId)).toMatchObject({
      status: 'completed',
      synced: 1000,
      failed: 0,
      error: null,
    });
    // QuickBooks said 429 on the way, and the bar said so: waiting, and when it goes on.
    const mine = (await simRequests()).slice(before);
    const throttled = mine.filter((x) => x.path.endsWith('/query') && x.status === 429);
    expect(throttled.length).toBeGreaterThan(0);
    const waiting = progress.filter((p) => p?.waiting);
    expect(waiting.length).toBeGreaterThan(0);
    expect(Date.parse(waiting[0].resumesAt)).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ synced: 1000, failed: 0, done: true, waiting: false });
    // It went on where it stopped: every page of 50 was read once with 200 (21 pages, the last empty
    // or short), no page read again after a pause.
    const pages = mine.filter((x) => x.path.endsWith('/query') && x.status === 200);
    // count(*) once per run (the first run and each resumed one) plus 20 or 21 pages.
    expect(pages.length).toBeLessThanOrEqual(21 + 1 + throttled.length);
    const list = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}`, { token: admin });
    expect(list.body.meta.pagination.total).toBe(1000);
  }, 90_000);
  it('runs twenty syncs asked for at once as one: one sync, one job', async () => {
    // Its own company, whose QuickBooks answers slowly: the sync is surely still running when the
    // last of the twenty requests arrives.
    const c = await api(t.url, 'POST', '/api/company/companies', {
      body: { name: 'Twenty Clicks Co' },
      token: admin,
    });
    const other = c.body.data.id as number;
    const { realmId } = await connectOverHttp({
      gatewayUrl: t.url,
      simUrl: sim.url,
      token: admin,
      companyId: other,
      app: qbApp,
      realmIndex: 1,
    });
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ path: '/(query|cdc)$', realmId, latencyMs: 1500, count: 2 }] }),
    });
    const asked = await Promise.all(
      Array.from({ length: 20 }, () =>
        api(t.url, 'POST', '/api/vendors/sync', { body: { companyId: other }, token: admin }),
      ),
    );
    expect(asked.map((r) => r.status)).toEqual(asked.map(() => 202));
    const ids = new Set(asked.map((r) => r.body.data.syncId as string));
    expect(ids.size).toBe(1);
    const [syncId] = ids;
    expect(await waitFor(syncId)).toMatchObject({ status: 'completed', failed: 0, error: null });
    // Once done, a new request is a new sync.
    const next = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId: other }, token: admin });
    expect(next.body.data.syncId).not.toBe(syncId);
    await waitFor(next.body.data.syncId);
  }, 60_000);
});

describe('one limiter per realm across processes', () => {
  let redis: TestRedis;
  const extra: Redis[] = [];
  beforeAll(async () => {
    redis = await createTestRedis('qblimit');
  });
  afterAll(async () => {
    for (const r of extra) r.disconnect();
    await redis?.cleanup();
  });

  /** A token for a realm of its own simulator, through Intuit's consent as a browser gives it. */
  const connect = async (own: QboSandbox) => {
    OAuthClient.retryConfig.maxRetries = 0;
    const oauth = new OAuthClient({
      ...qbApp,
      environment: 'sandbox',
      redirectUri: 'http://127.0.0.1:9/cb',
    });
    oauth.setAuthorizeURLs({
      authorizeEndpoint: `${own.url}/connect/oauth2`,
      tokenEndpoint: `${own.url}/oauth2/v1/tokens/bearer`,
      revokeEndpoint: `${own.url}/v2/oauth2/tokens/revoke`,
      userInfoEndpoint: `${own.url}/v1/openid_connect/userinfo`,
    });
    const page = await (
      await fetch(oauth.authorizeUri({ scope: [OAuthClient.scopes.Accounting], state: 's' }))
    ).text();
    const form = page.match(/<form method="post" action="([^"]+)">(.*?)<\/form>/s)!;
    const fields = Object.fromEntries(
      [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [
        m[1],
        m[2].replace(/&#38;/g, '&'),
      ]),
    );
    const consent = await fetch(`${own.url}${form[1]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
      redirect: 'manual',
    });
    const location = consent.headers.get('location')!;
    const realmId = new URL(location).searchParams.get('realmId')!;
    const token = (await oauth.createToken(location)).getToken().access_token!;
    return { realmId, token };
  };
  /** Two "processes" on one prefix (the test's own): each its own Redis connection, limiter and client. */
  const twoProcesses = (own: QboSandbox, prefix: string, windowSeconds: number) =>
    [0, 1].map(() => {
      const conn = new Redis(redis.url, { maxRetriesPerRequest: null });
      extra.push(conn);
      const limiter = new QbRateLimiter(conn, `${redis.prefix}:${prefix}`, {
        perMinute: 30,
        perSecond: 10,
        windowSeconds,
      });
      return new QuickBooksClient({ apiBase: own.url, limiter, maxWaitMs: 5000, throttleWaitMs: 2000 });
    });
  const callAll = (processes: QuickBooksClient[], each: number, realmId: string, token: string) =>
    Promise.all(
      processes.flatMap((client) =>
        Array.from({ length: each }, () =>
          client
            .get(true, realmId, token, `companyinfo/${realmId}`)
            .then(() => 'ok')
            .catch((e) => (e instanceof QbThrottledError ? 'throttled' : String(e))),
        ),
      ),
    );
  const statuses = async (own: QboSandbox) =>
    ((await (await fetch(`${own.url}/__sim/requests`)).json()).requests as Array<{ status: number }>).map(
      (x) => x.status,
    );

  it('keeps two processes together within 10 a second and the window’s budget: QuickBooks never says 429', async () => {
    // Its own simulator with Intuit's per-second limit and a 2-second window of 30.
    const own = await startQboSandbox({ clients: [qbApp], ratePerMinute: 30, rateWindowSeconds: 2 });
    try {
      const { realmId, token } = await connect(own);
      const processes = twoProcesses(own, 'burst', 2);
      const started = Date.now();
      const outcomes = await callAll(processes, 15, realmId, token);
      expect(outcomes).toEqual(Array(30).fill('ok'));
      // 30 calls at 10 a second: three seconds' turns, not one burst.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect((await statuses(own)).filter((s) => s === 429)).toHaveLength(0);
      // The window's budget is spent: a further call is refused here, without asking QuickBooks.
      const over = await processes[0].get(true, realmId, token, `companyinfo/${realmId}`).catch((e) => e);
      // Either it waited for the window to open (<= 5 s) and went through, or it was told to wait.
      if (over instanceof Error) expect(over).toBeInstanceOf(QbThrottledError);
      expect((await statuses(own)).filter((s) => s === 429)).toHaveLength(0);
    } finally {
      await own.close();
    }
  }, 30_000);

  it('holds a turn while its answer is slow: a busy second never has Intuit count eleven at once', async () => {
    // The first ten answers take 1.3 s. Counted only when taken, the next ten would go at 1.05 s
    // while those ten are still in flight, and Intuit refuses an eleventh at once (429). Counted
    // until answered, they wait for the answers.
    const own = await startQboSandbox({ clients: [qbApp], ratePerMinute: 500, rateWindowSeconds: 60 });
    try {
      const { realmId, token } = await connect(own);
      await fetch(`${own.url}/__sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rules: [{ path: 'companyinfo', latencyMs: 1300, count: 10 }] }),
      });
      const outcomes = await callAll(twoProcesses(own, 'slow', 60), 10, realmId, token);
      expect(outcomes).toEqual(Array(20).fill('ok'));
      expect(await statuses(own)).not.toContain(429);
    } finally {
      await own.close();
    }
  }, 30_000);
});
