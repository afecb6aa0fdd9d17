// The QuickBooks connection's edges against the simulator, through the
// product's REST calls: one realm per company (refused with the holder's name, also when two
// callbacks race), a callback whose realmId was edited by hand, an abandoned OAuth start with a
// wrong secret, the callback URL's host, the payment account among the realm's bank accounts, and
// removing the credentials or deleting the company revoking the grant at Intuit's revoke path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { qb } from './quickbooks.js';
import { QB_REALMS_STREAM, realmsDecider } from './realms-decider.js';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
const app = { clientId: 'billflow-edges', clientSecret: 'edges-secret-value-123' };
const BASE = '/api/company/companies';
const CALLBACK = () => `${t.url}${BASE}/qb-oauth/callback`;

async function company(name: string) {
  const c = await api(t.url, 'POST', BASE, { body: { name }, token: admin });
  expect(c.status).toBe(201);
  return c.body.data.id as number;
}

/** Starts the flow and consents on the simulator's page: the callback URL, not yet loaded. */
async function consent(id: number, realmIndex: number, creds = app) {
  const start = await api(t.url, 'POST', `${BASE}/${id}/qb-oauth/start`, {
    body: {
      qbClientId: creds.clientId,
      qbClientSecret: creds.clientSecret,
      qbIsSandbox: true,
      qbCallbackUrl: CALLBACK(),
    },
    token: admin,
  });
  expect(start.status).toBe(200);
  const page = await (await fetch(start.body.data.authUrl)).text();
  const form = [...page.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)][realmIndex];
  const fields = Object.fromEntries(
    [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&#38;/g, '&')]),
  );
  const res = await fetch(`${sim.url}${form[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
    redirect: 'manual',
  });
  return { callback: res.headers.get('location')!, realmId: fields.realmId };
}

const load = async (url: string) => (await fetch(url)).text();
const get = async (id: number) => (await api(t.url, 'GET', `${BASE}/${id}`, { token: admin })).body.data;

/** What the simulator says of a company's stored tokens now: the API call's and the refresh's status. */
async function tokensWork(
  tokens: { realmId: string; accessToken: string; refreshToken: string },
  withRefresh = true,
) {
  const call = await fetch(`${sim.url}/v3/company/${tokens.realmId}/companyinfo/${tokens.realmId}`, {
    headers: { authorization: `Bearer ${tokens.accessToken}`, accept: 'application/json' },
  });
  if (!withRefresh) return { api: call.status, refresh: 0, refreshBody: null };
  const refresh = await fetch(`${sim.url}/oauth2/v1/tokens/bearer`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken }).toString(),
  });
  return { api: call.status, refresh: refresh.status, refreshBody: await refresh.json() };
}

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [app] });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('one QuickBooks realm per company', () => {
  let sunrise: number;
  let sunriseRealm: string;

  it('refuses a second company on a realm another holds, naming the holder', async () => {
    sunrise = await company('Sunrise Edge Bakery');
    const first = await consent(sunrise, 0);
    sunriseRealm = first.realmId;
    expect(await load(first.callback)).toContain('QB_OAUTH_SUCCESS');
    const intruder = await company('Intruder Co');
    const second = await consent(intruder, 0);
    expect(second.realmId).toBe(sunriseRealm);
    const page = await load(second.callback);
    expect(page).toContain('QB_OAUTH_ERROR');
    expect(page).toContain('Sunrise Edge Bakery');
    expect(await get(intruder)).toMatchObject({ qbConnectionStatus: null, qbRealmId: null });
    expect(await get(sunrise)).toMatchObject({ qbConnectionStatus: 'connected', qbRealmId: sunriseRealm });
    const status = await api(t.url, 'GET', `${BASE}/${intruder}/qb-token-status`, { token: admin });
    expect(status.body.data.hasTokens).toBe(false);
    // The holder is untouched: its QuickBooks calls still work.
    const info = await api(t.url, 'GET', `/api/quickbooks/${sunrise}/company-info`, { token: admin });
    expect(info.status).toBe(200);
  });

  it('counts a connection made before realms were claimed (no claim on the stream) as holding its realm', async () => {
    // As a log from before this rule: Sunrise connected, and no claim for its realm.
    await t.started.app.commands.handle(
      realmsDecider,
      QB_REALMS_STREAM,
      { type: 'ReleaseRealm', companyId: sunrise, realmId: sunriseRealm, now: new Date().toISOString() },
      { userId: null },
    );
    const late = await company('Late Intruder Co');
    const page = await load((await consent(late, 0)).callback);
    expect(page).toContain('QB_OAUTH_ERROR');
    expect(page).toContain('Sunrise Edge Bakery');
    expect(await get(late)).toMatchObject({ qbConnectionStatus: null });
  });

  it('lets exactly one of two racing callbacks for one realm connect', async () => {
    const a = await company('Racer A');
    const b = await company('Racer B');
    const [ca, cb] = await Promise.all([consent(a, 1), consent(b, 1)]);
    const pages = await Promise.all([load(ca.callback), load(cb.callback)]);
    expect(pages.filter((p) => p.includes('QB_OAUTH_SUCCESS'))).toHaveLength(1);
    const statuses = [(await get(a)).qbConnectionStatus, (await get(b)).qbConnectionStatus];
    expect(statuses.filter((s) => s === 'connected')).toHaveLength(1);
  });

  it('refuses a callback whose realmId was edited by hand: the code is bound to its own realm', async () => {
    const id = await company('Edited Realm Co');
    const { callback, realmId } = await consent(id, 2);
    const edited = new URL(callback);
    const other = (await (await fetch(`${sim.url}/__sim/realms`)).json()).realms[3].realmId as string;
    expect(other).not.toBe(realmId);
    edited.searchParams.set('realmId', other);
    const page = await load(edited.toString());
    expect(page).toContain('QB_OAUTH_ERROR');
    expect(await get(id)).toMatchObject({ qbConnectionStatus: null, qbRealmId: null });
  });

  it('keeps the working connection when an OAuth start with a wrong secret is abandoned', async () => {
    const start = await api(t.url, 'POST', `${BASE}/${sunrise}/qb-oauth/start`, {
      body: {
        qbClientId: 'someone-elses-app',
        qbClientSecret: 'a-wrong-secret',
        qbIsSandbox: true,
        qbCallbackUrl: CALLBACK(),
      },
      token: admin,
    });
    expect(start.status).toBe(200);
    // The popup was closed: no callback ever comes.
    expect(await get(sunrise)).toMatchObject({ qbConnectionStatus: 'connected', qbRealmId: sunriseRealm });
    const creds = await api(t.url, 'GET', `${BASE}/${sunrise}/qb-credentials`, { token: admin });
    expect(creds.body.data).toMatchObject({ hasCredentials: true, qbClientId: app.clientId });
    const refreshed = await api(t.url, 'POST', `${BASE}/${sunrise}/refresh-qb-token`, { token: admin });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.hasTokens).toBe(true);
  });

  it("refuses a callback URL on another host than the product's own", async () => {
    const r = await api(t.url, 'POST', `${BASE}/${sunrise}/qb-oauth/start`, {
      body: {
        qbClientId: app.clientId,
        qbClientSecret: app.clientSecret,
        qbIsSandbox: true,
        qbCallbackUrl: `https://attacker.example${BASE}/qb-oauth/callback`,
      },
      token: admin,
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(JSON.stringify(r.body)).toContain("must be on this Billflow's own address");
    // The same through GraphQL.
    const g = await gql(
      t.url,
      'mutation($id: Int!, $url: String!) { startQbOAuth(companyId: $id, qbClientId: "a", qbClientSecret: "b", qbCallbackUrl: $url) }',
      { id: sunrise, url: `https://attacker.example${BASE}/qb-oauth/callback` },
      admin,
    );
    expect(JSON.stringify(g.errors)).toContain("must be on this Billflow's own address");
    const own = await gql(
      t.url,
      'mutation($id: Int!, $url: String!) { startQbOAuth(companyId: $id, qbClientId: "a", qbClientSecret: "b", qbCallbackUrl: $url) }',
      { id: sunrise, url: CALLBACK() },
      admin,
    );
    expect(own.errors).toBeUndefined();
  });

  it("accepts only one of the company's active QuickBooks bank accounts as its payment account", async () => {
    const info = await api(t.url, 'GET', `/api/quickbooks/${sunrise}/company-info`, { token: admin });
    const bank = info.body.data.QueryResponse.Account[0].Id as string;
    const realm = sim.realms()[0];
    const notBank = realm.accounts.find((a) => a.AccountType !== 'Bank')!.Id;
    for (const reference of ['99999', notBank]) {
      const r = await api(t.url, 'PUT', `${BASE}/${sunrise}/payment-account`, {
        body: { qbPaymentAccountReference: reference },
        token: admin,
      });
      expect(r.status, reference).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(r.body)).toContain('bank accounts in QuickBooks');
    }
    expect((await get(sunrise)).qbPaymentAccountReference).toBeNull();
    const ok = await api(t.url, 'PUT', `${BASE}/${sunrise}/payment-account`, {
      body: { qbPaymentAccountReference: bank },
      token: admin,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.qbPaymentAccountReference).toBe(bank);
  });

  it('a PUT of the form with only a name keeps the assignments and the payment account; null clears them', async () => {
    const info = await api(t.url, 'GET', `/api/quickbooks/${sunrise}/company-info`, { token: admin });
    const bank = info.body.data.QueryResponse.Account[0].Id as string;
    const me = (await api(t.url, 'GET', '/api/auth/me', { token: admin })).body.data.id as number;
    const manager = await api(t.url, 'POST', '/api/manager/managers', {
      body: { firstName: 'Edge', lastName: 'Manager', email: 'edge.manager@edges.test' },
      token: admin,
    });
    const assignments = {
      managerId: manager.body.data.id as number,
      processorId: me,
      approverId: me,
      accountantId: me,
    };
    const assigned = await api(t.url, 'PUT', `${BASE}/${sunrise}/assignments`, {
      body: assignments,
      token: admin,
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    const account = await api(t.url, 'PUT', `${BASE}/${sunrise}/payment-account`, {
      body: { qbPaymentAccountReference: bank },
      token: admin,
    });
    expect(account.status).toBe(200);
    const renamed = await api(t.url, 'PUT', `${BASE}/${sunrise}`, {
      body: { name: 'Sunrise Edge Bakery & Co' },
      token: admin,
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data).toMatchObject({
      name: 'Sunrise Edge Bakery & Co',
      ...assignments,
      qbPaymentAccountReference: bank,
    });
    expect(await get(sunrise)).toMatchObject({ ...assignments, qbPaymentAccountReference: bank });
    // Given as null, each is cleared.
    const cleared = await api(t.url, 'PUT', `${BASE}/${sunrise}`, {
      body: {
        name: 'Sunrise Edge Bakery',
        managerId: null,
        processorId: null,
        approverId: null,
        accountantId: null,
        qbPaymentAccountReference: null,
      },
      token: admin,
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.data).toMatchObject({
      managerId: null,
      processorId: null,
      approverId: null,
      accountantId: null,
      qbPaymentAccountReference: null,
    });
    // The route's documentation says so.
    const doc = (await (await fetch(`${t.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { description?: string }>>;
    };
    const put = doc.paths['/api/company/companies/{id}'].put;
    expect(put.description).toMatch(/keep their value when absent and are cleared only when given as null/);
  });
});

describe('disconnecting revokes the grant at Intuit', () => {
  it('removing the credentials revokes the grant (401 and invalid_grant after) and frees the realm', async () => {
    const id = await company('Revoke Me Co');
    const { callback } = await consent(id, 3);
    expect(await load(callback)).toContain('QB_OAUTH_SUCCESS');
    const tokens = (await qb(t.started.app).connections.get(id))!.tokens!;
    expect((await tokensWork(tokens, false)).api).toBe(200);
    const before = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests.length;
    const r = await api(t.url, 'DELETE', `${BASE}/${id}/qb-credentials`, { token: admin });
    expect(r.status).toBe(200);
    const calls = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests.slice(before);
    expect(calls).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/v2/oauth2/tokens/revoke', status: 200 }),
    );
    const after = await tokensWork(tokens);
    expect(after.api).toBe(401);
    expect(after.refresh).toBe(400);
    expect(after.refreshBody.error).toBe('invalid_grant');
    // The realm is free again: another company may connect to it.
    const next = await company('Next On Realm Co');
    const again = await consent(next, 3);
    expect(await load(again.callback)).toContain('QB_OAUTH_SUCCESS');
  });

  it('deleting the company revokes its grant too', async () => {
    const id = (await api(t.url, 'GET', `${BASE}?limit=50`, { token: admin })).body.data.find(
      (c: { name: string }) => c.name === 'Next On Realm Co',
    ).id as number;
    const tokens = (await qb(t.started.app).connections.get(id))!.tokens!;
    expect((await tokensWork(tokens, false)).api).toBe(200);
    const r = await api(t.url, 'DELETE', `${BASE}/${id}`, { token: admin });
    expect(r.status).toBeLessThan(300);
    const after = await tokensWork(tokens);
    expect(after.api).toBe(401);
    expect(after.refreshBody.error).toBe('invalid_grant');
  });
});
