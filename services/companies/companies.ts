// Companies (spec 1 §2, §3, §7 Companies): client companies with their assignees, payment account
// and NACHA settings. Every change is a command on the company's stream (and, for its name, on the
// `companynames` stream); every read comes from the companies read model.
import { sql } from 'kysely';
import { maskAccountNumber } from '../../projections/companies/companies.js';
import type {
  Company,
  CompanyAssignee,
  CompanyRead,
  CompanyReference,
} from '../../schema/companies/answers.js';
import {
  AssignmentsInput,
  CompanyInput,
  CompanyListInput,
  CompanySearchInput,
  NachaConfigInput,
  PaymentAccountInput,
} from '../../schema/companies/commands.js';
import type { AssignmentRole, NachaSettings } from '../../schema/companies/events.js';
import type { Page } from '../../schema/shared/answers.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import { type Actor, authorize, can, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { AppError, type FieldError, parseInput, parseRowId } from '../shared/errors.js';
import { type Assignments, companyDecider } from './company-decider.js';
import { COMPANY_NAMES_STREAM, namesDecider } from './names-decider.js';
import { disconnectQuickBooks, quickbooksCompanyInfo } from './quickbooks.js';

export const COMPANY_IDS_SEQUENCE = 'company_ids';

// The answers are written once in schema/companies/answers.ts; these names stay for their users.
export type Assignee = CompanyAssignee;
export type CompanyDto = Company;
export type { CompanyReference };
/** A company read: the whole of it (ADMIN) or its reference (MODERATOR, USER). */
export type CompanyView = CompanyRead;

export const isWholeCompany = (c: CompanyView): c is CompanyDto => 'createdAt' in c;

/** The company as `actor` may read it: every read of a company goes through here. */
/** The companies of a staff scope as a condition on `companies as c` (an empty scope: none). */
const scopeCondition = (scope: ReadonlySet<number>) =>
  scope.size > 0 ? sql<boolean>`c.id = ANY(${[...scope]}::int[])` : sql<boolean>`false`;

export function companyViewFor(actor: Actor, c: CompanyDto): CompanyView {
  if (can(actor, 'companies.details')) return c;
  const ref: CompanyReference = { id: c.id, name: c.name };
  if (can(actor, 'companies.connectionStatus')) ref.qbConnectionStatus = c.qbConnectionStatus;
  return ref;
}

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

const parseId = (id: unknown) => parseRowId(id, 'Company not found');

