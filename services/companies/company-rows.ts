// The companies read model as the use cases read it: a company with its assignees' names,
// and the part of it each role may read.
import { sql } from 'kysely';
import type {
  BankConnection,
  Company,
  CompanyAssignee,
  CompanyRead,
  CompanyReference,
} from '../../schema/companies/answers.js';
import { DEFAULT_CUTOFF_WINDOWS } from '../../schema/companies/bank-connection-commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, can } from '../auth/permissions.js';
import { AppError, parseRowId } from '../shared/errors.js';

// The answers are written once in schema/companies/answers.ts; these names stay for their users.
export type Assignee = CompanyAssignee;
export type CompanyDto = Company;
export type { CompanyReference };
/** A company read: the whole of it (ADMIN) or its reference (MODERATOR, USER). */
export type CompanyView = CompanyRead;

export const isWholeCompany = (c: CompanyView): c is CompanyDto => 'createdAt' in c;

/** The companies of a staff scope as a condition on `companies as c` (an empty scope: none). */
export const scopeCondition = (scope: ReadonlySet<number>) =>
  scope.size > 0 ? sql<boolean>`c.id = ANY(${[...scope]}::int[])` : sql<boolean>`false`;

/** The company as `actor` may read it: every read of a company goes through here. */
export function companyViewFor(actor: Actor, c: CompanyDto): CompanyView {
  if (can(actor, 'companies.details')) return c;
  const ref: CompanyReference = { id: c.id, name: c.name };
  if (can(actor, 'companies.connectionStatus')) ref.qbConnectionStatus = c.qbConnectionStatus;
  return ref;
}

export const parseId = (id: unknown) => parseRowId(id, 'Company not found');

/** Companies with their assignees' names (a deleted assignee shows as unassigned). */
export function companyRows(app: AppServices) {
  const person = (alias: string, table: 'users' | 'managers') =>
    sql<Assignee | null>`(SELECT json_build_object('id', p.id, 'firstName', p.first_name, 'lastName', p.last_name, 'email', coalesce(p.email, ''))
      FROM ${sql.table(table)} p WHERE p.id = ${sql.ref(`c.${alias}_id`)} AND p.deleted_at IS NULL)`.as(
      alias,
    );
  return app.db
    .selectFrom('companies as c')
    .selectAll('c')
    .select([
      person('manager', 'managers'),
      person('processor', 'users'),
      person('approver', 'users'),
      person('accountant', 'users'),
    ])
    .where('c.deleted_at', 'is', null);
}

export type CompanyRow = Awaited<ReturnType<ReturnType<typeof companyRows>['executeTakeFirstOrThrow']>>;

/** The connection as the read model keeps it; never set: files by hand with the default cut-offs. */
export function toBankConnection(r: Pick<CompanyRow, 'bank_connection' | 'bank_check'>): BankConnection {
  const c = r.bank_connection;
  return {
    mode: c?.mode ?? 'manual',
    host: c?.host ?? null,
    port: c?.port ?? null,
    username: c?.username ?? null,
    passwordSet: c?.passwordSet ?? false,
    keySet: c?.keySet ?? false,
    inbox: c?.inbox ?? null,
    outbox: c?.outbox ?? null,
    hostKeyFingerprint: c?.hostKeyFingerprint ?? null,
    windows: c?.windows ?? [...DEFAULT_CUTOFF_WINDOWS],
    lastCheck: r.bank_check ? { ...r.bank_check, at: new Date(r.bank_check.at).toISOString() } : null,
  };
}

export function toCompanyDto(r: CompanyRow): CompanyDto {
  const nacha = r.nacha;
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    website: r.website,
    address: r.address,
    description: r.description,
    industry: r.industry,
    status: r.status,
    isActive: r.status === 'ACTIVE',
    qbRealmId: r.qb_realm_id,
    qbConnectionStatus: r.qb_connection_status,
    qbLastRefresh: r.qb_last_refresh?.toISOString() ?? null,
    qbPaymentAccountReference: r.qb_payment_account_reference,
    managerId: r.manager ? r.manager_id : null,
    processorId: r.processor ? r.processor_id : null,
    approverId: r.approver ? r.approver_id : null,
    accountantId: r.accountant ? r.accountant_id : null,
    manager: r.manager,
    processor: r.processor,
    approver: r.approver,
    accountant: r.accountant,
    ...(nacha ?? {}),
    nachaConfigured: nacha !== null,
    sameDayAch: r.same_day_ach,
    bankConnection: toBankConnection(r),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Unauthorised: its callers authorise, and show the answer through companyViewFor. */
export async function findCompany(app: AppServices, id: number): Promise<CompanyDto | null> {
  const row = await companyRows(app).where('c.id', '=', id).executeTakeFirst();
  return row ? toCompanyDto(row) : null;
}

export async function requireCompany(app: AppServices, id: number): Promise<CompanyDto> {
  const c = await findCompany(app, id);
  if (!c) throw new AppError('NOT_FOUND', 'Company not found');
  return c;
}
