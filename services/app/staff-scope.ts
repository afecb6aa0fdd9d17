// Which client companies a staff member works on (docs/decisions/0001-staff-scope.md).
// An ADMIN works on every company. A MODERATOR or USER works on the companies they are assigned to —
// as processor, approver or accountant, or through the manager their account is linked to — and on
// companies whose approval policy opens them to all staff. Outside that scope a company, its
// approvals and their invoices do not exist for them: reads leave them out, commands answer 404
// (the same answer as for an id that was never used, so the scope does not reveal other clients).
import { sql } from 'kysely';
import type { Actor } from '../auth/permissions.js';
import { AppError } from '../shared/errors.js';
import type { AppServices } from './context.js';
import { keptUnder, readModelVersion } from './read-cache.js';

/** Every company, or exactly these ids. */
export type CompanyScope = 'all' | ReadonlySet<number>;

/** The read models a scope is made of: a change to any of them may change it. */
export const SCOPE_READ_MODELS = ['companies', 'managers', 'approval_policies'] as const;

/** The companies this staff member is assigned to, or those open to all staff. */
async function assignedCompanies(app: AppServices, userId: number): Promise<ReadonlySet<number>> {
  const rows = await app.db
    .selectFrom('companies as c')
    .select('c.id')
    .where('c.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('c.processor_id', '=', userId),
        eb('c.approver_id', '=', userId),
        eb('c.accountant_id', '=', userId),
        eb(
          'c.manager_id',
          'in',
          eb
            .selectFrom('managers as m')
            .select('m.id')
            .where('m.user_id', '=', userId)
            .where('m.deleted_at', 'is', null),
        ),
        eb.exists(
          eb
            .selectFrom('approval_policies as p')
            .select(sql`1`.as('one'))
            .whereRef('p.company_id', '=', 'c.id')
            .where(sql<boolean>`NOT p.assigned_staff_only`),
        ),
      ]),
    )
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** The actor's scope, kept per user while the read models it is made of stay as they were. */
export async function companyScope(app: AppServices, actor: Actor): Promise<CompanyScope> {
  if (actor.role === 'ADMIN') return 'all';
  return keptUnder(app, await readModelVersion(app, SCOPE_READ_MODELS), `company-scope:${actor.id}`, () =>
    assignedCompanies(app, actor.id),
  );
}

export const inScope = (scope: CompanyScope, companyId: number) => scope === 'all' || scope.has(companyId);

/** Refuses, as not found, a company outside the actor's scope. */
export async function requireCompanyInScope(
  app: AppServices,
  actor: Actor,
  companyId: number,
  notFound = 'Company not found',
): Promise<void> {
  if (!inScope(await companyScope(app, actor), companyId)) throw new AppError('NOT_FOUND', notFound);
}

/** A stable key part for answers kept per scope (a list page differs per scope). */
export const scopeKey = (scope: CompanyScope) =>
  scope === 'all' ? 'all' : [...scope].sort((a, b) => a - b).join(',');
