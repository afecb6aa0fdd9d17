// A company's QuickBooks tokens as the connection card shows them, and the warning that
// the grant must be renewed soon.
import type { QbTokenStatus } from '../../schema/companies/answers.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { liveCompany, parseId, qb, record } from './quickbooks.js';

export type { QbTokenStatus };

/** How long before the refresh token's hard expiry the refresh job warns. */
export const RECONSENT_WARNING_MS = 7 * 86_400_000;

export async function qbTokenStatus(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<QbTokenStatus> {
  // The connection is the company's detail: ADMIN's.
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
