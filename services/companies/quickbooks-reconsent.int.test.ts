// The refresh token's hard expiry against the simulator: the client asks Intuit for
// it (includeRefreshTokenHardExpiresIn), the product stores it and the token status says when the
// company must consent again; the refresh job records a warning once it is less than a week away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
const BASE = '/api/company/companies';
// Access tokens of 8 s: the refresh job's turn comes within the test.
const quick = { clientId: 'billflow-reconsent', clientSecret: 'reconsent-secret-value', accessTtlSeconds: 8 };
const DAY = 86_400_000;

async function connect(name: string, through: QboSandbox, realmIndex: number) {
  const c = await api(t.url, 'POST', BASE, { body: { name }, token: admin });
  const id = c.body.data.id as number;
  const start = await api(t.url, 'POST', `${BASE}/${id}/qb-oauth/start`, {
    body: {
      qbClientId: quick.clientId,
      qbClientSecret: quick.clientSecret,
      qbIsSandbox: true,
      qbCallbackUrl: `${t.url}${BASE}/qb-oauth/callback`,
    },
    token: admin,
  });
  const page = await (await fetch(start.body.data.authUrl)).text();
  const form = [...page.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)][realmIndex];
  const fields = Object.fromEntries(
    [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&#38;/g, '&')]),
  );
  const consent = await fetch(`${through.url}${form[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
    redirect: 'manual',
  });
  expect(await (await fetch(consent.headers.get('location')!)).text()).toContain('QB_OAUTH_SUCCESS');
  return id;
}

const status = async (id: number) =>
  (await api(t.url, 'GET', `${BASE}/${id}/qb-token-status`, { token: admin })).body.data;

beforeAll(async () => {
  // The simulator's grants get a six-day hard cap (Intuit's is five years): the week's warning is due.
  sim = await startQboSandbox({ clients: [quick], refreshHardTtlSeconds: 6 * 86_400 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('refresh-token hard expiry', () => {
  it('stores when re-consent is needed, and the refresh job warns a week before', async () => {
    const id = await connect('Five Years Co', sim, 0);
    const first = await status(id);
    expect(first.hasTokens).toBe(true);
    const by = Date.parse(first.reconsentBy);
    expect(by).toBeGreaterThan(Date.now() + 6 * DAY - 60_000);
    expect(by).toBeLessThan(Date.now() + 6 * DAY + 60_000);
    expect(first.reconsentDue).toBe(false);
    // The refresh job (8-second tokens) finds the cap within a week and records the warning, once.
    await expect
      .poll(async () => (await status(id)).reconsentDue, { timeout: 20_000, interval: 500 })
      .toBe(true);
    const after = await status(id);
    // A refresh keeps the consent's cap: the date does not move.
    expect(Math.abs(Date.parse(after.reconsentBy) - by)).toBeLessThan(5_000);
  });
});
