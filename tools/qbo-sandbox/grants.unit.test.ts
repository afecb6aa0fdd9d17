// The simulator's grants as Intuit keeps them, driven by intuit-oauth:
// revoke at Intuit's own path with the package's JSON body, the refresh token's hard expiry returned
// when asked for and enforced, and a file-backed state that a restart finds again.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OAuthClient from 'intuit-oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QboSandbox, type SandboxOptions, startQboSandbox } from './server.js';

const client = { clientId: 'grants-app', clientSecret: 'grants-secret' };
const redirectUri = 'http://127.0.0.1:9/callback';
const dir = mkdtempSync(path.join(tmpdir(), 'qbo-grants-'));

function oauth(sim: QboSandbox, hard = false) {
  const c = new OAuthClient({
    ...client,
    environment: 'sandbox',
    redirectUri,
    ...(hard ? { includeRefreshTokenHardExpiresIn: true } : {}),
  });
  c.setAuthorizeURLs({
    authorizeEndpoint: `${sim.url}/connect/oauth2`,
    tokenEndpoint: `${sim.url}/oauth2/v1/tokens/bearer`,
    // Intuit's path: developer.api.intuit.com/v2/oauth2/tokens/revoke (OAuthClient.revokeEndpoint).
    revokeEndpoint: `${sim.url}/v2/oauth2/tokens/revoke`,
    userInfoEndpoint: `${sim.url}/v1/openid_connect/userinfo`,
  });
  return c;
}

/** Consent on the first company and exchange the code: the client and its token. */
async function connect(sim: QboSandbox, hard = false) {
  const c = oauth(sim, hard);
  const page = await (
    await fetch(c.authorizeUri({ scope: [OAuthClient.scopes.Accounting], state: 's' }))
  ).text();
  const form = page.match(/<form method="post" action="([^"]+)">(.*?)<\/form>/s)!;
  const fields = Object.fromEntries(
    [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&#38;/g, '&')]),
  );
  const res = await fetch(`${sim.url}${form[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
    redirect: 'manual',
  });
  const location = res.headers.get('location')!;
  const token = (await c.createToken(location)).getToken();
  return { c, token, realmId: fields.realmId };
}

const companyInfo = (sim: QboSandbox, realmId: string, accessToken: string) =>
  fetch(`${sim.url}/v3/company/${realmId}/companyinfo/${realmId}`, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });

const refreshError = (sim: QboSandbox, refreshToken: string, hard = false) =>
  oauth(sim, hard)
    .refreshUsingToken(refreshToken)
    .then(() => null)
    .catch((e: { error?: string }) => e.error ?? 'unknown');

let sims: QboSandbox[] = [];
const start = async (options: Partial<SandboxOptions> = {}) => {
  const sim = await startQboSandbox({ clients: [client], ...options });
  sims.push(sim);
  return sim;
};

beforeAll(() => {
  OAuthClient.retryConfig.maxRetries = 0;
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close().catch(() => {})));
  sims = [];
  rmSync(dir, { recursive: true, force: true });
});

describe('QuickBooks simulator grants', () => {
  it("revokes a grant at Intuit's /v2/oauth2/tokens/revoke with intuit-oauth's JSON {token}", async () => {
    const sim = await start();
    const { token, realmId } = await connect(sim);
    expect((await companyInfo(sim, realmId, token.access_token!)).status).toBe(200);
    await oauth(sim).revoke({ refresh_token: token.refresh_token });
    const log = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests;
    expect(log).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/v2/oauth2/tokens/revoke', status: 200 }),
    );
    // Revoked: the access token answers 401, the refresh token invalid_grant.
    const after = await companyInfo(sim, realmId, token.access_token!);
    expect(after.status).toBe(401);
    expect((await after.json()).fault.error[0].code).toBe('3200');
    expect(await refreshError(sim, token.refresh_token!)).toBe('invalid_grant');
  });

  it("returns the refresh token's hard expiry when asked for, counted from the consent, and enforces it", async () => {
    const sim = await start({ refreshHardTtlSeconds: 3 * 86_400 });
    const plain = await connect(sim);
    expect(plain.token.x_refresh_token_hard_expires_in).toBe(0); // not asked: not sent
    const { token } = await connect(sim, true);
    expect(token.x_refresh_token_hard_expires_in).toBeGreaterThan(3 * 86_400 - 5);
    await fetch(`${sim.url}/__sim/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: 86_400 }),
    });
    const next = (await oauth(sim, true).refreshUsingToken(token.refresh_token!)).getToken();
    // What is left of the cap, not a new five years; the rolling expiry never passes it.
    expect(next.x_refresh_token_hard_expires_in).toBeGreaterThan(2 * 86_400 - 5);
    expect(next.x_refresh_token_hard_expires_in).toBeLessThanOrEqual(2 * 86_400);
    expect(next.x_refresh_token_expires_in).toBeLessThanOrEqual(2 * 86_400);
    await fetch(`${sim.url}/__sim/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: 2 * 86_400 + 10 }),
    });
    expect(await refreshError(sim, next.refresh_token!, true)).toBe('invalid_grant');
  });

  it('keeps grants, tokens and bills in its state file across a restart; memory only without one', async () => {
    const stateFile = path.join(dir, 'sim.json');
    const first = await start({ stateFile });
    const { token, realmId } = await connect(first);
    const vendorId = (
      await (
        await fetch(
          `${first.url}/v3/company/${realmId}/query?query=${encodeURIComponent('select * from Vendor')}`,
          { headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' } },
        )
      ).json()
    ).QueryResponse.Vendor[0].Id;
    const made = await fetch(`${first.url}/v3/company/${realmId}/bill`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ VendorRef: { value: vendorId }, DocNumber: 'KEPT-1', Line: [{ Amount: 12.5 }] }),
    });
    const bill = (await made.json()).Bill;
    await first.close();
    expect(existsSync(stateFile)).toBe(true);
    // Written whole or not at all: no temporary file left beside it.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const second = await start({ stateFile });
    expect((await companyInfo(second, realmId, token.access_token!)).status).toBe(200);
    const read = await fetch(`${second.url}/v3/company/${realmId}/bill/${bill.Id}`, {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
    });
    expect((await read.json()).Bill).toMatchObject({ DocNumber: 'KEPT-1', TotalAmt: 12.5 });
    const rotated = (await oauth(second).refreshUsingToken(token.refresh_token!)).getToken();
    expect(rotated.access_token).toBeTruthy();
    // A revocation is kept too.
    await oauth(second).revoke({ refresh_token: rotated.refresh_token });
    await second.close();
    const third = await start({ stateFile });
    expect((await companyInfo(third, realmId, rotated.access_token!)).status).toBe(401);

    // Without a state file (the tests' default) a restart forgets every grant, as before.
    const memory = await start();
    const m = await connect(memory);
    await memory.close();
    const fresh = await start();
    expect((await companyInfo(fresh, m.realmId, m.token.access_token!)).status).toBe(401);
  });
});
