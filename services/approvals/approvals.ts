// Bill approvals (spec 2 §2–§7 Approvals; issue 12). Staff pick a company's open QuickBooks bills and
// create an approval: the bills are fetched from QuickBooks and snapshotted in ApprovalCreated, after
// they were claimed on the company's `approvalbills` stream (a bill is in at most one open approval;
// a bill that looks like one already in an approval needs an explicit confirmation). ADMIN and
// MODERATOR approve (a subset of the bills), reject (with a reason), update, delete; USER reads.
// The company's segregation-of-duties policy is read from its own stream and judged by the decider.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { sql } from 'kysely';
import type { z } from 'zod';
import type {
  AchStatus as AchStatusAnswer,
  Approval,
  ApprovalBill as ApprovalBillAnswer,
  ApprovalBillCandidate,
  ApprovalBulkResult,
  ApprovalData,
  ApprovalHistoryEntry as ApprovalHistoryEntryAnswer,
  ApprovalManagerOption,
  ApprovalPolicy as ApprovalPolicyAnswer,
  ApprovalStats as ApprovalStatsAnswer,
  ManagerRef as ManagerRefAnswer,
  PersonRef as PersonRefAnswer,
  ViewerApproval as ViewerApprovalAnswer,
} from '../../schema/approvals/answers.js';
import {
  ApprovalExportInput,
  ApprovalListInput,
  ApprovalPolicyInput,
  ApprovalStatsInput,
  ApprovalsByDayInput,
  ApproveApprovalInput,
  BillsForApprovalInput,
  BulkApproveInput,
  BulkRejectInput,
  CreateApprovalInput,
  RecipientsInput,
  RejectApprovalInput,
  UpdateApprovalInput,
} from '../../schema/approvals/commands.js';
import type {
  ApprovalEvent,
  ApprovalStatus,
  BillSnapshot,
  Priority,
  VendorContact,
} from '../../schema/approvals/events.js';
import type { ApprovalsDay as ApprovalsDayAnswer } from '../../schema/dashboard/answers.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { CommandContext } from '../app/command-handler.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { readCached } from '../app/read-cache.js';
import {
  type CompanyScope,
  companyScope,
  inScope,
  requireCompanyInScope,
  scopeKey,
} from '../app/staff-scope.js';
import { type Actor, authorize, can, commandContext } from '../auth/permissions.js';
import { qbAccess } from '../companies/quickbooks.js';
import type { Position } from '../eventstore/port.js';
import { achAmount, cleanQbId, cleanQbText } from '../quickbooks/clean.js';
import { QbApiError, QbGrantError } from '../quickbooks/client.js';
import { qbStringList } from '../quickbooks/query-text.js';
import { DomainError } from '../shared/domain-errors.js';
import { AppError, parseInput, parseRowId, toAppError } from '../shared/errors.js';
import { maskTail } from '../shared/masking.js';
import type { Page } from '../shared/paging.js';
import { inParallel } from '../shared/parallel.js';
import { billCopyFor, paidInCopy } from './bill-copy.js';
import {
  type ApprovalBillsCommand,
  type ApprovalPolicy,
  type ApprovalState,
  approvalBillsDecider,
  approvalDecider,
  approvalPolicyDecider,
  approvalStreamId,
  billFingerprint,
  DEFAULT_POLICY,
  findDuplicates,
  segregationBlock,
} from './decider.js';

// --- answers (schema/approvals/answers.ts) --------------------------------------------------------

export type PersonRef = z.infer<typeof PersonRefAnswer>;
export type ManagerRef = z.infer<typeof ManagerRefAnswer>;
export type AchStatus = z.infer<typeof AchStatusAnswer>;
export type ApprovalBill = z.infer<typeof ApprovalBillAnswer>;
/** The approval as every reader gets it: kept and shared, so it holds nothing of one viewer. */
export type ApprovalDto = z.infer<typeof ApprovalData>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseApprovalId(id: unknown): string {
  if (typeof id !== 'string' || !UUID.test(id)) throw new AppError('NOT_FOUND', 'Approval not found');
  return id.toLowerCase();
}

const num = (v: string | number | null | undefined) => (v == null ? 0 : Number(v));

function approvalRows(app: AppServices) {
  return app.db
    .selectFrom('approvals as a')
    .leftJoin('companies as c', 'c.id', 'a.company_id')
    .leftJoin('managers as m', (j) => j.onRef('m.id', '=', 'a.manager_id').on('m.deleted_at', 'is', null))
    .select([
      'a.id',
      'a.company_id',
      'a.status',
      'a.priority',
      'a.manager_id',
      'a.bill_ids',
      'a.approved_bill_ids',
      'a.bill_count',
      'a.approved_bill_count',
      'a.total_amount',
      'a.approved_amount',
      'a.confirmed_duplicates',
      'a.created_by',
      'a.approved_by',
      'a.first_approved_by',
      'a.first_approved_at',
      'a.awaiting_second_approval',
      'a.rejected_by',
      'a.rejection_reason',
      'a.approval_date',
      'a.rejection_date',
      'a.expired_at',
      'a.expires_at',
      'a.created_at',
      'a.updated_at',
      'c.name as company_name',
      'm.first_name as m_first',
      'm.last_name as m_last',
      'm.email as m_email',
      'm.phone as m_phone',
      'm.title as m_title',
    ])
    .where(sql<boolean>`NOT a.deleted`);
}
type ApprovalRow = Awaited<ReturnType<ReturnType<typeof approvalRows>['executeTakeFirstOrThrow']>>;

const person = (id: number | null, first: string | null, last: string | null): PersonRef | null =>
  id === null ? null : { id, firstName: first, lastName: last };

type People = Map<number, { first: string | null; last: string | null }>;
const personOf = (people: People, id: number | null) =>
  person(id, people.get(id ?? 0)?.first ?? null, people.get(id ?? 0)?.last ?? null);

/**
 * The rows' people (creator, approvers, rejecter) in one query for the page: four more joins made
 * the list's statement cost more to plan (16 ms under load) than to run (1 ms).
 */
async function toDtos(app: AppServices, rows: ApprovalRow[]): Promise<ApprovalDto[]> {
  const ids = [
    ...new Set(
      rows
        .flatMap((r) => [r.created_by, r.approved_by, r.rejected_by, r.first_approved_by])
        .filter((x) => x !== null),
    ),
  ] as number[];
  const people: People = new Map();
  // The companies' policies beside the names (in parallel: no further round trip for the list).
  const [users, policies] = await Promise.all([
    ids.length > 0
      ? app.db.selectFrom('users').select(['id', 'first_name', 'last_name']).where('id', 'in', ids).execute()
      : [],
    policiesOf(
      app,
      rows.map((r) => r.company_id),
    ),
  ]);
  for (const u of users) people.set(u.id, { first: u.first_name, last: u.last_name });
  return rows.map((r) => toDto(r, people, policies.get(r.company_id) ?? DEFAULT_POLICY));
}

/** The segregation-of-duties policies of these companies (the default when none was ever set). */
async function policiesOf(app: AppServices, companyIds: number[]): Promise<Map<number, ApprovalPolicy>> {
  const wanted = [...new Set(companyIds)];
  const out = new Map<number, ApprovalPolicy>();
  if (wanted.length === 0) return out;
  for (const p of await app.db
    .selectFrom('approval_policies')
    .select(['company_id', 'creator_may_not_approve', 'second_approval_threshold', 'assigned_staff_only'])
    .where('company_id', 'in', wanted)
    .execute())
    out.set(p.company_id, {
      creatorMayNotApprove: p.creator_may_not_approve,
      secondApprovalThreshold: p.second_approval_threshold === null ? null : num(p.second_approval_threshold),
      assignedStaffOnly: p.assigned_staff_only,
    });
  return out;
}

/** The policy's bearing on one approval: who may not approve, and whether two approvers are needed. */
function policyFields(
  policy: ApprovalPolicy,
  totalAmount: number,
  awaitingSecondApproval: boolean,
): Pick<ApprovalDto, 'creatorMayNotApprove' | 'secondApprovalThreshold' | 'secondApprovalRequired'> {
  const threshold = policy.secondApprovalThreshold;
  return {
    creatorMayNotApprove: policy.creatorMayNotApprove,
    secondApprovalThreshold: threshold,
    secondApprovalRequired: threshold !== null && (awaitingSecondApproval || totalAmount > threshold),
  };
}