/** Companies with their assignees' names (a deleted assignee shows as unassigned). */
function companyRows(app: AppServices) {
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

type CompanyRow = Awaited<ReturnType<ReturnType<typeof companyRows>['executeTakeFirstOrThrow']>>;

function toCompanyDto(r: CompanyRow): CompanyDto {
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
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Unauthorised: its callers authorise, and show the answer through companyViewFor. */
export async function findCompany(app: AppServices, id: number): Promise<CompanyDto | null> {
  const row = await companyRows(app).where('c.id', '=', id).executeTakeFirst();
  return row ? toCompanyDto(row) : null;
}

async function requireCompany(app: AppServices, id: number): Promise<CompanyDto> {
  const c = await findCompany(app, id);
  if (!c) throw new AppError('NOT_FOUND', 'Company not found');
  return c;
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
    // Spec 1 §4: a realm id without a status reads as connected; no realm id is not connected.
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

/** Spec 1 §6: the manager from the managers, the others from users with role ADMIN, MODERATOR or USER. */
async function checkAssignees(app: AppServices, assignments: Partial<Assignments>, current?: Assignments) {
  const errors: FieldError[] = [];
  for (const role of ['manager', 'processor', 'approver', 'accountant'] as const satisfies AssignmentRole[]) {
    const field = `${role}Id` as const;
    const id = assignments[field];
    // Unchanged ids are not checked again: an assignee deleted since shows as unassigned.
    if (id === undefined || id === null || id === current?.[field]) continue;
    if (role === 'manager') {
      const m = await app.db
        .selectFrom('managers')
        .select('id')
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!m) errors.push({ field, message: 'Manager not found' });
      continue;
    }
    const u = await app.db
      .selectFrom('users')
      .select(['role', 'is_active'])
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!u) errors.push({ field, message: 'User not found' });
    else if (u.role === 'GUEST')
      errors.push({ field, message: 'Only an ADMIN, MODERATOR or USER can be assigned' });
  }
  if (errors.length > 0) throw new AppError('VALIDATION', errors[0].message, errors);
}

/** Answers a write from the companies read model once it has applied the write's events. */
function answer(app: AppServices, id: number, position: Position | null): Promise<CompanyDto> {
  return answerAfterWrite(app, position, ['companies'], () => findCompany(app, id));
}

const lastOf = (...positions: Array<Position | null | undefined>) =>
  positions.filter((p): p is Position => !!p).at(-1) ?? null;

async function load(app: AppServices, companyId: number) {
  const { state } = await app.commands.load(companyDecider, companyDecider.streamId(companyId));
  if (!state.exists || state.deleted) throw new AppError('NOT_FOUND', 'Company not found');
  return state;
}

function names(app: AppServices, actor: Actor, command: Parameters<typeof namesDecider.decide>[0]) {
  return app.commands.handle(namesDecider, COMPANY_NAMES_STREAM, command, commandContext(actor));
}

function run(
  app: AppServices,
  actor: Actor,
  companyId: number,
  command: Parameters<typeof companyDecider.decide>[0],
) {
  return app.commands.handle(
    companyDecider,
    companyDecider.streamId(companyId),
    command,
    commandContext(actor),
  );
}

export async function createCompany(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const data = parseInput(CompanyInput, input);
  const { managerId, processorId, approverId, accountantId, qbPaymentAccountReference, ...details } = data;
  const assignments = { managerId, processorId, approverId, accountantId };
  await checkAssignees(app, assignments);
  const companyId = Number(
    (await app.pool.query(`SELECT nextval('${COMPANY_IDS_SEQUENCE}')::int AS id`)).rows[0].id,
  );
  const now = new Date().toISOString();
  // The name first: a second company of that name is refused before anything is created.
  await names(app, actor, { type: 'ClaimName', companyId, name: details.name, now });
  let created: Awaited<ReturnType<typeof run>>;
  try {
    created = await run(app, actor, companyId, {
      type: 'CreateCompany',
      companyId,
      ...details,
      assignments,
      paymentAccountReference: qbPaymentAccountReference,
      now,
    });
  } catch (err) {
    await names(app, actor, { type: 'ReleaseName', companyId, name: details.name, now }).catch(() => {});
    throw err;
  }
  return answer(app, companyId, created.position);
}

export async function updateCompany(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(CompanyInput, input);
  const state = await load(app, companyId);
  const { managerId, processorId, approverId, accountantId, qbPaymentAccountReference, ...details } = data;
  const assignments = { managerId, processorId, approverId, accountantId };
  await checkAssignees(app, assignments, state.assignments);
  if (qbPaymentAccountReference && qbPaymentAccountReference !== state.paymentAccountReference)
    await checkPaymentAccount(app, actor, companyId, qbPaymentAccountReference);
  const now = new Date().toISOString();
  const renamed = details.name !== state.details!.name;
  // An active company holds its name: a rename moves the claim (refused when the name is taken).
  if (renamed && state.status === 'ACTIVE')
    await names(app, actor, {
      type: 'RenameClaim',
      companyId,
      from: state.details!.name,
      to: details.name,
      now,
    });
  const updated = await run(app, actor, companyId, { type: 'UpdateCompany', ...details, now });
  const assigned = await run(app, actor, companyId, { type: 'ChangeAssignments', assignments, now });
  const account = await run(app, actor, companyId, {
    type: 'SetPaymentAccount',
    reference: qbPaymentAccountReference,
    now,
  });
  return answer(app, companyId, lastOf(updated.position, assigned.position, account.position));
}

export async function changeAssignments(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const assignments = parseInput(AssignmentsInput, input);
  const state = await load(app, companyId);
  await checkAssignees(app, assignments, state.assignments);
  const r = await run(app, actor, companyId, {
    type: 'ChangeAssignments',
    assignments,
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}

/**
 * A payment account is one of the company's bank accounts in QuickBooks (Active, AccountType Bank):
 * the account bill payments draw on (issue 37 item 9). Read from QuickBooks (cached 5 minutes).
 */
async function checkPaymentAccount(app: AppServices, actor: Actor, companyId: number, reference: string) {
  let accounts: Awaited<ReturnType<typeof quickbooksCompanyInfo>>['QueryResponse']['Account'];
  try {
    accounts = (await quickbooksCompanyInfo(app, actor, companyId)).QueryResponse.Account;
  } catch (err) {
    if (err instanceof AppError && err.code === 'CONFLICT')
      throw new AppError(
        'VALIDATION',
        'Connect the company to QuickBooks before choosing its payment account',
        [{ field: 'qbPaymentAccountReference', message: 'The company is not connected to QuickBooks' }],
      );
    throw err;
  }
  const account = accounts.find((a) => a.Id === reference);
  if (!account?.Active || account.AccountType !== 'Bank') {
    const message = 'The payment account must be one of the company’s active bank accounts in QuickBooks';
    throw new AppError('VALIDATION', message, [{ field: 'qbPaymentAccountReference', message }]);
  }
}

export async function setPaymentAccount(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const { qbPaymentAccountReference } = parseInput(PaymentAccountInput, input);
  await load(app, companyId);
  if (qbPaymentAccountReference !== null)
    await checkPaymentAccount(app, actor, companyId, qbPaymentAccountReference);
  const r = await run(app, actor, companyId, {
    type: 'SetPaymentAccount',
    reference: qbPaymentAccountReference,
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}

/** NACHA text as a bank reads it: printable ASCII, upper case (accents dropped). */
const asNachaText = (s: string, max: number) =>
  s
    .normalize('NFKD')
    .replace(/[^\x20-\x7E]/g, '')
    .toUpperCase()
    .trim()
    .slice(0, max);

export async function configureNacha(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(NachaConfigInput, input);
  const state = await load(app, companyId);
  const stored = state.nacha?.bankAccountNumber ?? null;
  // The API shows the number masked: sent back unchanged (or left out), the stored one stays.
  const keep =
    data.bankAccountNumber === undefined ||
    data.bankAccountNumber === '' ||
    data.bankAccountNumber.includes('*');
  if (
    keep &&
    stored &&
    data.bankAccountNumber?.includes('*') &&
    data.bankAccountNumber !== maskAccountNumber(stored)
  )
    throw new AppError('VALIDATION', 'Account number is required', [
      { field: 'bankAccountNumber', message: 'Enter the full account number to change it' },
    ]);
  const bankAccountNumber = keep ? stored : data.bankAccountNumber!.toUpperCase();
  if (!bankAccountNumber)
    throw new AppError('VALIDATION', 'Account number is required', [
      { field: 'bankAccountNumber', message: 'Account number is required' },
    ]);
  const settings: NachaSettings = {
    ...data,
    bankAccountNumber,
    immediateOriginName: data.immediateOriginName ?? asNachaText(state.details!.name, 23),
  };
  const r = await run(app, actor, companyId, {
    type: 'ConfigureNacha',
    settings,
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}

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
  // A deleted company's QuickBooks grant is revoked at Intuit and its realm let go (issue 37 item 5).
  await disconnectQuickBooks(app, companyId, commandContext(actor));
  const r = await run(app, actor, companyId, { type: 'DeleteCompany', now });
  await names(app, actor, { type: 'ReleaseName', companyId, name: state.details!.name, now });
  await awaitProjections(app, r.position, ['companies']);
}
