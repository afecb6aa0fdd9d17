// What a command checks in the read models before it is sent: the company is there, the manager
// newly assigned is ACTIVE.
import type { AppServices } from '../app/context.js';
import { AppError, parseRowId } from '../shared/errors.js';

export async function liveCompany(app: AppServices, companyId: number) {
  const company = await app.db
    .selectFrom('companies')
    .select(['id', 'name', 'qb_realm_id', 'qb_connection_status'])
    .where('id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!company) throw new AppError('NOT_FOUND', 'Company not found');
  return company;
}

/** A manager newly assigned must exist and be ACTIVE (the picker offers only those). */
export async function requireManager(app: AppServices, managerId: number) {
  const m = await app.db
    .selectFrom('managers')
    .select(['id', 'status'])
    .where('id', '=', managerId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!m)
    throw new AppError('VALIDATION', 'Manager not found', [
      { field: 'managerId', message: 'Manager not found' },
    ]);
  if (m.status !== 'ACTIVE')
    throw new AppError('VALIDATION', 'This manager is not active', [
      { field: 'managerId', message: 'This manager is not active' },
    ]);
}

export const parseCompanyId = (id: unknown) => parseRowId(id, 'Company not found');
