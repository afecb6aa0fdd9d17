// A company's QuickBooks connection (spec 1 §2 OAuth dialog, §4 connection states, §7; issue 10
// item 2): credentials, the OAuth flow, token status, refresh (by hand and by the refresh job), and
// the company's bank accounts. Secrets live sealed in `qb_connections` (services/quickbooks); the
// log records only that the connection changed.
import { randomUUID } from 'node:crypto';
import type {
  QbBankAccount,
  QbCompanyInfo,
  QbCredentials,
  QbTokenStatus,
} from '../../schema/companies/answers.js';
import {
  QbCredentialsInput,
  QbOAuthCallbackInput,
  QbOAuthStartInput,
} from '../../schema/companies/quickbooks-commands.js';
import type { CommandContext } from '../app/command-handler.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import type { QbAccess, QuickBooksAccess } from '../app/quickbooks-access.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import {
  QbApiError,
  QbAppCredentialsError,
  QbGrantError,
  type QbTokenSource,
  QuickBooksClient,
} from '../quickbooks/client.js';
import { QbConnections } from '../quickbooks/connections.js';
import { OAuthStates } from '../quickbooks/oauth-states.js';
import { QbRateLimiter } from '../quickbooks/rate-limit.js';
import { refreshDue } from '../quickbooks/refresh-timing.js';
import { DomainError } from '../shared/domain-errors.js';
import { AppError, parseInput, parseRowId } from '../shared/errors.js';
import { companyDecider } from './company-decider.js';
import { QB_REALMS_STREAM, realmsDecider, realmTaken } from './realms-decider.js';

interface QbServices {
  client: QuickBooksClient;
  connections: QbConnections;
  states: OAuthStates;
  /** Bank accounts per company, for 5 minutes (spec 1 §9). */
  accounts: Map<number, { at: number; value: BankAccountsAnswer }>;
}

const services = new WeakMap<AppServices, QbServices>();

/** The connection's parts for this process, made once from the app's configuration. */
export function qb(app: AppServices): QbServices {
  let s = services.get(app);
  if (!s) {
    s = {
      client: new QuickBooksClient({
        oauthBase: app.config.QBO_OAUTH_BASE,
        apiBase: app.config.QBO_API_BASE,
        // One budget per realm for every process (issue 37 item 2).
        limiter: new QbRateLimiter(app.redis, app.config.REDIS_PREFIX, {
          perMinute: app.config.QBO_RATE_PER_MINUTE,
          perSecond: app.config.QBO_RATE_PER_SECOND,
          windowSeconds: app.config.QBO_RATE_WINDOW_SECONDS,
        }),
        throttleWaitMs: app.config.QBO_RATE_WINDOW_SECONDS * 1000,
      }),
      connections: new QbConnections(app.pool, app.subjectKeys),
      states: new OAuthStates(app.pool),
      accounts: new Map(),
    };
    services.set(app, s);
  }
  return s;
}

export const ACCOUNTS_CACHE_MS = 5 * 60_000;

const parseId = (id: unknown) => parseRowId(id, 'Company not found');

async function liveCompany(app: AppServices, companyId: number) {
  const { state } = await app.commands.load(companyDecider, companyDecider.streamId(companyId));
  if (!state.exists || state.deleted) throw new AppError('NOT_FOUND', 'Company not found');
  return state;
}

function record(
  app: AppServices,
  companyId: number,
  command: Parameters<typeof companyDecider.decide>[0],
  context: CommandContext,
) {
  return app.commands.handle(companyDecider, companyDecider.streamId(companyId), command, context);
}

export type QbCredentialsInfo = QbCredentials;

export async function getQbCredentials(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<QbCredentialsInfo> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  await liveCompany(app, companyId);
  const conn = await qb(app).connections.get(companyId);
  // The secret never leaves the server (issue 10): only whether there is one.
  return {
    hasCredentials: !!conn?.clientId && !!conn.clientSecret,
    qbClientId: conn?.clientId ?? null,
    qbIsSandbox: conn?.isSandbox ?? true,
  };
}

