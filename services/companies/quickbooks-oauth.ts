// Connecting a company to QuickBooks: the flow's start, with its own
// credentials kept apart until it succeeds, and the callback, which claims the realm for the company.
import { QbOAuthCallbackInput, QbOAuthStartInput } from '../../schema/companies/quickbooks-commands.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { QbApiError, QbAppCredentialsError, QbGrantError } from '../quickbooks/client.js';
import { DomainError } from '../shared/domain-errors.js';
import { AppError, parseInput } from '../shared/errors.js';
import { liveCompany, parseId, qb, record } from './quickbooks.js';
import { QB_REALMS_STREAM, realmsDecider, realmTaken } from './realms-decider.js';

/**
 * The callback must come back to this product: its host is PUBLIC_URL's, or, with
 * no PUBLIC_URL, the host the request came to. An internal caller (the demo seed) passes neither.
 */
function checkCallbackHost(app: AppServices, callbackUrl: string, origin: string | undefined) {
  const own = app.config.PUBLIC_URL ?? origin;
  if (!own) return;
  const expected = new URL(own).host;
  if (new URL(callbackUrl).host === expected) return;
  const message = `The callback URL must be on this Billflow's own address (${expected})`;
  throw new AppError('VALIDATION', message, [{ field: 'qbCallbackUrl', message }]);
}

export async function startQbOAuth(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
  options: { origin?: string } = {},
): Promise<{ authUrl: string }> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(QbOAuthStartInput, input);
  checkCallbackHost(app, data.qbCallbackUrl, options.origin);
  await liveCompany(app, companyId);
  // Kept apart: the working credentials (and their grant) stay until a callback succeeds.
  await qb(app).connections.savePending(companyId, data.qbClientId, data.qbClientSecret, data.qbIsSandbox);
  const { states, client } = qb(app);
  const state = await states.issue(companyId, actor.id, data.qbCallbackUrl);
  const authUrl = await client.authorizeUrl(
    {
      clientId: data.qbClientId,
      clientSecret: data.qbClientSecret,
      isSandbox: data.qbIsSandbox,
      redirectUri: data.qbCallbackUrl,
    },
    state,
  );
  return { authUrl };
}

export interface OAuthOutcome {
  ok: boolean;
  message: string;
  companyId: number | null;
}

/**
 * The OAuth callback (public: the state authenticates it). Exchanges the code once: a repeated
 * callback for the same state answers what the first one did and never exchanges again.
 */
export async function completeQbOAuth(
  app: AppServices,
  query: unknown,
  callbackUrl: string,
): Promise<OAuthOutcome> {
  const r = QbOAuthCallbackInput.safeParse(query ?? {});
  if (!r.success || !r.data.state) return { ok: false, message: 'Invalid OAuth callback', companyId: null };
  const { code, state, realmId, error } = r.data;
  const { states, connections, client } = qb(app);
  const taken = await states.take(state);
  if (!taken)
    return {
      ok: false,
      message: 'This authorization link is invalid or has expired. Please start again.',
      companyId: null,
    };
  if (!taken.taken)
    return taken.outcome === 'success'
      ? { ok: true, message: 'QuickBooks connected successfully.', companyId: taken.companyId }
      : {
          ok: false,
          message: 'This authorization was already used. Please start again.',
          companyId: taken.companyId,
        };
  const fail = async (message: string) => {
    await states.finish(state, 'error');
    return { ok: false, message, companyId: taken.companyId };
  };
  if (error)
    return fail(error === 'access_denied' ? 'Authorization was cancelled' : `QuickBooks refused: ${error}`);
  if (!code || !realmId) return fail('The callback carries no authorization code');
  const conn = await connections.get(taken.companyId);
  // The flow's own credentials (kept apart at its start); a flow started before they were kept
  // apart uses the working ones.
  const creds =
    conn?.pending ??
    (conn?.clientId && conn.clientSecret
      ? { clientId: conn.clientId, clientSecret: conn.clientSecret, isSandbox: conn.isSandbox }
      : null);
  if (!creds) return fail('The QuickBooks credentials were removed; please start again');
  const context = { userId: String(taken.userId) };
  try {
    const tokens = await client.exchangeCode({ ...creds, redirectUri: taken.redirectUri }, callbackUrl);
    // The realm is the one the code was issued for, not whatever the query string says: intuit-oauth
    // takes realmId from the callback URL, so it is checked with the new token (a token answers
    // only for its own realm: 401 code 100 elsewhere, oauth-jsclient#91). A realmId edited by hand
    // connects nothing. The grant is not revoked here: at Intuit that would end the app's
    // connection to the realm it really is for, which another company may hold.
    try {
      await client.get(creds.isSandbox, tokens.realmId, tokens.accessToken, `companyinfo/${tokens.realmId}`);
    } catch (err) {
      if (err instanceof QbApiError && (err.status === 401 || err.status === 403 || err.status === 400))
        return fail(
          'QuickBooks did not confirm the company of this authorization (the callback was altered). Please start again.',
        );
      throw err;
    }
    const company = await liveCompany(app, taken.companyId);
    // A company connected before realms were claimed holds its realm without a claim: its read-model
    // row says so (those connections are settled; the stream decides the new ones).
    const legacy = await app.db
      .selectFrom('companies')
      .select('name')
      .where('qb_realm_id', '=', tokens.realmId)
      .where('id', '!=', taken.companyId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (legacy) return fail(realmTaken(legacy.name));
    try {
      // One realm, one company: decided on the realms' stream, so two racing callbacks cannot both win.
      await app.commands.handle(
        realmsDecider,
        QB_REALMS_STREAM,
        {
          type: 'ClaimRealm',
          companyId: taken.companyId,
          companyName: company.details?.name ?? `company ${taken.companyId}`,
          realmId: tokens.realmId,
          now: new Date().toISOString(),
        },
        context,
      );
    } catch (err) {
      if (err instanceof DomainError && err.code === 'CONFLICT') return fail(err.message);
      throw err;
    }
    await connections.connect(taken.companyId, creds, tokens);
    qb(app).accounts.delete(taken.companyId);
    await record(
      app,
      taken.companyId,
      {
        type: 'SaveQbCredentials',
        clientId: creds.clientId,
        isSandbox: creds.isSandbox,
        now: new Date().toISOString(),
      },
      context,
    );
    const recorded = await record(
      app,
      taken.companyId,
      {
        type: 'RecordQbTokens',
        kind: 'connected',
        realmId: tokens.realmId,
        accessExpiresAt: tokens.accessExpiresAt.toISOString(),
        refreshExpiresAt: tokens.refreshExpiresAt?.toISOString() ?? null,
        refreshHardExpiresAt: tokens.refreshHardExpiresAt?.toISOString() ?? null,
        now: new Date().toISOString(),
      },
      context,
    );
    await states.finish(state, 'success');
    await awaitProjections(app, recorded.position, ['companies']);
    return { ok: true, message: 'QuickBooks connected successfully.', companyId: taken.companyId };
  } catch (err) {
    if (err instanceof QbGrantError || err instanceof QbApiError || err instanceof QbAppCredentialsError)
      return fail(`QuickBooks refused the authorization: ${err.message}`);
    await states.finish(state, 'error');
    throw err;
  }
}
