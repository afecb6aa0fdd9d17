// Connects a Billflow company to the simulator over HTTP, as an admin does in the browser: start the
// OAuth flow, allow on the consent page (choosing one of its companies), and let the popup load the
// callback. For tests and benchmarks that need a connected company without a browser.
import OAuthClient from 'intuit-oauth';

export async function connectOverHttp(options: {
  gatewayUrl: string;
  simUrl: string;
  token: string;
  companyId: number;
  app: { clientId: string; clientSecret: string };
  /** Which of the consent page's companies to choose (the seed's order). */
  realmIndex?: number;
}): Promise<{ realmId: string }> {
  const { gatewayUrl, simUrl, token, companyId, app } = options;
  const start = await fetch(`${gatewayUrl}/api/company/companies/${companyId}/qb-oauth/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      qbClientId: app.clientId,
      qbClientSecret: app.clientSecret,
      qbIsSandbox: true,
      qbCallbackUrl: `${gatewayUrl}/api/company/companies/qb-oauth/callback`,
    }),
  });
  const started = (await start.json()) as { data?: { authUrl?: string }; message?: string };
  if (!started.data?.authUrl) throw new Error(`OAuth start refused: ${started.message ?? start.status}`);
  return consentAndReturn(started.data.authUrl, simUrl, options.realmIndex ?? 0);
}

/**
 * The popup's part: on the simulator's consent page choose one of its companies and allow, then load
 * the callback the simulator redirects to (the gateway exchanges the code there).
 */
export async function consentAndReturn(
  authUrl: string,
  simUrl: string,
  realmIndex = 0,
): Promise<{ realmId: string }> {
  const page = await (await fetch(authUrl)).text();
  const forms = [...page.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)];
  const form = forms[realmIndex];
  if (!form) throw new Error('the consent page has no such company');
  const fields = Object.fromEntries(
    [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&#38;/g, '&')]),
  );
  const consent = await fetch(new URL(form[1], simUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
    redirect: 'manual',
  });
  const callback = await fetch(consent.headers.get('location') ?? '');
  // The callback page posts QB_OAUTH_SUCCESS to its opener only when the exchange worked.
  if (!(await callback.text()).includes('QB_OAUTH_SUCCESS'))
    throw new Error(`the OAuth callback did not connect (${callback.status})`);
  return { realmId: fields.realmId };
}

/** intuit-oauth's client pointed at the simulator, as a test talks to it the way Intuit's client would. */
export function simulatorOAuthClient(
  simUrl: string,
  app: { clientId: string; clientSecret: string },
  redirectUri = 'http://127.0.0.1:9/callback',
): OAuthClient {
  const c = new OAuthClient({ ...app, environment: 'sandbox', redirectUri });
  c.setAuthorizeURLs({
    authorizeEndpoint: `${simUrl}/connect/oauth2`,
    tokenEndpoint: `${simUrl}/oauth2/v1/tokens/bearer`,
    revokeEndpoint: `${simUrl}/v2/oauth2/tokens/revoke`,
    userInfoEndpoint: `${simUrl}/v1/openid_connect/userinfo`,
  });
  return c;
}

/**
 * A grant for the first company of the consent page, as a person gives it, with the code exchanged
 * by intuit-oauth itself (no gateway): the simulator's tests of Intuit's own answers.
 */
export async function grantFromConsent(
  simUrl: string,
  app: { clientId: string; clientSecret: string },
  redirectUri?: string,
): Promise<{ realmId: string; accessToken: string }> {
  const c = simulatorOAuthClient(simUrl, app, redirectUri);
  const page = await (
    await fetch(c.authorizeUri({ scope: [OAuthClient.scopes.Accounting], state: 's' }))
  ).text();
  const form = page.match(/<form method="post" action="([^"]+)">(.*?)<\/form>/s);
  if (!form) throw new Error('the consent page has no company');
  const fields = Object.fromEntries(
    [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&#38;/g, '&')]),
  );
  const res = await fetch(`${simUrl}${form[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
    redirect: 'manual',
  });
  const location = res.headers.get('location') ?? '';
  const accessToken = (await c.createToken(location)).getToken().access_token ?? '';
  return { realmId: new URL(location).searchParams.get('realmId') ?? '', accessToken };
}
