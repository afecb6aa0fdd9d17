// Ending a company's QuickBooks connection: the grant revoked at Intuit, the secrets dropped, the realm
// let go (by hand, or when the company is deleted: companies' status.ts).
import type { CommandContext } from '../app/command-handler.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { liveCompany, parseId, qb, record } from './quickbooks.js';
import { QB_REALMS_STREAM, realmsDecider } from './realms-decider.js';

/**
 * Ends a company's QuickBooks connection: revokes the grant at Intuit (intuit-oauth's revoke), drops the
 * stored secrets and lets its realm go. A revoke that fails (Intuit unreachable, the grant already gone) is
 * logged and the local removal goes on: the tokens are shredded either way, and an unused grant expires at
 * Intuit.
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
