// GET /approvals: the list with filters, search, sorting and paging (kept in memory while its read
// models stand still), and the list rows the live pushes read.
import { sql } from 'kysely';
import { paymentProblemWhere } from '../../projections/approvals/payment-problems.js';
import { ApprovalListInput, type PaymentProblemFilter } from '../../schema/approvals/commands.js';
import type { ApprovalStatus, Priority } from '../../schema/approvals/events.js';
import type { AppServices } from '../app/context.js';
import { readCached } from '../app/read-cache.js';
import { type CompanyScope, companyScope, inScope, scopeKey } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import type { Page } from '../shared/paging.js';
import { FLAG_READ_MODELS } from './banking-flags.js';
import { type ApprovalDto, approvalRows, findRow, parseApprovalId, toDtos, UUID } from './rows.js';

const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const SORTS = {
  createdAt: sql`a.created_at`,
  updatedAt: sql`a.updated_at`,
  status: sql`a.status`,
  priority: sql`a.priority_rank`,
  companyName: sql`lower(c.name)`,
  billCount: sql`a.bill_count`,
  approvedBillCount: sql`a.approved_bill_count`,
  totalAmount: sql`a.total_amount`,
  approvedAmount: sql`a.approved_amount`,
  managerName: sql`lower(m.first_name || ' ' || m.last_name)`,
} as const;

const NULLABLE_SORTS = new Set(['companyName', 'managerName']);

export type Filters = {
  search?: string;
  status?: ApprovalStatus;
  priority?: Priority;
  companyId?: number;
  /** What holds the payment (a file, a sync, the day's file limit), as the rows' paymentProblem says. */
  problem?: PaymentProblemFilter;
  /** The reader's companies (staff scope); absent: every company. */
  companyIds?: readonly number[];
};

/**
 * What a status filter matches: 'Approved' keeps counting an approval after it moves into the
 * payment statuses (docs/ARCHITECTURE.md "Payments"); any other status only itself.
 */
export const APPROVED_GROUP: readonly ApprovalStatus[] = [
  'APPROVED',
  'NACHA_PENDING',
  'NACHA_GENERATED',
  'BANK_UPLOADED',
  'PAYMENT_COMPLETED',
];
export const statusesOf = (status: ApprovalStatus): ApprovalStatus[] =>
  status === 'APPROVED' ? [...APPROVED_GROUP] : [status];

/** The scope as a filter: every company, or the ids (an empty list matches nothing). */
export const scopeFilter = (scope: CompanyScope) => (scope === 'all' ? undefined : [...scope]);

export function filtered<Q extends ReturnType<typeof approvalRows>>(q: Q, f: Filters): Q {
  let x = q as ReturnType<typeof approvalRows>;
  if (f.status) x = x.where('a.status', 'in', statusesOf(f.status));
  if (f.priority) x = x.where('a.priority', '=', f.priority);
  if (f.companyId !== undefined) x = x.where('a.company_id', '=', f.companyId);
  if (f.problem) x = x.where(paymentProblemWhere(f.problem, 'a'));
  if (f.companyIds)
    x = f.companyIds.length > 0 ? x.where('a.company_id', 'in', f.companyIds) : x.where(sql<boolean>`false`);
  if (f.search) {
    const p = likePattern(f.search);
    x = x.where((eb) => eb.or([eb('a.search_text', 'like', p), eb(sql`lower(c.name)`, 'like', p)]));
  }
  return x as Q;
}

