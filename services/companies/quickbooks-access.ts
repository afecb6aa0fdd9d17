// The kernel's QuickBooks port (services/app/quickbooks-access.ts) as the companies module keeps it:
// a token refreshed on the company's stream before it expires, and once more on a 401.
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import type { QbAccess, QuickBooksAccess } from '../app/quickbooks-access.js';
import type { QbTokenSource } from '../quickbooks/client.js';
import { refreshDue } from '../quickbooks/refresh-timing.js';
import { AppError } from '../shared/errors.js';
import { outcomeContext, qb, record } from './quickbooks.js';
import { APP_CREDENTIALS_WRONG, refreshConnection } from './quickbooks-refresh.js';

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