async function saveCredentials(
  app: AppServices,
  actor: Actor,
  companyId: number,
  input: { qbClientId: string; qbClientSecret: string; qbIsSandbox: boolean },
) {
  await liveCompany(app, companyId);
  await qb(app).connections.saveCredentials(
    companyId,
    input.qbClientId,
    input.qbClientSecret,
    input.qbIsSandbox,
  );
  return record(
    app,
    companyId,
    {
      type: 'SaveQbCredentials',
      clientId: input.qbClientId,
      isSandbox: input.qbIsSandbox,
      now: new Date().toISOString(),
    },
    commandContext(actor),
  );
}

export async function putQbCredentials(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<QbCredentialsInfo> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(QbCredentialsInput, input);
  await saveCredentials(app, actor, companyId, data);
  return { hasCredentials: true, qbClientId: data.qbClientId, qbIsSandbox: data.qbIsSandbox };
}

/**
 * Ends a company's QuickBooks connection: revokes the grant at Intuit (intuit-oauth's revoke, issue 37
 * item 5), drops the stored secrets and lets its realm go. A revoke that fails (Intuit unreachable,
 * the grant already gone) is logged and the local removal goes on: the tokens are shredded either
 * way, and an unused grant expires at Intuit.
 */
export async function disconnectQuickBooks(app: AppServices, companyId: number, context: CommandContext) {
  const { connections, client } = qb(app);
  const conn = await connections.get(companyId);
  if (conn?.tokens && conn.clientId && conn.clientSecret)
    await client
      .revoke(
        {
          clientId: conn.clientId,
          clientSecret: conn.clientSecret,
          isSandbox: conn.isSandbox,
          redirectUri: '',
        },
        conn.tokens.refreshToken,
      )
      .catch((err) =>
        app.log.warn(
          { companyId, err: err instanceof Error ? err.message : String(err) },
          'QuickBooks did not confirm the revocation of the grant',
        ),
      );
  await connections.remove(companyId);
  qb(app).accounts.delete(companyId);
  await app.commands.handle(
    realmsDecider,
    QB_REALMS_STREAM,
    { type: 'ReleaseCompanyRealms', companyId, now: new Date().toISOString() },
    context,
  );
}

export async function deleteQbCredentials(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  await liveCompany(app, companyId);
  await disconnectQuickBooks(app, companyId, commandContext(actor));
  const r = await record(
    app,
    companyId,
    { type: 'RemoveQbCredentials', now: new Date().toISOString() },
    commandContext(actor),
  );
  await awaitProjections(app, r.position, ['companies']);
}

/**
 * The callback must come back to this product (issue 37 item 9): its host is PUBLIC_URL's, or, with
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
  const authUrl = client.authorizeUrl(
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

export type { QbTokenStatus };

/** How long before the refresh token's hard expiry the refresh job warns. */
export const RECONSENT_WARNING_MS = 7 * 86_400_000;

