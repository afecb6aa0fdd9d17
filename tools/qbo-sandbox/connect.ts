// Connects a Billflow company to the simulator over HTTP, as an admin does in the browser: start the
// OAuth flow, allow on the consent page (choosing one of its companies), and let the popup load the
// callback. For tests and benchmarks that need a connected company without a browser.
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
