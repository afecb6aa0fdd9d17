// Refreshing a company's QuickBooks tokens (by hand and by the refresh job): one refresh
// per realm at a time across processes, each outcome recorded on the company's stream.
import type { QbTokenStatus } from '../../schema/companies/answers.js';
import type { CommandContext } from '../app/command-handler.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { QbApiError, QbAppCredentialsError, QbGrantError } from '../quickbooks/client.js';
import { refreshDue } from '../quickbooks/refresh-timing.js';
import { AppError } from '../shared/errors.js';
import { tryRedisLock } from '../shared/redis-lock.js';
import { liveCompany, outcomeContext, parseId, qb, record } from './quickbooks.js';
import { qbTokenStatus } from './quickbooks-token-status.js';

export type RefreshOutcome = 'refreshed' | 'not-due' | 'not-connected' | 'disconnected' | 'app-credentials';

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

/** The realm's refresh lock across processes (services/shared/redis-lock.ts), waited for a while. */
async function withRefreshLock<T>(app: AppServices, realmId: string, fn: () => Promise<T>): Promise<T> {
  const key = `${app.config.REDIS_PREFIX}:qb-refresh-lock:${realmId}`;
  const deadline = Date.now() + REFRESH_LOCK_MS + 5000;
  let release = await tryRedisLock(app.redis, key, REFRESH_LOCK_MS);
  while (!release) {
    if (Date.now() > deadline)
      throw new QbApiError(
        'A QuickBooks token refresh for this company is taking too long',
        503,
        'REFRESH_BUSY',
      );
    await sleep(50 + Math.floor(Math.random() * 50));
    release = await tryRedisLock(app.redis, key, REFRESH_LOCK_MS);
  }
  try {
    return await fn();
  } finally {
    await release();
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