export async function qbTokenStatus(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<QbTokenStatus> {
  // The connection is the company's detail: ADMIN's (spec 1 §2, §6).
  authorize(actor, 'companies.details');
  const companyId = parseId(id);
  const company = await liveCompany(app, companyId);
  const conn = await qb(app).connections.get(companyId);
  const problem = company.qb.status === 'error' ? (company.qb.problem ?? null) : null;
  if (!conn?.tokens)
    return {
      hasTokens: false,
      isExpired: false,
      expiresIn: 0,
      reconsentBy: null,
      reconsentDue: false,
      problem,
    };
  const left = Math.floor((conn.tokens.accessExpiresAt.getTime() - Date.now()) / 1000);
  const reconsentBy = conn.tokens.refreshHardExpiresAt?.toISOString() ?? null;
  return {
    hasTokens: true,
    isExpired: left <= 0,
    expiresIn: Math.max(0, left),
    reconsentBy,
    reconsentDue: reconsentBy !== null && company.qb.reconsentDueFor === reconsentBy,
    problem,
  };
}

/**
 * The refresh job's check (workers/companies/quickbooks.ts): a refresh token whose hard expiry is less than a
 * week away gets a warning recorded once per grant (CompanyQbReconsentDue), which the connection card
 * shows. TODO(e-mail): once the product sends e-mail, the same event mails the company's manager.
 */
export async function warnReconsentIfDue(app: AppServices, companyId: number, context: CommandContext) {
  const conn = await qb(app).connections.get(companyId);
  const hard = conn?.tokens?.refreshHardExpiresAt;
  if (!hard || hard.getTime() - Date.now() > RECONSENT_WARNING_MS) return false;
  await record(
    app,
    companyId,
    { type: 'WarnQbReconsent', hardExpiresAt: hard.toISOString(), now: new Date().toISOString() },
    context.commandId ? { ...context, commandId: `${context.commandId}:reconsent` } : context,
  );
  return true;
}

export type RefreshOutcome = 'refreshed' | 'not-due' | 'not-connected' | 'disconnected' | 'app-credentials';

/** One command id per outcome of a job: a retried job records each outcome once. */
const outcomeContext = (context: CommandContext, outcome: string): CommandContext =>
  context.commandId ? { ...context, commandId: `${context.commandId}:${outcome}` } : context;

/** The tokens' record in the log: what schedules the next refresh (workers/companies/quickbooks.ts). */
function recordTokens(
  app: AppServices,
  companyId: number,
  tokens: {
    realmId: string;
    accessExpiresAt: Date;
    refreshExpiresAt: Date | null;
    refreshHardExpiresAt?: Date | null;
  },
  context: CommandContext,
) {
  return record(
    app,
    companyId,
    {
      type: 'RecordQbTokens',
      kind: 'refreshed',
      realmId: tokens.realmId,
      accessExpiresAt: tokens.accessExpiresAt.toISOString(),
      refreshExpiresAt: tokens.refreshExpiresAt?.toISOString() ?? null,
      refreshHardExpiresAt: tokens.refreshHardExpiresAt?.toISOString() ?? null,
      now: new Date().toISOString(),
    },
    outcomeContext(context, 'refreshed'),
  );
}

/** In this process: one refresh per company at a time; the others wait for its outcome. */
const inFlight = new WeakMap<AppServices, Map<number, Promise<RefreshOutcome>>>();

/** How long a refresh may hold the realm's Redis lock (intuit-oauth retries 1 + 2 + 4 s at most). */
const REFRESH_LOCK_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The realm's refresh lock across processes, in Redis (SET NX with a deadline): waiting for it holds
 * no database connection (a pooled connection held on pg_advisory_lock starved the pool: issue 37
 * item 10). Released only by its holder; a crashed holder's lock ends by itself.
 */
async function withRefreshLock<T>(app: AppServices, realmId: string, fn: () => Promise<T>): Promise<T> {
  const key = `${app.config.REDIS_PREFIX}:qb-refresh-lock:${realmId}`;
  const holder = randomUUID();
  const deadline = Date.now() + REFRESH_LOCK_MS + 5000;
  while ((await app.redis.set(key, holder, 'PX', REFRESH_LOCK_MS, 'NX')) !== 'OK') {
    if (Date.now() > deadline)
      throw new QbApiError(
        'A QuickBooks token refresh for this company is taking too long',
        503,
        'REFRESH_BUSY',
      );
    await sleep(50 + Math.floor(Math.random() * 50));
  }
  try {
    return await fn();
  } finally {
    await app.redis
      .eval(
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
        1,
        key,
        holder,
      )
      .catch(() => {});
  }
}

/**
 * Refreshes a company's tokens, one refresh per realm at a time across processes (a Redis lock;
 * within a process the callers share one refresh). `force`: even when not yet due (the manual
 * refresh). The rotated refresh token is stored before the event; a crash in between is repaired
 * by the next call, which finds the stored tokens newer than the log's record and records them
 * (so the next refresh is scheduled). No database connection is held while waiting for the lock
 * or for QuickBooks.
 */
export function refreshConnection(
  app: AppServices,
  companyId: number,
  context: CommandContext,
  options: { force: boolean },
): Promise<RefreshOutcome> {
  let running = inFlight.get(app);
  if (!running) {
    running = new Map();
    inFlight.set(app, running);
  }
  const key = options.force ? -companyId - 1 : companyId;
  const current = running.get(key);
  if (current) return current;
  const p = refreshOnce(app, companyId, context, options).finally(() => running.delete(key));
  running.set(key, p);
  return p;
}

async function refreshOnce(
  app: AppServices,
  companyId: number,
  context: CommandContext,
  options: { force: boolean },
): Promise<RefreshOutcome> {
  const { connections, client } = qb(app);
  const first = await connections.get(companyId);
  if (!first?.tokens || !first.clientId || !first.clientSecret) return 'not-connected';
  return withRefreshLock(app, first.tokens.realmId, async () => {
    // Read again under the lock: another process may have refreshed meanwhile.
    const conn = await connections.get(companyId);
    if (!conn?.tokens || !conn.clientId || !conn.clientSecret) return 'not-connected';
    const refreshedMeanwhile = conn.tokens.accessToken !== first.tokens?.accessToken;
    if (
      (!options.force || refreshedMeanwhile) &&
      !refreshDue(conn.tokens.issuedAt, conn.tokens.accessExpiresAt)
    ) {
      const company = await liveCompany(app, companyId);
      if (
        company.qb.status === 'connected' &&
        company.qb.accessExpiresAt !== conn.tokens.accessExpiresAt.toISOString()
      )
        await recordTokens(app, companyId, conn.tokens, context);
      return 'not-due';
    }
    const creds = {
      clientId: conn.clientId,
      clientSecret: conn.clientSecret,
      isSandbox: conn.isSandbox,
      redirectUri: '',
    };
    let tokens: Awaited<ReturnType<typeof client.refresh>>;
    try {
      tokens = await client.refresh(creds, conn.tokens.realmId, conn.tokens.refreshToken);
    } catch (err) {
      const now = new Date().toISOString();
      if (err instanceof QbGrantError) {
        await connections.dropTokens(companyId);
        qb(app).accounts.delete(companyId);
        await record(
          app,
          companyId,
          { type: 'RecordQbConnectionLost', status: 'disconnected', reason: err.message, now },
          outcomeContext(context, 'disconnected'),
        );
        return 'disconnected';
      }
      if (err instanceof QbAppCredentialsError) {
        // The app's id or secret, not the grant: the tokens stay; the company needs its credentials fixed.
        app.log.warn({ companyId, err: err.message }, 'QuickBooks refused the app credentials');
        await record(
          app,
          companyId,
          { type: 'RecordQbConnectionLost', status: 'error', reason: APP_CREDENTIALS_WRONG, now },
          outcomeContext(context, 'app-credentials'),
        ).catch(() => {});
        return 'app-credentials';
      }
      const reason = err instanceof Error ? err.message : String(err);
      await record(
        app,
        companyId,
        { type: 'RecordQbConnectionLost', status: 'error', reason, now },
        outcomeContext(context, 'error'),
      ).catch(() => {});
      throw err;
    }
    await connections.saveTokens(companyId, tokens);
    await recordTokens(app, companyId, tokens, context);
    return 'refreshed';
  });
}

/** What a company whose app credentials QuickBooks refuses (invalid_client) says. */
export const APP_CREDENTIALS_WRONG =
  "QuickBooks refused this company's app credentials (invalid_client): the client id or secret is wrong or was rotated. Enter the app's current credentials.";

export async function refreshQbToken(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<QbTokenStatus> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  await liveCompany(app, companyId);
  const outcome = await refreshConnection(app, companyId, commandContext(actor), { force: true }).catch(
    (err) => {
      if (err instanceof QbApiError)
        throw new AppError('UNAVAILABLE', `QuickBooks could not be reached: ${err.message}`);
      throw err;
    },
  );
  if (outcome === 'not-connected')
    throw new AppError('CONFLICT', 'This company is not connected to QuickBooks');
  if (outcome === 'app-credentials') throw new AppError('CONFLICT', APP_CREDENTIALS_WRONG);
  if (outcome === 'disconnected') {
    // The screen re-reads the company after the error: let it show the disconnection.
    await awaitProjections(app, await app.store.headPosition(), ['companies']);
    throw new AppError('CONFLICT', 'QuickBooks no longer accepts this connection. Please connect again.');
  }
  return qbTokenStatus(app, actor, companyId);
}

export type BankAccount = QbBankAccount;

/**
 * What a call to the company's QuickBooks needs: an access token not about to expire (refreshed
 * first if it is; not forced, another may have just done it), its realm and environment. `auth`
 * renews the token once on a 401 and marks the connection as needing attention on a second one.
 * A token that is not due takes no lock and no second read.
 */
export async function qbAccess(app: AppServices, companyId: number, ctx: CommandContext): Promise<QbAccess> {
  const s = qb(app);
  let conn = await s.connections.get(companyId);
  if (!conn?.tokens) throw new AppError('CONFLICT', 'This company is not connected to QuickBooks');
  if (refreshDue(conn.tokens.issuedAt, conn.tokens.accessExpiresAt)) {
    const outcome = await refreshConnection(app, companyId, ctx, { force: false });
    if (outcome === 'app-credentials') throw new AppError('CONFLICT', APP_CREDENTIALS_WRONG);
    if (outcome === 'not-connected' || outcome === 'disconnected')
      throw new AppError('CONFLICT', 'This company is not connected to QuickBooks');
    conn = await s.connections.get(companyId);
    if (!conn?.tokens) throw new AppError('CONFLICT', 'This company is not connected to QuickBooks');
  }
  const { realmId } = conn.tokens;
  const auth: QbTokenSource = {
    token: conn.tokens.accessToken,
    async renew() {
      // A 401: refresh once (unless another caller already has), then use the stored token.
      const before = auth.token;
      const stored = await s.connections.get(companyId);
      if (stored?.tokens && stored.tokens.accessToken !== before) {
        auth.token = stored.tokens.accessToken;
        return auth.token;
      }
      const outcome = await refreshConnection(app, companyId, ctx, { force: true });
      if (outcome === 'app-credentials') throw new AppError('CONFLICT', APP_CREDENTIALS_WRONG);
      const after = await s.connections.get(companyId);
      if (!after?.tokens) throw new AppError('CONFLICT', 'This company is not connected to QuickBooks');
      auth.token = after.tokens.accessToken;
      return auth.token;
    },
    async rejected(err) {
      app.log.warn({ companyId, realmId, err: err.message }, 'QuickBooks refused a refreshed token');
      await record(
        app,
        companyId,
        {
          type: 'RecordQbConnectionLost',
          status: 'error',
          reason: `QuickBooks refused a freshly refreshed token: ${err.message}`,
          now: new Date().toISOString(),
        },
        outcomeContext(ctx, 'rejected'),
      ).catch(() => {});
    },
  };
  return {
    client: s.client,
    isSandbox: conn.isSandbox,
    realmId,
    accessToken: conn.tokens.accessToken,
    auth,
  };
}

/** The kernel's QuickBooks port on this app (composed in services/main.ts). */
export function companiesQuickBooksAccess(app: () => AppServices): QuickBooksAccess {
  return { access: (companyId, ctx) => qbAccess(app(), companyId, ctx) };
}

export type BankAccountsAnswer = QbCompanyInfo;

/** The company's active bank accounts in QuickBooks, with its CompanyInfo; cached 5 minutes. */
export async function quickbooksCompanyInfo(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<BankAccountsAnswer> {
  // Bank accounts and their balances: ADMIN's, who chooses the payment account (spec 1 §2).
  authorize(actor, 'companies.details');
  const companyId = parseId(id);
  await liveCompany(app, companyId);
  const s = qb(app);
  const cached = s.accounts.get(companyId);
  if (cached && Date.now() - cached.at < ACCOUNTS_CACHE_MS) return cached.value;
  const { isSandbox, realmId, auth } = await qbAccess(app, companyId, commandContext(actor));
  const conn = { isSandbox };
  try {
    const [info, accounts] = await Promise.all([
      s.client.get<{ CompanyInfo?: Record<string, unknown> }>(
        conn.isSandbox,
        realmId,
        auth,
        `companyinfo/${realmId}`,
      ),
      s.client.query<{ Account?: BankAccount[] }>(
        conn.isSandbox,
        realmId,
        auth,
        "select * from Account where AccountType = 'Bank' and Active = true",
      ),
    ]);
    const value: BankAccountsAnswer = {
      CompanyInfo: info.CompanyInfo ?? null,
      QueryResponse: { Account: accounts.QueryResponse.Account ?? [] },
    };
    s.accounts.set(companyId, { at: Date.now(), value });
    return value;
  } catch (err) {
    if (err instanceof QbApiError)
      throw new AppError('UNAVAILABLE', err.message || 'Failed to fetch QuickBooks company information');
    throw err;
  }
}