export type ViewerApproval = z.infer<typeof ViewerApprovalAnswer>;
/** An approval with the viewer's own fields: what REST and GraphQL answer. */
export type ApprovalView = z.infer<typeof Approval>;

/**
 * Whether this viewer may approve now and why not: the decider's rule (segregationBlock) on the
 * read model's policy, so the screen disables what the server would refuse. The server still judges
 * on the policy's own stream when the approval is sent.
 */
export function viewerApproval(a: ApprovalDto, actor: Actor | null): ViewerApproval {
  if (!actor || !can(actor, 'approvals.write'))
    return { viewerMayApprove: false, approveBlockedReason: 'Only administrators and moderators approve.' };
  if (a.status !== 'PENDING')
    return {
      viewerMayApprove: false,
      approveBlockedReason: `Only a pending approval can be approved; this one is ${a.status.toLowerCase().replace(/_/g, ' ')}.`,
    };
  const block = segregationBlock(
    { createdBy: a.createdBy, firstApprovedBy: a.awaitingSecondApproval ? a.firstApprovedBy : null },
    { creatorMayNotApprove: a.creatorMayNotApprove, secondApprovalThreshold: a.secondApprovalThreshold },
    actor.id,
  );
  if (block === 'CREATOR')
    return {
      viewerMayApprove: false,
      approveBlockedReason: 'You created this approval; this company requires a different approver.',
    };
  if (block === 'FIRST_APPROVER')
    return {
      viewerMayApprove: false,
      approveBlockedReason: 'You gave the first approval; a second, different approver must approve.',
    };
  return { viewerMayApprove: true, approveBlockedReason: null };
}

/** An answer with the viewer's fields (a new object: list answers are shared between requests). */
export function withViewer(a: ApprovalDto, actor: Actor | null): ApprovalView {
  // Object.assign, not {...a, ...b}: spreading two objects into one with this many fields left V8 a
  // slow dictionary object (measured: over ten times the cost of a copy, and slower to serialize).
  return Object.assign({}, a, viewerApproval(a, actor));
}

/**
 * The viewer's copies of a list page, made once per kept page and viewer: the list is benchmarked at
 * 1,500 requests/s answered from memory, and copying 25 rows per request would cost more than the rest
 * of the hit. Keyed on the kept page itself, so a new version of the page starts afresh.
 */
const viewerPages = new WeakMap<Page<ApprovalDto>, Map<string, Page<ApprovalView>>>();
const VIEWERS_PER_PAGE = 64;

export function pageForViewer(page: Page<ApprovalDto>, actor: Actor | null): Page<ApprovalView> {
  // What the rule reads of the viewer: who they are and their role.
  const who = actor ? `${actor.id}:${actor.role}` : '';
  let byViewer = viewerPages.get(page);
  if (!byViewer) {
    byViewer = new Map();
    viewerPages.set(page, byViewer);
  }
  let viewed = byViewer.get(who);
  if (!viewed) {
    if (byViewer.size >= VIEWERS_PER_PAGE) byViewer.clear();
    viewed = { ...page, data: page.data.map((a) => withViewer(a, actor)) };
    byViewer.set(who, viewed);
  }
  return viewed;
}

