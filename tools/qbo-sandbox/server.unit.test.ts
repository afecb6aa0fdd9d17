// The simulator as Intuit behaves, driven by Intuit's own client (intuit-oauth): consent, single-use
// codes, rotation with a grace period, expiry, faults in Intuit's shapes, the per-realm limiter,
// queries, bill payments with requestid, attachment downloads.
import OAuthClient from 'intuit-oauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedRealms } from './seed.js';
import { type QboSandbox, startQboSandbox } from './server.js';

let sim: QboSandbox;
const client = { clientId: 'test-app', clientSecret: 'test-secret' };
const redirectUri = 'http://127.0.0.1:9/callback';

function oauth() {
  const c = new OAuthClient({ ...client, environment: 'sandbox', redirectUri });
  c.setAuthorizeURLs({
    authorizeEndpoint: `${sim.url}/connect/oauth2`,
    tokenEndpoint: `${sim.url}/oauth2/v1/tokens/bearer`,
    revokeEndpoint: `${sim.url}/v2/oauth2/tokens/revoke`,
    userInfoEndpoint: `${sim.url}/v1/openid_connect/userinfo`,
  });
  return c;
}

/** Consent as a person would: open the page, press the first company's button. */
async function consent(decision: 'allow' | 'deny' = 'allow') {
  const c = oauth();
  const url = c.authorizeUri({ scope: [OAuthClient.scopes.Accounting], state: 'st-1' });
  const page = await (await fetch(url)).text();
  const form = page.match(/<form method="post" action="([^"]+)">(.*?)<\/form>/s)!;
  const fields = Object.fromEntries(
    [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&#38;/g, '&')]),
  );
  const res = await fetch(`${sim.url}${form[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision }).toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(302);
  return { c, location: res.headers.get('location')! };
}

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${sim.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...init.headers },
  });

beforeAll(async () => {
  // Intuit's client retries 429/5xx on the token endpoint 3× with 1–4 s: not here.
  OAuthClient.retryConfig.maxRetries = 0;
  sim = await startQboSandbox({
    clients: [client],
    accessTtlSeconds: 3600,
    rotationGraceSeconds: 600,
    ratePerMinute: 40,
    // The per-second limit has its own test (throttle.unit.test.ts): these tests make bursts.
    ratePerSecond: 1000,
  });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(async () => {
  await fetch(`${sim.url}/__sim/reset`, { method: 'POST' });
});

describe('QuickBooks simulator', () => {
  it('connects through the consent page; the code works once, and a second use revokes the grant', async () => {
    const { c, location } = await consent();
    const back = new URL(location);
    expect(back.searchParams.get('state')).toBe('st-1');
    const realmId = back.searchParams.get('realmId')!;
    const r = await c.createToken(location);
    const token = r.getToken();
    expect(token).toMatchObject({
      token_type: 'bearer',
      expires_in: 3600,
      x_refresh_token_expires_in: 8726400,
    });
    expect((await api(`/v3/company/${realmId}/companyinfo/${realmId}`, token.access_token!)).status).toBe(
      200,
    );
    const again = await oauth()
      .createToken(location)
      .catch((e: { error?: string }) => e);
    expect((again as { error?: string }).error).toBe('invalid_grant');
    const after = await api(`/v3/company/${realmId}/companyinfo/${realmId}`, token.access_token!);
    expect(after.status).toBe(401);
  });

  it('sends a cancelled consent back with error=access_denied', async () => {
    const { location } = await consent('deny');
    expect(new URL(location).searchParams.get('error')).toBe('access_denied');
  });

  it('rotates refresh tokens: the old one works within the grace period, then invalid_grant', async () => {
    const { c, location } = await consent();
    const first = (await c.createToken(location)).getToken();
    const second = (await oauth().refreshUsingToken(first.refresh_token!)).getToken();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // Within the grace: still good (a parallel worker that had the old one).
    await oauth().refreshUsingToken(first.refresh_token!);
    await fetch(`${sim.url}/__sim/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: 601 }),
    });
    const late = await oauth()
      .refreshUsingToken(first.refresh_token!)
      .catch((e: { error?: string }) => e);
    expect((late as { error?: string }).error).toBe('invalid_grant');
  });

  it('answers an expired access token with Intuit’s lowercase 401 fault, and a foreign realm with code 100', async () => {
    const { c, location } = await consent();
    const realmId = new URL(location).searchParams.get('realmId')!;
    const token = (await c.createToken(location)).getToken().access_token!;
    const other = (await (await fetch(`${sim.url}/__sim/realms`)).json()).realms.find(
      (r: { realmId: string }) => r.realmId !== realmId,
    ).realmId;
    const foreign = await api(`/v3/company/${other}/companyinfo/${other}`, token);
    expect(foreign.status).toBe(401);
    // Intuit answers a foreign realm in XML whatever the Accept header (intuit/oauth-jsclient#91).
    expect(foreign.headers.get('content-type')).toMatch(/xml/);
    expect(await foreign.text()).toMatch(/<Fault type="AuthenticationFault"><Error code="100">/);
    await fetch(`${sim.url}/__sim/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: 3601 }),
    });
    const expired = await api(`/v3/company/${realmId}/companyinfo/${realmId}`, token);
    expect(expired.status).toBe(401);
    const body = await expired.json();
    expect(body.fault.type).toBe('AUTHENTICATION');
    expect(body.fault.error[0].code).toBe('3200');
  });

  it('queries with paging, count and filters; pays a bill once per requestid; serves its PDF', async () => {
    const { c, location } = await consent();
    const realmId = new URL(location).searchParams.get('realmId')!;
    const token = (await c.createToken(location)).getToken().access_token!;
    const q = async (query: string) =>
      (await (await api(`/v3/company/${realmId}/query?query=${encodeURIComponent(query)}`, token)).json())
        .QueryResponse;
    const count = (await q('select count(*) from Bill')).totalCount;
    expect(count).toBeGreaterThanOrEqual(70);
    const page = await q('select * from Bill startposition 11 maxresults 10');
    expect(page).toMatchObject({ startPosition: 11, maxResults: 10 });
    expect(await q("select * from Bill where DocNumber = 'nope'")).toEqual({});
    const banks = (await q("select * from Account where AccountType = 'Bank' and Active = true")).Account;
    expect(banks.length).toBeGreaterThanOrEqual(2);
    expect(
      banks.every((a: { Active: boolean; AccountType: string }) => a.Active && a.AccountType === 'Bank'),
    ).toBe(true);
    const bill = (await q('select * from Bill maxresults 1')).Bill[0];
    const pay = (requestid: string, amount: number) =>
      api(`/v3/company/${realmId}/billpayment?requestid=${requestid}`, token, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          VendorRef: bill.VendorRef,
          PayType: 'Check',
          CheckPayment: { BankAccountRef: { value: banks[0].Id } },
          TotalAmt: amount,
          Line: [{ Amount: amount, LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }] }],
        }),
      });
    const first = await (await pay('r-1', bill.Balance)).json();
    const replay = await (await pay('r-1', bill.Balance)).json();
    expect(replay.BillPayment.Id).toBe(first.BillPayment.Id);
    const paid = (await q(`select * from Bill where Id = '${bill.Id}'`)).Bill[0];
    expect(paid.Balance).toBe(0);
    expect(paid.LinkedTxn).toEqual([{ TxnId: first.BillPayment.Id, TxnType: 'BillPaymentCheck' }]);
    const over = await pay('r-2', 1);
    expect(over.status).toBe(400);
    expect((await over.json()).Fault.type).toBe('ValidationFault');
    const att = (await q(`select * from Attachable where AttachableRef.EntityRef.Type = 'Bill' maxresults 1`))
      .Attachable[0];
    const link = await (await api(`/v3/company/${realmId}/download/${att.Id}`, token)).text();
    const pdf = await fetch(link);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect((await pdf.text()).startsWith('%PDF-1.4')).toBe(true);
  });

  it('limits each realm (429 code 3001) and injects faults on request', async () => {
    const { c, location } = await consent();
    const realmId = new URL(location).searchParams.get('realmId')!;
    const token = (await c.createToken(location)).getToken().access_token!;
    const info = () => api(`/v3/company/${realmId}/companyinfo/${realmId}`, token);
    // Slow answers, so that 12 calls are in flight at once: the eleventh and twelfth are refused.
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ path: '/companyinfo/', latencyMs: 300, count: 12 }] }),
    });
    const statuses = await Promise.all(Array.from({ length: 12 }, info).map(async (r) => (await r).status));
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clear: true }),
    });
    for (let i = 0; i < 30; i++) await info();
    const limited = await info();
    expect(limited.status).toBe(429);
    expect((await limited.json()).Fault.Error[0].code).toBe('3001');
    await fetch(`${sim.url}/__sim/reset`, { method: 'POST' });
    const fresh = await consent();
    const t2 = (await fresh.c.createToken(fresh.location)).getToken().access_token!;
    const realm2 = new URL(fresh.location).searchParams.get('realmId')!;
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ path: '/companyinfo/', kind: 'server', count: 1 }] }),
    });
    expect((await api(`/v3/company/${realm2}/companyinfo/${realm2}`, t2)).status).toBe(500);
    expect((await api(`/v3/company/${realm2}/companyinfo/${realm2}`, t2)).status).toBe(200);
    const log = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests;
    expect(log.some((r: { status: number }) => r.status === 500)).toBe(true);
  });
});

describe('QuickBooks sandbox seed', () => {
  it('draws 70 – 109 open bills a realm, or as many as asked (the approvals benchmark asks 240)', () => {
    for (const r of seedRealms()) expect(r.bills.length).toBeGreaterThanOrEqual(70);
    for (const r of seedRealms()) expect(r.bills.length).toBeLessThan(110);
    const asked = seedRealms({ billsPerRealm: 240 });
    expect(asked.map((r) => r.bills.filter((b) => b.Balance > 0).length)).toEqual(asked.map(() => 240));
  });
});
