// The simulator's throttles and error shapes as Intuit's: 10 requests a
// second per realm and app, N a window per realm, a 429 that asks for the window's wait in
// `retry-after` with Intuit's ThrottleExceeded fault, and 403 code 3100 in Intuit's lowercase shape.
import OAuthClient from 'intuit-oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantFromConsent } from './connect.js';
import { type QboSandbox, startQboSandbox } from './server.js';

let sim: QboSandbox;
const apps = [
  { clientId: 'app-one', clientSecret: 'secret-one' },
  { clientId: 'app-two', clientSecret: 'secret-two' },
];
const redirectUri = 'http://127.0.0.1:9/callback';

/** A token of `app` for the first company of the consent page. */
async function tokenFor(app: (typeof apps)[number]) {
  const { realmId, accessToken } = await grantFromConsent(sim.url, app, redirectUri);
  return { realmId, token: accessToken };
}

const info = (realmId: string, token: string) =>
  fetch(`${sim.url}/v3/company/${realmId}/companyinfo/${realmId}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });

const post = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  OAuthClient.retryConfig.maxRetries = 0;
  sim = await startQboSandbox({ clients: apps, ratePerMinute: 25, rateWindowSeconds: 2 });
});
afterAll(async () => {
  await sim?.close();
});

describe('QuickBooks simulator throttles as Intuit does', () => {
  it('allows 10 requests a second per realm and app; the 11th gets 429 with Intuit’s fault and wait', async () => {
    const one = await tokenFor(apps[0]);
    const two = await tokenFor(apps[1]);
    expect(two.realmId).toBe(one.realmId);
    const statuses: number[] = [];
    let refused: Response | null = null;
    for (let i = 0; i < 11; i++) {
      const r = await info(one.realmId, one.token);
      statuses.push(r.status);
      if (r.status === 429) refused = r;
      else await r.arrayBuffer();
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Intuit: wait 60 s (here the window is 2 s); the header carries it in seconds.
    expect(refused!.headers.get('retry-after')).toBe('2');
    expect(refused!.headers.get('intuit_tid')).toBeTruthy();
    const body = await refused!.json();
    expect(body.Fault.type).toBe('SERVICE');
    expect(body.Fault.Error[0]).toMatchObject({
      code: '3001',
      Message: 'message=ThrottleExceeded; errorCode=003001; statusCode=429',
    });
    // The per-second limit is per realm *and app*: another app on the realm still gets through.
    expect((await info(two.realmId, two.token)).status).toBe(200);
  });

  it('refuses past the window’s budget per realm until the window passes', async () => {
    // Its own simulator: no per-second limit in the way, a one-second window.
    const main = sim;
    sim = await startQboSandbox({
      clients: apps,
      ratePerMinute: 25,
      ratePerSecond: 1000,
      rateWindowSeconds: 1,
    });
    try {
      const one = await tokenFor(apps[0]);
      let ok = 0;
      let last: Response | null = null;
      for (let i = 0; i < 40 && last?.status !== 429; i++) {
        last = await info(one.realmId, one.token);
        if (last.status === 200) ok++;
        if (last.status !== 429) await last.arrayBuffer();
      }
      expect(ok).toBe(25);
      expect(last!.status).toBe(429);
      expect(last!.headers.get('retry-after')).toBe('1');
      await new Promise((res) => setTimeout(res, 1100));
      expect((await info(one.realmId, one.token)).status).toBe(200);
    } finally {
      await sim.close();
      sim = main;
    }
  });

  it('answers 403 code 3100 in Intuit’s lowercase shape, or as XML', async () => {
    await post('/__sim/reset', {});
    const one = await tokenFor(apps[0]);
    await post('/__sim/faults', {
      rules: [
        { path: '/companyinfo/', kind: 'forbidden', count: 1 },
        { path: '/companyinfo/', kind: 'forbidden', xml: true, count: 1 },
      ],
    });
    const json = await info(one.realmId, one.token);
    expect(json.status).toBe(403);
    expect((await json.json()).fault.error[0]).toMatchObject({
      code: '3100',
      message: 'message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403',
    });
    const xml = await info(one.realmId, one.token);
    expect(xml.status).toBe(403);
    expect(await xml.text()).toMatch(/<Error code="3100"><Message>message=AuthorizationFailed/);
  });
});