function toDto(
  r: ApprovalRow,
  people: People = new Map(),
  policy: ApprovalPolicy = DEFAULT_POLICY,
): ApprovalDto {
  const totalAmount = num(r.total_amount);
  const approvedAmount = num(r.approved_amount);
  const managerName = r.m_first !== null ? `${r.m_first} ${r.m_last ?? ''}`.trim() : null;
  return {
    id: r.id,
    companyId: r.company_id,
    companyName: r.company_name,
    company: r.company_name !== null ? { id: r.company_id, name: r.company_name } : null,
    status: r.status,
    priority: r.priority,
    billIds: r.bill_ids.join(','),
    approvedBillIds: r.approved_bill_ids.join(','),
    billIdList: r.bill_ids,
    approvedBillIdList: r.approved_bill_ids,
    billCount: r.bill_count,
    approvedBillCount: r.approved_bill_count,
    approvalRate: r.bill_count === 0 ? 0 : Math.round((r.approved_bill_count / r.bill_count) * 10_000) / 100,
    totalAmount,
    approvedAmount,
    billStats: { totalAmount, totalAmountApproved: approvedAmount },
    billsParsed: null,
    approvedBillsParsed: null,
    managerId: r.m_first !== null ? r.manager_id : null,
    managerName: managerName || r.m_email || null,
    managerEmail: r.m_email ?? null,
    manager:
      r.m_first !== null && r.manager_id !== null
        ? {
            id: r.manager_id,
            firstName: r.m_first,
            lastName: r.m_last ?? '',
            title: r.m_title ?? null,
            email: r.m_email ?? '',
            phone: r.m_phone ?? null,
          }
        : null,
    createdBy: r.created_by,
    creator: personOf(people, r.created_by),
    approvedBy: r.approved_by,
    approver: personOf(people, r.approved_by),
    rejectedBy: r.rejected_by,
    rejecter: personOf(people, r.rejected_by),
    firstApprovedBy: r.first_approved_by,
    firstApprover: personOf(people, r.first_approved_by),
    firstApprovedAt: r.first_approved_at?.toISOString() ?? null,
    awaitingSecondApproval: r.awaiting_second_approval,
    ...policyFields(policy, totalAmount, r.awaiting_second_approval),
    approvalDate: r.approval_date?.toISOString() ?? null,
    rejectionDate: r.rejection_date?.toISOString() ?? null,
    rejectionReason: r.rejection_reason,
    expiresAt: r.expires_at.toISOString(),
    expiredAt: r.expired_at?.toISOString() ?? null,
    recipients: null,
    confirmedDuplicates: (r.confirmed_duplicates ?? []).map((d) => ({ ...d, paid: d.paid === true })),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

async function findRow(app: AppServices, id: string) {
  return approvalRows(app).where('a.id', '=', id).executeTakeFirst();
}

/** The approval's row for a reader: absent, deleted or outside their companies is not found. */
async function requireRow(app: AppServices, actor: Actor, id: string): Promise<ApprovalRow> {
  const row = await findRow(app, id);
  if (!row || !inScope(await companyScope(app, actor), row.company_id))
    throw new AppError('NOT_FOUND', 'Approval not found');
  return row;
}

/**
 * The approval's row before a command on it. A command acts only on what the screens can show
 * (issue 36 §1): an approval its read model does not hold (not projected yet, or its events parked)
 * waits for the read model to pass its stream, and is refused if still absent.
 */
async function requireActionableRow(app: AppServices, actor: Actor, id: string): Promise<ApprovalRow> {
  const row = await findRow(app, id);
  if (row) {
    if (!inScope(await companyScope(app, actor), row.company_id))
      throw new AppError('NOT_FOUND', 'Approval not found');
    return row;
  }
  const { state, events } = await app.commands.load(approvalDecider, approvalStreamId(id));
  if (!state.exists || state.deleted || !inScope(await companyScope(app, actor), state.companyId!))
    throw new AppError('NOT_FOUND', 'Approval not found');
  await awaitProjections(app, events[events.length - 1].position, ['approvals']);
  const caughtUp = await findRow(app, id);
  if (!caughtUp)
    throw new AppError(
      'CONFLICT',
      'This approval cannot be acted on: its record could not be read. An administrator can see why on the Operations page.',
    );
  return caughtUp;
}

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

type Filters = {
  search?: string;
  status?: ApprovalStatus;
  priority?: Priority;
  companyId?: number;
  /** The reader's companies (staff scope); absent: every company. */
  companyIds?: readonly number[];
};

/** The scope as a filter: every company, or the ids (an empty list matches nothing). */
const scopeFilter = (scope: CompanyScope) => (scope === 'all' ? undefined : [...scope]);

function filtered<Q extends ReturnType<typeof approvalRows>>(q: Q, f: Filters): Q {
  let x = q as ReturnType<typeof approvalRows>;
  if (f.status) x = x.where('a.status', '=', f.status);
  if (f.priority) x = x.where('a.priority', '=', f.priority);
  if (f.companyId !== undefined) x = x.where('a.company_id', '=', f.companyId);
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
 * names, and the companies' policies (who may approve).
 */
export const LIST_READ_MODELS = ['approvals', 'companies', 'managers', 'users', 'approval_policies'] as const;

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
    input.search
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
  if (f.status) q = q.where('status', '=', f.status);
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

/** The ACH status of a company's QuickBooks vendors, from the vendors read model (masked). */
async function achStatuses(app: AppServices, companyId: number, qbVendorIds: string[]) {
  const out = new Map<string, AchStatus>();
  if (qbVendorIds.length === 0) return out;
  const rows = await app.db
    .selectFrom('vendors')
    .select([
      'id',
      'qb_vendor_id',
      'has_banking',
      'bank_name',
      'account_type',
      'routing_last4',
      'account_last4',
    ])
    .where('company_id', '=', companyId)
    .where('qb_vendor_id', 'in', [...new Set(qbVendorIds)])
    .execute();
  for (const r of rows)
    out.set(r.qb_vendor_id, {
      hasBankingInfo: r.has_banking,
      vendorId: r.id,
      bankName: r.bank_name,
      accountType: r.account_type,
      routingNumber: maskTail(r.routing_last4, 9),
      accountNumber: maskTail(r.account_last4, 8),
    });
  return out;
}

const NO_ACH: AchStatus = {
  hasBankingInfo: false,
  vendorId: null,
  bankName: null,
  accountType: null,
  routingNumber: null,
  accountNumber: null,
};

/** GET /approvals/{id}: the row, with the bills (vendor contacts opened from the log) and recipients. */
export async function getApproval(app: AppServices, actor: Actor | null, id: unknown): Promise<ApprovalDto> {
  authorize(actor, 'approvals.read');
  const approvalId = parseApprovalId(id);
  const row = await requireRow(app, actor, approvalId);
  const { state } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
  return withDetail(app, (await toDtos(app, [row]))[0], state);
}

/**
 * A snapshot's text as the screens show it. Snapshots taken before QuickBooks text was cleaned at
 * the door (issue 36 §1) may still hold controls or direction overrides: they are cleaned on the way
 * out too, so no stored event shows "INV-\u202Egpj.exe" as "INV-exe.jpg".
 */
function cleanedSnapshot(b: BillSnapshot): BillSnapshot {
  return {
    ...b,
    DocNumber: text(b.DocNumber, 40),
    VendorRef: { value: b.VendorRef.value, name: text(b.VendorRef.name, 255) },
    Line: b.Line.map((l) => ({
      ...l,
      Description: text(l.Description, 1000),
      ItemName: text(l.ItemName, 255),
      AccountName: text(l.AccountName, 255),
    })),
    InvoiceFileName: text(b.InvoiceFileName, 255),
  };
}

async function withDetail(app: AppServices, dto: ApprovalDto, state: ApprovalState): Promise<ApprovalDto> {
  const contacts = new Map<string, VendorContact>((state.vendorContacts ?? []).map((c) => [c.qbVendorId, c]));
  const ach = await achStatuses(
    app,
    dto.companyId,
    state.bills.map((b) => b.VendorRef.value),
  );
  const bills: ApprovalBill[] = state.bills.map((b) => ({
    ...cleanedSnapshot(b),
    VendorInfo: {
      CompanyName: text(b.VendorInfo.CompanyName, 255),
      Email: contacts.get(b.VendorRef.value)?.email ?? null,
      Phone: contacts.get(b.VendorRef.value)?.phone ?? null,
    },
    invoiceAvailable: b.AttachableId !== null,
    achStatus: ach.get(b.VendorRef.value) ?? NO_ACH,
  }));
  const approved = new Set(dto.approvedBillIdList);
  return {
    ...dto,
    billsParsed: bills,
    approvedBillsParsed: bills.filter((b) => approved.has(b.Id)),
    recipients: state.recipients ?? [],
  };
}

// --- stats, history, export -----------------------------------------------------------------------

export type ApprovalStats = z.infer<typeof ApprovalStatsAnswer>;

/** GET /approvals/stats (optionally of one company): the five counts, bills and amounts. */
export async function approvalStats(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<ApprovalStats> {
  authorize(actor, 'approvals.read');
  const { companyId } = parseInput(ApprovalStatsInput, query);
  const companyIds = scopeFilter(await companyScope(app, actor));
  let q = app.db
    .selectFrom('approval_counts')
    .select((eb) => [
      'status',
      'priority',
      eb.fn.sum<string>('n').as('n'),
      eb.fn.sum<string>('bills').as('bills'),
      eb.fn.sum<string>('approved_bills').as('approved_bills'),
      eb.fn.sum<string>('amount').as('amount'),
      eb.fn.sum<string>('approved_amount').as('approved_amount'),
    ])
    .groupBy(['status', 'priority']);
  if (companyId !== undefined) q = q.where('company_id', '=', companyId);
  if (companyIds)
    q = companyIds.length > 0 ? q.where('company_id', 'in', companyIds) : q.where(sql<boolean>`false`);
  const rows = await q.execute();
  const byStatus: Record<string, number> = {};
  const byPriority: Record<string, number> = { URGENT: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
  let total = 0;
  let processedBills = 0;
  let approvedBills = 0;
  let processedTotalAmount = 0;
  let approvedTotalAmount = 0;
  for (const r of rows) {
    const n = num(r.n);
    total += n;
    byStatus[r.status] = (byStatus[r.status] ?? 0) + n;
    byPriority[r.priority] = (byPriority[r.priority] ?? 0) + n;
    processedBills += num(r.bills);
    approvedBills += num(r.approved_bills);
    processedTotalAmount += num(r.amount);
    approvedTotalAmount += num(r.approved_amount);
  }
  const round = (x: number) => Math.round(x * 100) / 100;
  for (const s of ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED']) byStatus[s] ??= 0;
  return {
    total,
    pending: byStatus.PENDING,
    approved: byStatus.APPROVED,
    rejected: byStatus.REJECTED,
    expired: byStatus.EXPIRED,
    processedBills,
    approvedBills,
    processedTotalAmount: round(processedTotalAmount),
    approvedTotalAmount: round(approvedTotalAmount),
    byStatus,
    byPriority,
  };
}

export type ApprovalHistoryEntry = z.infer<typeof ApprovalHistoryEntryAnswer>;

const money = (n: number) => `$${n.toFixed(2)}`;

const HISTORY: Record<
  ApprovalEvent['type'],
  (e: ApprovalEvent) => { action: string; details: string | null }
> = {
  ApprovalCreated: (e) => {
    const d = e.data as Extract<ApprovalEvent, { type: 'ApprovalCreated' }>['data'];
    const dup = d.confirmedDuplicates.length
      ? `; possible duplicates confirmed: ${d.confirmedDuplicates.map((x) => `${x.billId} (like ${x.paid ? 'paid ' : ''}${x.matchesBillId})`).join(', ')}`
      : '';
    return {
      action: 'Created',
      details: `${d.bills.length} bill(s), ${money(d.bills.reduce((s, b) => s + b.TotalAmt, 0))}, priority ${d.priority}${dup}`,
    };
  },
  ApprovalUpdated: (e) => {
    const d = e.data as Extract<ApprovalEvent, { type: 'ApprovalUpdated' }>['data'];
    const parts = [
      d.priority !== undefined ? `priority ${d.priority}` : null,
      d.managerId !== undefined
        ? d.managerId === null
          ? 'manager removed'
          : `manager #${d.managerId}`
        : null,
    ].filter(Boolean);
    return { action: 'Updated', details: parts.join(', ') || null };
  },
  ApprovalRecipientsUpdated: (e) => ({
    action: 'Recipients updated',
    details: `${((e.data as { recipients: string[] | null }).recipients ?? []).length} recipient(s)`,
  }),
  ApprovalFirstApproved: (e) => {
    const d = e.data as Extract<ApprovalEvent, { type: 'ApprovalFirstApproved' }>['data'];
    return {
      action: 'First approval',
      details: `${d.approvedBillIds.length} bill(s), ${money(d.amount)}: above ${money(d.threshold)}, awaiting a second approver${
        d.supersedes
          ? `; replaces the first approval of ${d.supersedes.approvedBillIds.length} bill(s), which did not cover this choice`
          : ''
      }`,
    };
  },
  ApprovalApproved: (e) => ({
    action: 'Approved',
    details: `Approved bills: ${(e.data as { approvedBillIds: string[] }).approvedBillIds.join(', ')}`,
  }),
  ApprovalRejected: (e) => ({ action: 'Rejected', details: (e.data as { reason: string }).reason }),
  ApprovalExpired: () => ({ action: 'Expired', details: 'Not approved in time' }),
  ApprovalDeleted: () => ({ action: 'Deleted', details: null }),
};

async function userNames(app: AppServices, ids: number[]) {
  const names = new Map<number, string>();
  if (ids.length === 0) return names;
  for (const u of await app.db
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('id', 'in', ids)
    .execute())
    names.set(u.id, [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email || `User #${u.id}`);
  return names;
}

/** GET /approvals/{id}/history: from the approval's stream, oldest first. */
export async function approvalHistory(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<ApprovalHistoryEntry[]> {
  authorize(actor, 'approvals.read');
  const approvalId = parseApprovalId(id);
  await requireRow(app, actor, approvalId);
  const { events } = await app.store.readStream(approvalStreamId(approvalId));
  const ids = [
    ...new Set(events.map((e) => Number(e.metadata.userId)).filter((n) => Number.isInteger(n) && n > 0)),
  ];
  const names = await userNames(app, ids);
  return events.map((stored) => {
    const e = { type: stored.type, data: stored.data } as ApprovalEvent;
    const line = HISTORY[e.type]?.(e) ?? { action: e.type, details: null };
    const userId = stored.metadata.userId ? Number(stored.metadata.userId) : null;
    return {
      id: stored.id,
      ...line,
      userId,
      userName: userId !== null ? (names.get(userId) ?? `User #${userId}`) : 'System',
      timestamp: stored.createdAt.toISOString(),
      downloadUrl: null,
    };
  });
}

/** Spreadsheet apps run a cell that starts with = + - @ (or a tab or CR) as a formula: such text is quoted with '. */
const cell = (v: string | null) => (v && /^[=+\-@\t\r]/.test(v) ? `'${v}` : (v ?? ''));
export const APPROVAL_EXPORT_MAX = 50_000;
export const APPROVAL_EXPORT_FILENAME = 'approvals-export.csv';

/** The export as a file (GraphQL's approvalsExport; REST streams the same CSV as an attachment). */
export async function approvalsExportFile(app: AppServices, actor: Actor | null, query: unknown) {
  const content = await exportApprovalsCsv(app, actor, query);
  return { filename: APPROVAL_EXPORT_FILENAME, contentType: 'text/csv; charset=utf-8', content };
}

/** GET /approvals/export: the filtered list as CSV (newest first, at most 50,000 rows). */
export async function exportApprovalsCsv(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<string> {
  authorize(actor, 'approvals.read');
  const f = parseInput(ApprovalExportInput, query);
  const companyIds = scopeFilter(await companyScope(app, actor));
  const rows = await toDtos(
    app,
    await filtered(approvalRows(app), { ...f, companyIds })
      .orderBy('a.created_at', 'desc')
      .orderBy('a.id', 'desc')
      .limit(APPROVAL_EXPORT_MAX)
      .execute(),
  );
  return stringifyCsv(
    rows.map((a) => [
      a.id,
      cell(a.companyName),
      a.status,
      a.priority,
      String(a.billCount),
      String(a.approvedBillCount),
      a.totalAmount.toFixed(2),
      a.approvedAmount.toFixed(2),
      cell(a.managerName),
      // Bill ids come from QuickBooks and may start with '-'.
      cell(a.billIds),
      cell(a.approvedBillIds),
      a.awaitingSecondApproval ? 'yes' : 'no',
      cell(a.rejectionReason),
      a.createdAt,
      a.approvalDate ?? '',
      a.rejectionDate ?? '',
    ]),
    {
      header: true,
      columns: [
        'ID',
        'Company',
        'Status',
        'Priority',
        'Processed Bills',
        'Approved Bills',
        'Processed Amount',
        'Approved Amount',
        'Manager',
        'Bill IDs',
        'Approved Bill IDs',
        'Awaiting Second Approval',
        'Rejection Reason',
        'Created',
        'Approved',
        'Rejected',
      ],
    },
  );
}

// --- QuickBooks bills -----------------------------------------------------------------------------

interface QbBill {
  Id: string;
  DocNumber?: string;
  TxnDate?: string;
  DueDate?: string;
  TotalAmt: number;
  Balance: number;
  CurrencyRef?: { value: string };
  VendorRef: { value: string; name?: string };
  Line?: Array<{
    Id?: string;
    Description?: string;
    Amount?: number;
    ItemBasedExpenseLineDetail?: { Qty?: number; ItemRef?: { name?: string } };
    AccountBasedExpenseLineDetail?: { AccountRef?: { name?: string } };
  }>;
}
interface QbVendorRow {
  Id: string;
  DisplayName?: string;
  CompanyName?: string;
  PrimaryEmailAddr?: { Address?: string };
  PrimaryPhone?: { FreeFormNumber?: string };
  BillAddr?: { Line1?: string; City?: string; CountrySubDivisionCode?: string; PostalCode?: string };
  Active?: boolean;
}
interface QbAttachableRow {
  Id: string;
  FileName?: string;
  AttachableRef?: Array<{ EntityRef?: { type?: string; value?: string } }>;
}

const text = (v: unknown, max = 500) => cleanQbText(v, max);

/**
 * Why Billflow cannot put this QuickBooks bill in an approval, or null: its ids are not QuickBooks
 * ids, or an amount is not one an ACH payment can carry (issue 36 §1).
 */
function billProblem(b: QbBill): string | null {
  if (!cleanQbId(b.VendorRef?.value)) return 'its vendor reference is not a QuickBooks id';
  for (const [what, v] of [
    ['total', b.TotalAmt],
    ['balance', b.Balance],
  ] as const) {
    const a = achAmount(v);
    if (!a.ok) return a.reason.replace('its amount', `its ${what}`);
  }
  for (const l of b.Line ?? [])
    if (typeof l.Amount === 'number' && !achAmount(l.Amount).ok)
      return 'a line amount is not one an ACH payment can carry';
  return null;
}

/**
 * The QuickBooks vendors of these bills that are inactive, in QuickBooks (deleted there too: Intuit
 * makes a deleted vendor inactive) or in Billflow's vendors read model (as the last sync found it).
 * qb vendor id → its name as said in a refusal.
 */
async function inactiveVendors(
  app: AppServices,
  companyId: number,
  bills: ReadonlyArray<QbBill>,
  vendors: ReadonlyMap<string, QbVendorRow>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ids = [...new Set(bills.map((b) => b.VendorRef.value))];
  if (ids.length === 0) return out;
  const synced = await app.db
    .selectFrom('vendors')
    .select(['qb_vendor_id', 'name'])
    .where('company_id', '=', companyId)
    .where('qb_vendor_id', 'in', ids)
    .where('active', '=', false)
    .execute();
  const inactiveHere = new Map(synced.map((r) => [r.qb_vendor_id, r.name]));
  for (const b of bills) {
    const id = b.VendorRef.value;
    const qbVendor = vendors.get(id);
    if (qbVendor?.Active !== false && !inactiveHere.has(id)) continue;
    const name =
      text(qbVendor?.DisplayName, 255) ?? text(b.VendorRef.name, 255) ?? inactiveHere.get(id) ?? null;
    out.set(id, name ? `${name} (QuickBooks vendor ${id})` : `QuickBooks vendor ${id}`);
  }
  return out;
}

/** Why a bill's vendor cannot be paid, or null. */
const vendorProblem = (b: QbBill, inactive: ReadonlyMap<string, string>) => {
  const v = inactive.get(b.VendorRef.value);
  return v === undefined ? null : `its vendor ${v} is inactive`;
};

/** A QuickBooks amount already checked by billProblem (0 for one that was refused). */
const amountOf = (v: unknown) => {
  const a = achAmount(v);
  return a.ok ? a.amount : 0;
};

/** A QuickBooks refusal or outage, said as the caller can act on it. */
function qbFailure(err: unknown): never {
  if (err instanceof AppError) throw err;
  if (err instanceof QbGrantError)
    throw new AppError('CONFLICT', 'QuickBooks no longer accepts this connection. Please connect again.');
  if (err instanceof QbApiError) throw new AppError('UNAVAILABLE', `QuickBooks: ${err.message}`);
  throw err;
}

async function liveCompany(app: AppServices, companyId: number) {
  const company = await app.db
    .selectFrom('companies')
    .select(['id', 'name', 'qb_realm_id', 'qb_connection_status'])
    .where('id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!company) throw new AppError('NOT_FOUND', 'Company not found');
  return company;
}

/**
 * The company's open bills and their vendors for the /bills screen, from its copy kept fresh by
 * QuickBooks' CDC (services/approvals/bill-copy.ts; issue 37 item 7) instead of a fresh list per view.
 * Filtered as fetchQbBills filters QuickBooks' answer; the caller cleans what it shows.
 */
async function openBillsFromCopy(app: AppServices, companyId: number, ctx: CommandContext, refresh: boolean) {
  try {
    const copy = await billCopyFor(app, companyId, ctx, refresh ? 'cdc' : undefined);
    const bills = (copy.bills as unknown as QbBill[]).filter(
      (b) => cleanQbId(b.Id) !== null && typeof b.VendorRef === 'object' && b.VendorRef,
    );
    const wanted = new Set(bills.map((b) => b.VendorRef.value));
    const vendors = new Map<string, QbVendorRow>();
    for (const v of copy.vendors as unknown as QbVendorRow[])
      if (typeof v.Id === 'string' && wanted.has(v.Id)) vendors.set(v.Id, v);
    return { bills, vendors, realmId: copy.realmId };
  } catch (err) {
    qbFailure(err);
  }
}

/** Bills (by id, or the open ones), their vendors and their attachables, from the company's QuickBooks. */
async function fetchQbBills(
  app: AppServices,
  companyId: number,
  ctx: CommandContext,
  billIds: string[] | null,
) {
  try {
    const { client, isSandbox, realmId, auth } = await qbAccess(app, companyId, ctx);
    const q = <T>(query: string) => client.query<T>(isSandbox, realmId, auth, query);
    const bills: QbBill[] = [];
    if (billIds) {
      for (let i = 0; i < billIds.length; i += 100) {
        const chunk = billIds.slice(i, i + 100);
        const r = await q<{ Bill?: QbBill[] }>(
          `select * from Bill where Id in (${qbStringList(chunk)}) MAXRESULTS 1000`,
        );
        bills.push(...(r.QueryResponse.Bill ?? []));
      }
    } else {
      // The open bills: a balance left to pay (at most 5,000: the /bills screen's page of work).
      for (let start = 1; start <= 5000; start += 1000) {
        const r = await q<{ Bill?: QbBill[] }>(
          `select * from Bill where Balance > '0' STARTPOSITION ${start} MAXRESULTS 1000`,
        );
        const page = r.QueryResponse.Bill ?? [];
        bills.push(...page);
        if (page.length < 1000) break;
      }
    }
    // A row without a QuickBooks id, or without a vendor, is nothing Billflow can show or pay.
    const usable = bills.filter(
      (b) => cleanQbId(b.Id) !== null && typeof b.VendorRef === 'object' && b.VendorRef,
    );
    bills.splice(0, bills.length, ...usable);
    const vendorIds = [
      ...new Set(bills.map((b) => cleanQbId(b.VendorRef.value)).filter((v): v is string => v !== null)),
    ];
    const vendors = new Map<string, QbVendorRow>();
    const attachables = new Map<string, QbAttachableRow>();
    for (let i = 0; i < vendorIds.length; i += 100) {
      const r = await q<{ Vendor?: QbVendorRow[] }>(
        // Inactive (or deleted) vendors too: Intuit answers only active ones unless asked.
        `select * from Vendor where Id in (${qbStringList(vendorIds.slice(i, i + 100))}) and Active IN (true,false) MAXRESULTS 1000`,
      );
      for (const v of r.QueryResponse.Vendor ?? []) vendors.set(v.Id, v);
    }
    if (billIds) {
      const ids = bills.map((b) => b.Id);
      for (let i = 0; i < ids.length; i += 100) {
        const r = await q<{ Attachable?: QbAttachableRow[] }>(
          `select * from Attachable where AttachableRef.EntityRef.Type = 'Bill' and AttachableRef.EntityRef.value in (${qbStringList(ids.slice(i, i + 100))}) MAXRESULTS 1000`,
        );
        for (const a of r.QueryResponse.Attachable ?? [])
          for (const ref of a.AttachableRef ?? [])
            if (
              ref.EntityRef?.type === 'Bill' &&
              ref.EntityRef.value &&
              !attachables.has(ref.EntityRef.value)
            )
              attachables.set(ref.EntityRef.value, a);
      }
    }
    return { bills, vendors, attachables };
  } catch (err) {
    qbFailure(err);
  }
}

function snapshotOf(
  b: QbBill,
  vendor: QbVendorRow | undefined,
  att: QbAttachableRow | undefined,
): BillSnapshot {
  return {
    Id: b.Id,
    DocNumber: text(b.DocNumber, 40),
    TxnDate: text(b.TxnDate, 40),
    DueDate: text(b.DueDate, 40),
    TotalAmt: amountOf(b.TotalAmt),
    Balance: amountOf(b.Balance),
    CurrencyRef: text(b.CurrencyRef?.value, 10),
    VendorRef: {
      value: b.VendorRef.value,
      name: text(b.VendorRef.name, 255) ?? text(vendor?.DisplayName, 255),
    },
    VendorInfo: { CompanyName: text(vendor?.CompanyName ?? vendor?.DisplayName, 255) },
    VendorAddr: vendor?.BillAddr
      ? {
          Line1: text(vendor.BillAddr.Line1, 255),
          City: text(vendor.BillAddr.City, 255),
          CountrySubDivisionCode: text(vendor.BillAddr.CountrySubDivisionCode, 40),
          PostalCode: text(vendor.BillAddr.PostalCode, 40),
        }
      : null,
    Line: (b.Line ?? [])
      .filter((l) => typeof l.Amount === 'number')
      .slice(0, 200)
      .map((l, i) => ({
        Id: text(l.Id, 40) ?? String(i + 1),
        Description: text(l.Description, 1000),
        Amount: amountOf(l.Amount),
        Qty:
          typeof l.ItemBasedExpenseLineDetail?.Qty === 'number' &&
          Number.isFinite(l.ItemBasedExpenseLineDetail.Qty) &&
          Math.abs(l.ItemBasedExpenseLineDetail.Qty) < 1e9
            ? l.ItemBasedExpenseLineDetail.Qty
            : null,
        ItemName: text(l.ItemBasedExpenseLineDetail?.ItemRef?.name, 255),
        AccountName: text(l.AccountBasedExpenseLineDetail?.AccountRef?.name, 255),
      })),
    AttachableId: att?.Id ?? null,
    InvoiceFileName: text(att?.FileName, 255),
  };
}

// The document number as cleaned for the snapshot: a NUL or lone surrogate never reaches an event.
const fingerprintOf = (b: { VendorRef: { value: string }; TotalAmt: number; DocNumber?: string | null }) =>
  billFingerprint({
    vendorId: b.VendorRef.value,
    amount: amountOf(b.TotalAmt),
    docNumber: text(b.DocNumber, 40),
  });

/**
 * Bills that look like a bill (other id) already paid in QuickBooks: the same vendor, amount and
 * document number, balance zero. Looked up by document number (bills without one are not compared:
 * every same-amount bill of a vendor would match). bill id → the paid bill's id.
 */
async function paidLookalikes(
  app: AppServices,
  companyId: number,
  ctx: CommandContext,
  bills: ReadonlyArray<{
    Id: string;
    DocNumber?: string | null;
    TotalAmt: number;
    VendorRef: { value: string };
  }>,
  /** The realm of the company's bill copy: the paid bills are looked up there, not in QuickBooks. */
  copyRealmId: string | null = null,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  // Cleaned: a lone surrogate cannot be put in a query's URL (it answered 500 on /bills).
  const docs = [...new Set(bills.map((b) => text(b.DocNumber, 40)).filter((d): d is string => !!d))];
  if (docs.length === 0) return out;
  try {
    const found: QbBill[] = [];
    if (copyRealmId !== null)
      found.push(...((await paidInCopy(app, companyId, copyRealmId, docs)) as unknown as QbBill[]));
    else {
      const { client, isSandbox, realmId, auth } = await qbAccess(app, companyId, ctx);
      for (let i = 0; i < docs.length; i += 100) {
        const r = await client.query<{ Bill?: QbBill[] }>(
          isSandbox,
          realmId,
          auth,
          `select * from Bill where DocNumber in (${qbStringList(docs.slice(i, i + 100))}) MAXRESULTS 1000`,
        );
        found.push(...(r.QueryResponse.Bill ?? []));
      }
    }
    const paid = new Map<string, string>();
    for (const f of found) if (!(Number(f.Balance) > 0)) paid.set(fingerprintOf(f), f.Id);
    for (const b of bills) {
      const match = paid.get(fingerprintOf(b));
      if (match !== undefined && match !== b.Id) out.set(b.Id, match);
    }
    return out;
  } catch (err) {
    qbFailure(err);
  }
}

export type BillCandidate = z.infer<typeof ApprovalBillCandidate>;

/** As QuickBooks sent it, for the list (a refused bill says why beside it); 0 when not a number. */
const finite = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);

/** GET /bills?companyId=: the company's open QuickBooks bills for the /bills screen. */
export async function billsForApproval(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<BillCandidate[]> {
  authorize(actor, 'approvals.write');
  const { companyId, refresh } = parseInput(BillsForApprovalInput, query);
  await liveCompany(app, companyId);
  await requireCompanyInScope(app, actor, companyId);
  const [{ bills, vendors, realmId }, claims] = await Promise.all([
    openBillsFromCopy(app, companyId, commandContext(actor), refresh === true),
    app.commands.load(approvalBillsDecider, approvalBillsDecider.streamId(companyId)),
  ]);
  const ach = await achStatuses(
    app,
    companyId,
    bills.map((b) => b.VendorRef.value),
  );
  const dups = new Map(
    findDuplicates(
      claims.state,
      bills.map((b) => ({ billId: b.Id, fingerprint: fingerprintOf(b) })),
    ).map((d) => [d.billId, d]),
  );
  const paidLike = await paidLookalikes(app, companyId, commandContext(actor), bills, realmId);
  const inactive = await inactiveVendors(app, companyId, bills, vendors);
  return bills
    .map((b) => {
      const open = claims.state.open.get(b.Id) ?? null;
      const dup = dups.get(b.Id);
      const a = ach.get(b.VendorRef.value);
      return {
        id: b.Id,
        docNumber: text(b.DocNumber, 40),
        txnDate: text(b.TxnDate, 40),
        dueDate: text(b.DueDate, 40),
        amount: finite(b.TotalAmt),
        balance: finite(b.Balance),
        vendorQbId: cleanQbId(b.VendorRef.value) ?? '',
        refusedReason: billProblem(b) ?? vendorProblem(b, inactive),
        vendorName: text(b.VendorRef.name, 255) ?? text(vendors.get(b.VendorRef.value)?.DisplayName, 255),
        vendorId: a?.vendorId ?? null,
        bankingReady: a?.hasBankingInfo ?? false,
        inOpenApproval: open !== null,
        openApprovalId: open,
        possibleDuplicate: dup !== undefined || paidLike.has(b.Id),
        duplicateOf: dup
          ? { billId: dup.matchesBillId, approvalId: dup.matchesApprovalId, paid: dup.paid }
          : paidLike.has(b.Id)
            ? { billId: paidLike.get(b.Id)!, approvalId: null, paid: true }
            : null,
      };
    })
    .sort((x, y) => (x.dueDate ?? '').localeCompare(y.dueDate ?? '') || x.id.localeCompare(y.id));
}

// --- commands -------------------------------------------------------------------------------------

/**
 * The answer after a command on an approval: its row, once the read model has applied the command's
 * events (answerAfterWrite: 503 if a new approval is still not shown after two waits), mapped as
 * every read maps it. The bills and recipients are not in the read model: they are opened from the
 * log, here the stream as the command left it.
 */
function answer(
  app: AppServices,
  approvalId: string,
  position: Position | null,
  state: ApprovalState,
): Promise<ApprovalDto> {
  return answerAfterWrite(app, position, ['approvals'], async () => {
    const row = await findRow(app, approvalId);
    return row ? withDetail(app, (await toDtos(app, [row]))[0], state) : null;
  });
}

/** A manager newly assigned must exist and be ACTIVE (the picker offers only those). */
async function requireManager(app: AppServices, managerId: number) {
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

export type ManagerOption = z.infer<typeof ApprovalManagerOption>;

export const MANAGER_OPTIONS_MAX = 1000;

/**
 * GET /manager-options: the ACTIVE managers an approval can be assigned to (ADMIN, MODERATOR). The
 * managers list itself is ADMIN's (spec 2 §2); this gives staff only what the picker needs.
 */
export async function approvalManagerOptions(
  app: AppServices,
  actor: Actor | null,
): Promise<ManagerOption[]> {
  authorize(actor, 'approvals.write');
  const rows = await app.db
    .selectFrom('managers')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('deleted_at', 'is', null)
    .where('status', '=', 'ACTIVE')
    .orderBy(sql`lower(first_name)`)
    .orderBy(sql`lower(last_name)`)
    .orderBy('id')
    .limit(MANAGER_OPTIONS_MAX)
    .execute();
  return rows.map((m) => {
    const first = m.first_name.trim();
    const last = m.last_name.trim();
    return { id: m.id, displayName: first && last ? `${first} ${last}` : m.email, email: m.email };
  });
}

function releaseBills(
  app: AppServices,
  companyId: number,
  releases: Array<{ approvalId: string; billIds: string[] }>,
  reason: Extract<ApprovalBillsCommand, { type: 'ReleaseBills' }>['reason'],
  ctx: CommandContext,
) {
  const wanted = releases.filter((r) => r.billIds.length > 0);
  if (wanted.length === 0) return Promise.resolve(null);
  return app.commands.handle(
    approvalBillsDecider,
    approvalBillsDecider.streamId(companyId),
    { type: 'ReleaseBills', companyId, releases: wanted, reason, now: new Date().toISOString() },
    ctx,
  );
}

/** The bills an approval no longer holds after the event that closed it (none while it stays open). */
export function billsToRelease(state: ApprovalState): {
  billIds: string[];
  reason: 'rejected' | 'expired' | 'deleted' | 'not-approved';
} | null {
  const all = state.bills.map((b) => b.Id);
  if (state.deleted) return { billIds: all, reason: 'deleted' };
  if (state.status === 'REJECTED') return { billIds: all, reason: 'rejected' };
  if (state.status === 'EXPIRED') return { billIds: all, reason: 'expired' };
  if (state.status === 'APPROVED') {
    const approved = new Set(state.approvedBillIds);
    return { billIds: all.filter((id) => !approved.has(id)), reason: 'not-approved' };
  }
  return null;
}

/** Frees what the approval's last event let go (the process manager does it again after a crash). */
export async function releaseFor(
  app: AppServices,
  approvalId: string,
  state: ApprovalState,
  ctx: CommandContext,
) {
  const r = billsToRelease(state);
  if (!r || state.companyId === null) return null;
  return releaseBills(app, state.companyId, [{ approvalId, billIds: r.billIds }], r.reason, ctx);
}

/** POST /approvals: fetch the bills from QuickBooks, claim them, and record the approval with its snapshot. */
export async function createApproval(
  app: AppServices,
  actor: Actor | null,
  body: unknown,
  options: { expiresInMs?: number } = {},
): Promise<ApprovalDto> {
  authorize(actor, 'approvals.write');
  const input = parseInput(CreateApprovalInput, body);
  await liveCompany(app, input.companyId);
  await requireCompanyInScope(app, actor, input.companyId);
  if (input.managerId !== undefined) await requireManager(app, input.managerId);
  const ctx = commandContext(actor);
  const { bills, vendors, attachables } = await fetchQbBills(app, input.companyId, ctx, input.billIds);
  const byId = new Map(bills.map((b) => [b.Id, b]));
  const missing = input.billIds.filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw new AppError('VALIDATION', `Not found in QuickBooks: bill ${missing.join(', ')}`, [
      { field: 'billIds', message: `Not found in QuickBooks: ${missing.join(', ')}` },
    ]);
  const paid = input.billIds.filter((id) => !(Number(byId.get(id)!.Balance) > 0));
  if (paid.length > 0)
    throw new AppError('VALIDATION', `Already paid in QuickBooks: bill ${paid.join(', ')}`, [
      { field: 'billIds', message: `Already paid: ${paid.join(', ')}` },
    ]);
  const ordered = input.billIds.map((id) => byId.get(id)!);
  const inactive = await inactiveVendors(app, input.companyId, ordered, vendors);
  const refused = ordered
    .map((b) => ({ id: b.Id, reason: billProblem(b) ?? vendorProblem(b, inactive) }))
    .filter((r): r is { id: string; reason: string } => r.reason !== null);
  if (refused.length > 0) {
    const said = refused.map((r) => `bill ${r.id}: ${r.reason}`).join('; ');
    throw new AppError('VALIDATION', `Billflow cannot pay these QuickBooks bills (${said})`, [
      { field: 'billIds', message: said },
    ]);
  }
  const snapshots = ordered.map((b) => snapshotOf(b, vendors.get(b.VendorRef.value), attachables.get(b.Id)));
  const contacts: VendorContact[] = [...new Set(ordered.map((b) => b.VendorRef.value))].map((v) => ({
    qbVendorId: v,
    email: text(vendors.get(v)?.PrimaryEmailAddr?.Address, 254),
    phone: text(vendors.get(v)?.PrimaryPhone?.FreeFormNumber, 40),
  }));
  const paidLike = await paidLookalikes(app, input.companyId, ctx, ordered);
  const now = new Date();
  const claim = await app.commands.handle(
    approvalBillsDecider,
    approvalBillsDecider.streamId(input.companyId),
    {
      type: 'ClaimBills',
      companyId: input.companyId,
      approvalId: randomUUID(),
      bills: ordered.map((b) => ({ billId: b.Id, fingerprint: fingerprintOf(b) })),
      paidLookalikes: [...paidLike].map(([billId, matchesBillId]) => ({ billId, matchesBillId })),
      confirmDuplicates: input.confirmDuplicates,
      now: now.toISOString(),
    },
    ctx,
  );
  const claimed = claim.events.find((e) => e.type === 'ApprovalBillsClaimed');
  if (claimed?.type !== 'ApprovalBillsClaimed') throw new Error('ClaimBills claimed nothing');
  // The approval the claim was made for: on a retry with the same Idempotency-Key (after a 503, say)
  // the stored claim's, so the retry finds that approval instead of creating a second one.
  const { approvalId, confirmedDuplicates } = claimed.data;
  const expiresAt = new Date(
    now.getTime() + (options.expiresInMs ?? app.config.APPROVAL_EXPIRY_SECONDS * 1000),
  );
  let created: Awaited<ReturnType<typeof app.commands.handle<ApprovalState, unknown, ApprovalEvent>>>;
  try {
    created = await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      {
        type: 'CreateApproval',
        approvalId,
        companyId: input.companyId,
        priority: input.priority,
        managerId: input.managerId ?? null,
        byUserId: actor.id,
        bills: snapshots,
        vendorContacts: contacts,
        recipients: input.recipients,
        confirmedDuplicates,
        expiresAt: expiresAt.toISOString(),
        now: now.toISOString(),
      },
      ctx,
    );
  } catch (err) {
    // The claim must not outlive a create that failed: free the bills at once (the process manager's
    // check does it later if this process dies first).
    await releaseBills(
      app,
      input.companyId,
      [{ approvalId, billIds: input.billIds }],
      'abandoned',
      commandContext(actor),
    ).catch(() => {});
    throw err;
  }
  return answer(app, approvalId, created.position, created.state);
}

async function onApproval(
  app: AppServices,
  actor: Actor,
  id: unknown,
  command: Parameters<typeof approvalDecider.decide>[0],
  ctx: CommandContext = commandContext(actor),
) {
  const approvalId = parseApprovalId(id);
  await requireActionableRow(app, actor, approvalId);
  const r = await app.commands.handle(approvalDecider, approvalStreamId(approvalId), command, ctx);
  return { approvalId, ...r };
}

/** PUT /approvals/{id}: priority, manager (null clears), recipients — while PENDING. */
export async function updateApproval(app: AppServices, actor: Actor | null, id: unknown, body: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const input = parseInput(UpdateApprovalInput, body);
  // Keeping the manager it has (even one no longer active) is no new assignment.
  if (input.managerId != null && (await findRow(app, approvalId))?.manager_id !== input.managerId)
    await requireManager(app, input.managerId);
  const r = await onApproval(app, actor, approvalId, {
    type: 'UpdateApproval',
    priority: input.priority,
    managerId: input.managerId,
    recipients: input.recipients,
    now: new Date().toISOString(),
  });
  return answer(app, approvalId, r.position, r.state);
}

/** PUT /approvals/{id}/recipients: while the approval is open (PENDING or APPROVED). */
export async function updateApprovalRecipients(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body: unknown,
) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const { recipients } = parseInput(RecipientsInput, body);
  const r = await onApproval(app, actor, approvalId, {
    type: 'UpdateRecipients',
    recipients,
    now: new Date().toISOString(),
  });
  return answer(app, approvalId, r.position, r.state);
}

async function policyOf(app: AppServices, companyId: number): Promise<ApprovalPolicy> {
  return (await app.commands.load(approvalPolicyDecider, approvalPolicyDecider.streamId(companyId))).state;
}

async function approveOne(
  app: AppServices,
  actor: Actor,
  approvalId: string,
  billIds: string[] | 'all',
  ctx: CommandContext,
) {
  const row = await requireActionableRow(app, actor, approvalId);
  const policy = await policyOf(app, row.company_id);
  const ids = billIds === 'all' ? row.bill_ids : billIds;
  const r = await app.commands.handle(
    approvalDecider,
    approvalStreamId(approvalId),
    {
      type: 'ApproveApproval',
      approvedBillIds: ids,
      byUserId: actor.id,
      policy,
      now: new Date().toISOString(),
    },
    ctx,
  );
  return { approvalId, ...r };
}

/** PUT /approvals/{id}/approve: the approved subset (approvedBills); ADMIN, MODERATOR. */
export async function approveApproval(app: AppServices, actor: Actor | null, id: unknown, body: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const { approvedBills } = parseInput(ApproveApprovalInput, body);
  const ctx = commandContext(actor);
  const r = await approveOne(app, actor, approvalId, approvedBills, ctx);
  // The bills left out are free for another approval.
  if (r.events.some((e) => e.type === 'ApprovalApproved')) await releaseFor(app, approvalId, r.state, ctx);
  return answer(app, approvalId, r.position, r.state);
}

/** PUT /approvals/{id}/reject: a reason (trimmed, not blank, at most 1,000 characters). */
export async function rejectApproval(app: AppServices, actor: Actor | null, id: unknown, body: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const { rejectionReason } = parseInput(RejectApprovalInput, body);
  const ctx = commandContext(actor);
  const r = await onApproval(
    app,
    actor,
    approvalId,
    { type: 'RejectApproval', reason: rejectionReason, byUserId: actor.id, now: new Date().toISOString() },
    ctx,
  );
  if (r.events.length > 0) await releaseFor(app, approvalId, r.state, ctx);
  return answer(app, approvalId, r.position, r.state);
}

/** DELETE /approvals/{id}: leaves every list; its events stay; its bills are free again. */
export async function deleteApproval(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const ctx = commandContext(actor);
  const r = await onApproval(
    app,
    actor,
    approvalId,
    { type: 'DeleteApproval', byUserId: actor.id, now: new Date().toISOString() },
    ctx,
  );
  await releaseFor(app, approvalId, r.state, ctx);
  await awaitProjections(app, r.position, ['approvals']);
}

/** The expiry job's command (system): EXPIRED if still PENDING, else nothing. */
export async function expireApproval(app: AppServices, approvalId: string, ctx: CommandContext) {
  try {
    const r = await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      { type: 'ExpireApproval', now: new Date().toISOString() },
      ctx,
    );
    return r.events.length > 0 ? 'expired' : 'unchanged';
  } catch (err) {
    // Deleted meanwhile: nothing to expire.
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return 'unchanged';
    throw err;
  }
}

export type BulkResult = z.infer<typeof ApprovalBulkResult>;

/**
 * Bulk approve (all bills of each) or reject (one reason): each approval its own command on its own
 * stream, 16 at a time; the bills to free are released per company in one append each; one
 * read-your-writes wait for the whole batch.
 */
async function bulk(
  app: AppServices,
  actor: Actor,
  ids: string[],
  act: (
    approvalId: string,
    ctx: CommandContext,
  ) => Promise<{ position: Position | null; state: ApprovalState; events: ApprovalEvent[] }>,
): Promise<BulkResult> {
  const ctx = commandContext(actor);
  let last: Position | null = null;
  type Reason = NonNullable<ReturnType<typeof billsToRelease>>['reason'];
  const releases = new Map<number, Map<Reason, Array<{ approvalId: string; billIds: string[] }>>>();
  const outcomes = await inParallel(ids, 16, async (id) => {
    try {
      const approvalId = parseApprovalId(id);
      const r = await act(approvalId, ctx);
      if (r.position !== null && (last === null || r.position > last)) last = r.position;
      const free = r.events.length > 0 ? billsToRelease(r.state) : null;
      if (free && free.billIds.length > 0 && r.state.companyId !== null) {
        const byReason = releases.get(r.state.companyId) ?? new Map();
        byReason.set(free.reason, [
          ...(byReason.get(free.reason) ?? []),
          { approvalId, billIds: free.billIds },
        ]);
        releases.set(r.state.companyId, byReason);
      }
      return { id, approvalId, error: null };
    } catch (err) {
      return { id, approvalId: null, error: toAppError(err).message };
    }
  });
  await Promise.all(
    [...releases].flatMap(([companyId, byReason]) =>
      [...byReason].map(([reason, list]) =>
        releaseBills(app, companyId, list, reason, ctx).catch((err) =>
          // The process manager frees them again from the approvals' own events.
          app.log.warn(
            { companyId, error: err instanceof Error ? err.message : String(err) },
            'bulk release failed',
          ),
        ),
      ),
    ),
  );
  // Each status as the read model holds it once it has applied the batch, as a read would show it.
  const statuses = await answerAfterWrite(app, last, ['approvals'], async () => {
    const acted = outcomes.flatMap((o) => (o.approvalId === null ? [] : [o.approvalId]));
    if (acted.length === 0) return new Map<string, ApprovalStatus>();
    const rows = await app.db
      .selectFrom('approvals')
      .select(['id', 'status'])
      .where('id', 'in', acted)
      .execute();
    return new Map(rows.map((r) => [r.id, r.status]));
  });
  const results = outcomes.map(({ id, approvalId, error }) =>
    approvalId === null
      ? { id, success: false, status: null, error }
      : { id, success: true, status: statuses.get(approvalId) ?? null, error: null },
  );
  const succeeded = results.filter((r) => r.success).length;
  return { results, summary: { processed: results.length, succeeded, failed: results.length - succeeded } };
}

/** POST /approvals/bulk-approve: every bill of each PENDING approval. */
export async function bulkApproveApprovals(app: AppServices, actor: Actor | null, body: unknown) {
  authorize(actor, 'approvals.write');
  const { ids } = parseInput(BulkApproveInput, body);
  return bulk(app, actor, ids, (approvalId, ctx) => approveOne(app, actor, approvalId, 'all', ctx));
}

/** POST /approvals/bulk-reject: one reason for all. */
export async function bulkRejectApprovals(app: AppServices, actor: Actor | null, body: unknown) {
  authorize(actor, 'approvals.write');
  const { ids, reason } = parseInput(BulkRejectInput, body);
  return bulk(app, actor, ids, (approvalId, ctx) =>
    onApproval(
      app,
      actor,
      approvalId,
      { type: 'RejectApproval', reason, byUserId: actor.id, now: new Date().toISOString() },
      ctx,
    ),
  );
}

/** GET /approvals/{id}/bills/{billId}/invoice: the bill's attachable (PDF) from QuickBooks. */
export async function approvalInvoice(app: AppServices, actor: Actor | null, id: unknown, billId: unknown) {
  authorize(actor, 'approvals.read');
  const approvalId = parseApprovalId(id);
  const row = await requireRow(app, actor, approvalId);
  const { state } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
  const bill = state.bills.find((b) => b.Id === billId);
  if (!bill) throw new AppError('NOT_FOUND', 'This bill is not part of the approval');
  if (!bill.AttachableId) throw new AppError('NOT_FOUND', 'No invoice URL found for this bill');
  try {
    const { client, isSandbox, realmId, auth } = await qbAccess(app, row.company_id, commandContext(actor));
    const file = await client.download(isSandbox, realmId, auth, bill.AttachableId);
    return {
      contentType: file.contentType,
      fileName: (bill.InvoiceFileName ?? `${bill.DocNumber ?? bill.Id}.pdf`).replace(/["\\\r\n]/g, '_'),
      body: Readable.fromWeb(file.body as never),
    };
  } catch (err) {
    qbFailure(err);
  }
}

// --- the policy -----------------------------------------------------------------------------------

export type ApprovalPolicyDto = z.infer<typeof ApprovalPolicyAnswer>;

/** GET /policies/{companyId} (ADMIN): the creator may not approve, by default. */
export async function getApprovalPolicy(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<ApprovalPolicyDto> {
  authorize(actor, 'approvals.policy');
  const companyId = parseCompanyId(id);
  await liveCompany(app, companyId);
  return { companyId, ...(await policyOf(app, companyId)) };
}

/** PUT /policies/{companyId} (ADMIN): creator may not approve; the second-approval threshold. */
export async function setApprovalPolicy(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body: unknown,
): Promise<ApprovalPolicyDto> {
  authorize(actor, 'approvals.policy');
  const companyId = parseCompanyId(id);
  const input = parseInput(ApprovalPolicyInput, body);
  await liveCompany(app, companyId);
  const r = await app.commands.handle(
    approvalPolicyDecider,
    approvalPolicyDecider.streamId(companyId),
    {
      type: 'SetApprovalPolicy',
      companyId,
      byUserId: actor.id,
      now: new Date().toISOString(),
      creatorMayNotApprove: input.creatorMayNotApprove,
      secondApprovalThreshold: input.secondApprovalThreshold,
      assignedStaffOnly: input.assignedStaffOnly ?? (await policyOf(app, companyId)).assignedStaffOnly,
    },
    commandContext(actor),
  );
  // Answered from the read model the approval reads judge with (who may approve): the next screen
  // sees the change. A command that changed nothing leaves a company that never set one on the default.
  return answerAfterWrite(app, r.position, ['approval_policies'], async () => {
    const policy = (await policiesOf(app, [companyId])).get(companyId);
    if (policy) return { companyId, ...policy };
    return r.position === null ? { companyId, ...DEFAULT_POLICY } : null;
  });
}

const parseCompanyId = (id: unknown) => parseRowId(id, 'Company not found');

// --- figures elsewhere ----------------------------------------------------------------------------

export type ApprovalsDay = z.infer<typeof ApprovalsDayAnswer>;

/**
 * The dashboard's chart (issue 12 item 8): approvals created each day of the last `days` days (UTC),
 * by their status now; days without any are zeros. Counts only, so it sits with the dashboard's figures.
 */
export async function approvalsByDay(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<ApprovalsDay[]> {
  authorize(actor, 'dashboard.read');
  const { days } = parseInput(ApprovalsByDayInput, query);
  const today = new Date();
  const start = new Date(
    Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)),
  );
  const rows = await app.db
    .selectFrom('approvals')
    .select((eb) => [
      sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      'status',
      eb.fn.countAll<string>().as('n'),
    ])
    .where(sql<boolean>`NOT deleted`)
    .where('created_at', '>=', start)
    .groupBy([sql`1`, 'status'])
    .execute();
  const out: ApprovalsDay[] = Array.from({ length: days }, (_, i) => {
    const d = new Date(start.getTime() + i * 86_400_000);
    return { date: d.toISOString().slice(0, 10), pending: 0, approved: 0, rejected: 0, expired: 0, total: 0 };
  });
  const byDate = new Map(out.map((d) => [d.date, d]));
  for (const r of rows) {
    const d = byDate.get(r.day);
    if (!d) continue;
    const n = num(r.n);
    const key = r.status.toLowerCase() as 'pending' | 'approved' | 'rejected' | 'expired';
    if (key in d) d[key] += n;
    d.total += n;
  }
  return out;
}
