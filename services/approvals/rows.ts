// The approvals read model as every answer reads it: the shared row query (approval, company, manager),
// the row → answer mapping with the people and the companies' policies, and the row lookups a read or
// a command starts from (absent, deleted or outside the reader's companies is not found).
import { sql } from 'kysely';
import type { z } from 'zod';
import type {
  AchStatus as AchStatusAnswer,
  ApprovalBill as ApprovalBillAnswer,
  ApprovalData,
  ManagerRef as ManagerRefAnswer,
  PersonRef as PersonRefAnswer,
} from '../../schema/approvals/answers.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import type { Actor } from '../auth/permissions.js';
import { AppError } from '../shared/errors.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { type BankingFlagDto, bankingFlagsOf, flagsOfApproval } from './banking-flags.js';
import { PAYMENT_SELECT, paymentFields } from './payments/payment-rows.js';
import { type ApprovalPolicy, DEFAULT_POLICY } from './policy-decider.js';

export type PersonRef = z.infer<typeof PersonRefAnswer>;
export type ManagerRef = z.infer<typeof ManagerRefAnswer>;
export type AchStatus = z.infer<typeof AchStatusAnswer>;
export type ApprovalBill = z.infer<typeof ApprovalBillAnswer>;
/** The approval as every reader gets it: kept and shared, so it holds nothing of one viewer. */
export type ApprovalDto = z.infer<typeof ApprovalData>;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseApprovalId(id: unknown): string {
  if (typeof id !== 'string' || !UUID.test(id)) throw new AppError('NOT_FOUND', 'Approval not found');
  return id.toLowerCase();
}

export const num = (v: string | number | null | undefined) => (v == null ? 0 : Number(v));

export function approvalRows(app: AppServices) {
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
      'a.vendor_qb_ids',
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
      ...PAYMENT_SELECT,
      'c.name as company_name',
      'm.first_name as m_first',
      'm.last_name as m_last',
      'm.email as m_email',
      'm.phone as m_phone',
      'm.title as m_title',
    ])
    .where(sql<boolean>`NOT a.deleted`);
}
export type ApprovalRow = Awaited<ReturnType<ReturnType<typeof approvalRows>['executeTakeFirstOrThrow']>>;

const person = (id: number | null, first: string | null, last: string | null): PersonRef | null =>
  id === null ? null : { id, firstName: first, lastName: last };

type People = Map<number, { first: string | null; last: string | null }>;
const personOf = (people: People, id: number | null) =>
  person(id, people.get(id ?? 0)?.first ?? null, people.get(id ?? 0)?.last ?? null);

/**
 * The rows' people (creator, approvers, rejecter) in one query for the page: four more joins made
 * the list's statement cost more to plan (16 ms under load) than to run (1 ms). Beside it, in
 * parallel, the companies' policies and the bank detail changes of the rows' vendors (one each).
 */
export async function toDtos(app: AppServices, rows: ApprovalRow[]): Promise<ApprovalDto[]> {
  const ids = [
    ...new Set(
      rows
        .flatMap((r) => [r.created_by, r.approved_by, r.rejected_by, r.first_approved_by])
        .filter((x) => x !== null),
    ),
  ] as number[];
  const people: People = new Map();
  // The companies' policies beside the names (in parallel: no further round trip for the list).
  const [users, policies, flags] = await Promise.all([
    ids.length > 0
      ? app.db.selectFrom('users').select(['id', 'first_name', 'last_name']).where('id', 'in', ids).execute()
      : [],
    policiesOf(
      app,
      rows.map((r) => r.company_id),
    ),
    bankingFlagsOf(
      app,
      rows.flatMap((r) =>
        (r.vendor_qb_ids ?? []).map((qbVendorId) => ({ companyId: r.company_id, qbVendorId })),
      ),
    ),
  ]);
  for (const u of users) people.set(u.id, { first: u.first_name, last: u.last_name });
  return rows.map((r) =>
    toDto(
      r,
      people,
      policies.get(r.company_id) ?? DEFAULT_POLICY,
      flagsOfApproval(flags, r.company_id, r.vendor_qb_ids ?? []),
    ),
  );
}

/** The segregation-of-duties policies of these companies (the default when none was ever set). */
export async function policiesOf(
  app: AppServices,
  companyIds: number[],
): Promise<Map<number, ApprovalPolicy>> {
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

function toDto(
  r: ApprovalRow,
  people: People = new Map(),
  policy: ApprovalPolicy = DEFAULT_POLICY,
  bankingFlags: BankingFlagDto[] = [],
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
    bankingFlags,
    bankingReview: null,
    bankingToApproveAgain: null,
    ...paymentFields(r),
  };
}

export async function findRow(app: AppServices, id: string) {
  return approvalRows(app).where('a.id', '=', id).executeTakeFirst();
}

/** The approval's row for a reader: absent, deleted or outside their companies is not found. */
export async function requireRow(app: AppServices, actor: Actor, id: string): Promise<ApprovalRow> {
  const row = await findRow(app, id);
  if (!row || !inScope(await companyScope(app, actor), row.company_id))
    throw new AppError('NOT_FOUND', 'Approval not found');
  return row;
}

/**
 * The approval's row before a command on it. A command acts only on what the screens can show:
 * an approval its read model does not hold (not projected yet, or its events parked)
 * waits for the read model to pass its stream, and is refused if still absent.
 */
export async function requireActionableRow(app: AppServices, actor: Actor, id: string): Promise<ApprovalRow> {
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
