// A company's QuickBooks connection: its parts in this process and what its use cases share. The use cases:
// credentials (quickbooks-credentials.ts), the OAuth flow (quickbooks-oauth.ts), disconnecting and revoking
// (quickbooks-disconnect.ts), token status and refresh (quickbooks-token-status.ts, quickbooks-refresh.ts),
// the access other modules use through the kernel's port (quickbooks-access.ts) and the company's bank
// accounts (quickbooks-company-info.ts). Secrets live sealed in `qb_connections` (services/quickbooks); the
// log records only that the connection changed.
import type { QbCompanyInfo } from '../../schema/companies/answers.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { QuickBooksClient } from '../quickbooks/client.js';
import { QbConnections } from '../quickbooks/connections.js';
import { OAuthStates } from '../quickbooks/oauth-states.js';
import { QbRateLimiter } from '../quickbooks/rate-limit.js';
import { AppError, parseRowId } from '../shared/errors.js';
import { companyDecider } from './company-decider.js';

interface QbServices {
  client: QuickBooksClient;
  connections: QbConnections;
  states: OAuthStates;
  /** Bank accounts per company, for 5 minutes. */
  accounts: Map<number, { at: number; value: QbCompanyInfo }>;
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
        // One budget per realm for every process.
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

export const parseId = (id: unknown) => parseRowId(id, 'Company not found');

/** The company's state from its stream: an unknown or deleted company is not found. */
export async function liveCompany(app: AppServices, companyId: number) {
  const { state } = await app.commands.load(companyDecider, companyDecider.streamId(companyId));
  if (!state.exists || state.deleted) throw new AppError('NOT_FOUND', 'Company not found');
  return state;
}

/** A command on the company's stream. */
export function record(
  app: AppServices,
  companyId: number,
  command: Parameters<typeof companyDecider.decide>[0],
  context: CommandContext,
) {
  return app.commands.handle(companyDecider, companyDecider.streamId(companyId), command, context);
}

/** One command id per outcome of a job: a retried job records each outcome once. */
export const outcomeContext = (context: CommandContext, outcome: string): CommandContext =>
  context.commandId ? { ...context, commandId: `${context.commandId}:${outcome}` } : context;