/** GET /approvals: the list with filters, sorting (createdAt desc by default) and paging. */
export async function listApprovals(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<Page<ApprovalDto>> {
  authorize(actor, 'approvals.read');
  const input = parseInput(ApprovalListInput, query);
  const scope = await companyScope(app, actor);
  // Staff keep this list open and page through it: an unchanged read model answers from memory.
  return readCached(app, LIST_READ_MODELS, `approvals:${scopeKey(scope)}:${JSON.stringify(input)}`, () =>
    readApprovalPage(app, { ...input, companyIds: scopeFilter(scope) }),
  );
}

/**
 * The read models a list page is made of: the approvals, their companies', managers' and people's
 * names, the companies' policies (who may approve), and their vendors' bank detail changes.
 */
export const LIST_READ_MODELS = [
  'approvals',
  'companies',
  'managers',
  'users',
  'approval_policies',
  ...FLAG_READ_MODELS,
] as const;

async function readApprovalPage(
  app: AppServices,
  input: ReturnType<typeof ApprovalListInput.parse> & Pick<Filters, 'companyIds'>,
): Promise<Page<ApprovalDto>> {
  const { page, limit } = input;
  const order = input.sortOrder ?? 'desc';
  const sortBy = input.sortBy ?? 'createdAt';
  const by = SORTS[sortBy];
  const base = filtered(approvalRows(app), input);
  const countQ = filtered(
    app.db
      .selectFrom('approvals as a')
      .leftJoin('companies as c', 'c.id', 'a.company_id')
      .where(sql<boolean>`NOT a.deleted`) as unknown as ReturnType<typeof approvalRows>,
    input,
  ) as unknown as ReturnType<typeof app.db.selectFrom<'approvals as a'>>;
  const [rows, n] = await Promise.all([
    base
      // The default and NOT NULL columns sort as their indexes run; only names can be missing.
      .orderBy(sql`${by} ${sql.raw(order)}${sql.raw(NULLABLE_SORTS.has(sortBy) ? ' NULLS LAST' : '')}`)
      .$if(sortBy !== 'createdAt', (q) => q.orderBy('a.created_at', order))
      .orderBy('a.id', order)
      // Literals (validated integers): a generic plan with LIMIT $1 does not know the page is small
      // and may join every row before it cuts (measured: 90 ms against under 1 over 100,000 rows).
      .limit(sql.lit(limit))
      .offset(sql.lit((page - 1) * limit))
      .execute(),
    // The running totals know status, priority and company only; a search or a problem is counted.
    input.search || input.problem
      ? countQ.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()
      : countFromTotals(app, input),
  ]);
  const total = Number((n as { n: string }).n);
  return {
    data: await toDtos(app, rows),
    total,
    page,
    limit,
    totalPages: Math.max(1, Math.ceil(total / limit)),
  };
}

/** Without a search the total is a sum over the running totals (a few rows, not a count of all). */
function countFromTotals(app: AppServices, f: Filters) {
  let q = app.db.selectFrom('approval_counts').select(sql<string>`coalesce(sum(n), 0)`.as('n'));
  if (f.status) q = q.where('status', 'in', statusesOf(f.status));
  if (f.priority) q = q.where('priority', '=', f.priority);
  if (f.companyId !== undefined) q = q.where('company_id', '=', f.companyId);
  if (f.companyIds)
    q = f.companyIds.length > 0 ? q.where('company_id', 'in', f.companyIds) : q.where(sql<boolean>`false`);
  return q.executeTakeFirstOrThrow();
}

/** The list row of one approval (for live pushes): no stream read. */
export async function getApprovalSummary(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<ApprovalDto | null> {
  authorize(actor, 'approvals.read');
  const row = await findRow(app, parseApprovalId(id));
  if (!row || !inScope(await companyScope(app, actor), row.company_id)) return null;
  return (await toDtos(app, [row]))[0];
}

/** Many list rows in one query (the gateway's read for a message's live notices); deleted ones absent. */
export async function approvalSummaries(app: AppServices, ids: string[]): Promise<Map<string, ApprovalDto>> {
  const wanted = ids.filter((id) => UUID.test(id));
  if (wanted.length === 0) return new Map();
  const rows = await approvalRows(app).where('a.id', 'in', wanted).execute();
  return new Map((await toDtos(app, rows)).map((d) => [d.id, d]));
}
