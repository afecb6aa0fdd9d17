// A company's life: activated, deactivated (its name let go) or deleted (its QuickBooks
// grant revoked too).
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { answer, load, names, run } from './company-command.js';
import { type CompanyDto, parseId } from './company-rows.js';
import { disconnectQuickBooks } from './quickbooks-disconnect.js';

export async function activateCompany(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const state = await load(app, companyId);
  const now = new Date().toISOString();
  // Names are unique among active companies: reactivating takes the name back, or is refused.
  await names(app, actor, { type: 'ClaimName', companyId, name: state.details!.name, now });
  const r = await run(app, actor, companyId, { type: 'ActivateCompany', now });
  return answer(app, companyId, r.position);
}

export async function deactivateCompany(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const state = await load(app, companyId);
  const now = new Date().toISOString();
  const r = await run(app, actor, companyId, { type: 'DeactivateCompany', now });
  // After the status: a crash in between leaves the name held, never two active companies sharing it.
  await names(app, actor, { type: 'ReleaseName', companyId, name: state.details!.name, now });
  return answer(app, companyId, r.position);
}

export async function deleteCompany(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const state = await load(app, companyId);
  const now = new Date().toISOString();
  // A deleted company's QuickBooks grant is revoked at Intuit and its realm let go.
  await disconnectQuickBooks(app, companyId, commandContext(actor));
  const r = await run(app, actor, companyId, { type: 'DeleteCompany', now });
  await names(app, actor, { type: 'ReleaseName', companyId, name: state.details!.name, now });
  await awaitProjections(app, r.position, ['companies']);
}
