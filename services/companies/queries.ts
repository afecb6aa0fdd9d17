// Reading companies: the list, the search and one company, each as the reader
// may see it (companyViewFor), within their staff scope.
import { sql } from 'kysely';
import { CompanyListInput, CompanySearchInput } from '../../schema/companies/commands.js';
import type { Page } from '../../schema/shared/answers.js';
import type { AppServices } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import { type Actor, authorize, can } from '../auth/permissions.js';
import { AppError, parseInput } from '../shared/errors.js';
import {
  type CompanyView,
  companyRows,
  companyViewFor,
  parseId,
  requireCompany,
  scopeCondition,
  toCompanyDto,
} from './company-rows.js';

/** A list filter on a field the caller may not read would tell its value: refused. */
function checkFilters(actor: Actor, filters: { status?: unknown; qbConnectionStatus?: unknown }) {
  const refused =
    (filters.status !== undefined && !can(actor, 'companies.details')) ||
    (filters.qbConnectionStatus !== undefined && !can(actor, 'companies.connectionStatus'));
  if (refused)
    throw new AppError('FORBIDDEN', 'You do not have permission to filter companies by that field');
}

/** Name, and e-mail for those who may read it: a search must not find by what it cannot show. */
function matching(actor: Actor, pattern: string) {
  return can(actor, 'companies.details')
    ? sql<boolean>`(c.name ILIKE ${pattern} OR c.email ILIKE ${pattern})`
    : sql<boolean>`c.name ILIKE ${pattern}`;
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listCompanies(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<Page<CompanyView>> {
  authorize(actor, 'companies.read');
  const { search, status, qbConnectionStatus, page, limit } = parseInput(CompanyListInput, query);
  checkFilters(actor, { status, qbConnectionStatus });
  const scope = await companyScope(app, actor);
  let q = companyRows(app);
  let count = app.db.selectFrom('companies as c').where('c.deleted_at', 'is', null);
  if (scope !== 'all') {
    // Staff list the companies they are assigned to (decision 0001).
    const mine = scopeCondition(scope);
    q = q.where(mine);
    count = count.where(mine);
  }
  if (search) {
    const found = matching(actor, likePattern(search));
    q = q.where(found);
    count = count.where(found);
  }
  if (status) {
    q = q.where('c.status', '=', status);
    count = count.where('c.status', '=', status);
  }
  if (qbConnectionStatus) {
    // A realm id without a status reads as connected; no realm id is not connected.
    const cond = sql<boolean>`${
      qbConnectionStatus === 'not_connected'
        ? sql`c.qb_realm_id IS NULL`
        : qbConnectionStatus === 'connected'
          ? sql`c.qb_realm_id IS NOT NULL AND coalesce(c.qb_connection_status, 'connected') = 'connected'`
          : sql`c.qb_realm_id IS NOT NULL AND c.qb_connection_status = ${qbConnectionStatus}`
    }`;
    q = q.where(cond);
    count = count.where(cond);
  }
  const [rows, n] = await Promise.all([
    q
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    count.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const total = Number(n.n);
  return {
    data: rows.map((r) => companyViewFor(actor, toCompanyDto(r))),
    total,
    page,
    limit,
    totalPages: Math.max(1, Math.ceil(total / limit)),
  };
}

export async function searchCompanies(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<CompanyView[]> {
  authorize(actor, 'companies.read');
  const { q } = parseInput(CompanySearchInput, query);
  if (q === '') return [];
  const scope = await companyScope(app, actor);
  const rows = await companyRows(app)
    .where(matching(actor, likePattern(q)))
    .$if(scope !== 'all', (x) => x.where(scopeCondition(scope as ReadonlySet<number>)))
    .orderBy('c.name')
    .limit(20)
    .execute();
  return rows.map((r) => companyViewFor(actor, toCompanyDto(r)));
}

export async function getCompany(app: AppServices, actor: Actor | null, id: unknown): Promise<CompanyView> {
  authorize(actor, 'companies.read');
  const company = await requireCompany(app, parseId(id));
  if (!inScope(await companyScope(app, actor), company.id))
    throw new AppError('NOT_FOUND', 'Company not found');
  return companyViewFor(actor, company);
}
