// The Approval type (spec 2 §3), its queries and mutations (spec 2 §7 Approvals; issue 12), the bills
// a new approval can take, the company's approval policy, and live changes: approvalChanged.

import type { z } from 'zod';
import type { ChangeNotice } from '../../../../projections/projection.js';
import {
  AchStatus as AchStatusAnswer,
  ApprovalBillCandidate,
  ApprovalBulkResult,
  ApprovalData,
  ApprovalDuplicate,
  ApprovalExportFile,
  ApprovalHistoryEntry as ApprovalHistoryEntryAnswer,
  ApprovalManagerOption,
  ApprovalPage,
  ApprovalPolicy,
  ApprovalStats as ApprovalStatsAnswer,
  ManagerRef as ManagerRefAnswer,
  PersonRef as PersonRefAnswer,
} from '../../../../schema/approvals/answers.js';
import { APPROVAL_STATUSES, PRIORITIES } from '../../../../schema/approvals/events.js';
import { ApprovalsDay as ApprovalsDayAnswer } from '../../../../schema/dashboard/answers.js';
import type { AppServices } from '../../../app/context.js';
import {
  type AchStatus,
  type ApprovalBill,
  type ApprovalDto,
  type ApprovalHistoryEntry,
  type ApprovalPolicyDto,
  type ApprovalStats,
  type ApprovalsDay,
  approvalHistory,
  approvalManagerOptions,
  approvalStats,
  approvalSummaries,
  approvalsByDay,
  approvalsExportFile,
  approveApproval,
  type BillCandidate,
  type BulkResult,
  billsForApproval,
  bulkApproveApprovals,
  bulkRejectApprovals,
  createApproval,
  deleteApproval,
  getApproval,
  getApprovalPolicy,
  getApprovalSummary,
  LIST_READ_MODELS,
  listApprovals,
  type ManagerOption,
  type PersonRef,
  rejectApproval,
  setApprovalPolicy,
  updateApproval,
  updateApprovalRecipients,
  viewerApproval,
} from '../../../approvals/approvals.js';
import { type Actor, authorize } from '../../../auth/permissions.js';
import type { Page } from '../../../shared/paging.js';
import { inStaffScope, type LiveBus, seedSharedRead, sharedRead } from '../../live.js';
import { cacheableQuery } from '../../response-cache.js';
import { answerFields } from '../answer-fields.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { withoutNulls } from '../inputs.js';

const StatusEnum = builder.enumType('ApprovalStatus', { values: APPROVAL_STATUSES });
const PriorityEnum = builder.enumType('ApprovalPriority', { values: PRIORITIES });
const SortEnum = builder.enumType('ApprovalSortBy', {
  values: [
    'createdAt',
    'updatedAt',
    'status',
    'priority',
    'companyName',
    'billCount',
    'approvedBillCount',
    'totalAmount',
    'approvedAmount',
    'managerName',
  ] as const,
});
const SortOrderEnum = builder.enumType('SortOrder', { values: ['asc', 'desc'] as const });

const PersonRefType = builder
  .objectRef<PersonRef>('ApprovalPerson')
  .implement({ fields: (t) => answerFields(t, PersonRefAnswer) });

const ManagerRefType = builder
  .objectRef<NonNullable<ApprovalDto['manager']>>('ApprovalManager')
  .implement({ fields: (t) => answerFields(t, ManagerRefAnswer) });

const AchStatusType = builder.objectRef<AchStatus>('ApprovalBillAchStatus').implement({
  fields: (t) => ({
    // accountType (checking, savings) has been a String in the schema the web types against.
    ...answerFields(t, AchStatusAnswer, {
      omit: ['routingNumber', 'accountNumber'],
      refs: { accountType: 'String' },
    }),
    routingNumber: t.exposeString('routingNumber', { nullable: true, description: 'Masked' }),
    accountNumber: t.exposeString('accountNumber', { nullable: true, description: 'Masked' }),
  }),
});

// The bill keeps QuickBooks' names in the answer (REST's shape); GraphQL names its fields in its own
// style, so these three types map each field (the drift test holds the mapping to the answer).
const BillLineType = builder.objectRef<ApprovalBill['Line'][number]>('ApprovalBillLine').implement({
  fields: (t) => ({
    id: t.string({ resolve: (l) => l.Id }),
    description: t.string({ nullable: true, resolve: (l) => l.Description }),
    amount: t.float({ resolve: (l) => l.Amount }),
    qty: t.float({ nullable: true, resolve: (l) => l.Qty }),
    itemName: t.string({ nullable: true, resolve: (l) => l.ItemName }),
    accountName: t.string({ nullable: true, resolve: (l) => l.AccountName }),
  }),
});

const AddressType = builder
  .objectRef<NonNullable<ApprovalBill['VendorAddr']>>('ApprovalVendorAddress')
  .implement({
    fields: (t) => ({
      line1: t.string({ nullable: true, resolve: (a) => a.Line1 }),
      city: t.string({ nullable: true, resolve: (a) => a.City }),
      countrySubDivisionCode: t.string({ nullable: true, resolve: (a) => a.CountrySubDivisionCode }),
      postalCode: t.string({ nullable: true, resolve: (a) => a.PostalCode }),
    }),
  });

const BillType = builder.objectRef<ApprovalBill>('ApprovalBill').implement({
  description: 'A QuickBooks bill as snapshotted when the approval was created.',
  fields: (t) => ({
    id: t.string({ resolve: (b) => b.Id }),
    docNumber: t.string({ nullable: true, resolve: (b) => b.DocNumber }),
    txnDate: t.string({ nullable: true, resolve: (b) => b.TxnDate }),
    dueDate: t.string({ nullable: true, resolve: (b) => b.DueDate }),
    totalAmt: t.float({ resolve: (b) => b.TotalAmt }),
    balance: t.float({ resolve: (b) => b.Balance }),
    currency: t.string({ nullable: true, resolve: (b) => b.CurrencyRef }),
    vendorQbId: t.string({ resolve: (b) => b.VendorRef.value }),
    vendorName: t.string({ nullable: true, resolve: (b) => b.VendorRef.name }),
    vendorCompanyName: t.string({ nullable: true, resolve: (b) => b.VendorInfo.CompanyName }),
    vendorEmail: t.string({ nullable: true, resolve: (b) => b.VendorInfo.Email }),
    vendorPhone: t.string({ nullable: true, resolve: (b) => b.VendorInfo.Phone }),
    vendorAddress: t.field({ type: AddressType, nullable: true, resolve: (b) => b.VendorAddr }),
    lines: t.field({ type: [BillLineType], resolve: (b) => b.Line }),
    attachableId: t.string({ nullable: true, resolve: (b) => b.AttachableId }),
    invoiceFileName: t.string({ nullable: true, resolve: (b) => b.InvoiceFileName }),
    invoiceAvailable: t.exposeBoolean('invoiceAvailable'),
    achStatus: t.field({ type: AchStatusType, resolve: (b) => b.achStatus }),
  }),
});

const DuplicateType = builder
  .objectRef<ApprovalDto['confirmedDuplicates'][number]>('ApprovalConfirmedDuplicate')
  .implement({
    fields: (t) => ({
      ...answerFields(t, ApprovalDuplicate, { omit: ['paid'] }),
      paid: t.exposeBoolean('paid', { description: 'The look-alike is already paid in QuickBooks' }),
    }),
  });

const DATE_TIMES = {
  firstApprovedAt: 'DateTime',
  approvalDate: 'DateTime',
  rejectionDate: 'DateTime',
  expiresAt: 'DateTime',
  expiredAt: 'DateTime',
  createdAt: 'DateTime',
  updatedAt: 'DateTime',
} as const;

export const ApprovalRef = builder.objectRef<ApprovalDto>('Approval').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalData, {
      omit: [
        // REST-only copies: the company as an object, the amounts again, the comma-separated ids.
        'company',
        'billStats',
        'billIds',
        'approvedBillIds',
        'billIdList',
        'approvedBillIdList',
        // Named otherwise in GraphQL, or described there.
        'billsParsed',
        'approvedBillsParsed',
        'creatorMayNotApprove',
        'secondApprovalThreshold',
        'secondApprovalRequired',
        'recipients',
      ],
      refs: {
        status: StatusEnum,
        priority: PriorityEnum,
        manager: ManagerRefType,
        creator: PersonRefType,
        approver: PersonRefType,
        rejecter: PersonRefType,
        firstApprover: PersonRefType,
        confirmedDuplicates: DuplicateType,
      },
      scalars: DATE_TIMES,
    }),
    billIds: t.exposeStringList('billIdList'),
    approvedBillIds: t.exposeStringList('approvedBillIdList'),
    bills: t.field({
      type: [BillType],
      nullable: true,
      description: 'Detail only (approval query); null in lists.',
      resolve: (a) => a.billsParsed,
    }),
    approvedBills: t.field({ type: [BillType], nullable: true, resolve: (a) => a.approvedBillsParsed }),
    creatorMayNotApprove: t.exposeBoolean('creatorMayNotApprove', {
      description: 'The company’s policy: the creator may not approve.',
    }),
    secondApprovalThreshold: t.exposeFloat('secondApprovalThreshold', {
      nullable: true,
      description: 'The company’s policy: above this amount two different approvers; null: never.',
    }),
    secondApprovalRequired: t.exposeBoolean('secondApprovalRequired', {
      description: 'Two different approvers are needed for this approval.',
    }),
    // Per viewer, from the request's caller: a row may be shared between subscribers and requests.
    viewerMayApprove: t.boolean({
      description: 'Whether the caller may approve it now.',
      resolve: (a, _, ctx) => viewerApproval(a, ctx.actor).viewerMayApprove,
    }),
    approveBlockedReason: t.string({
      nullable: true,
      description: 'Why the caller may not approve; null when they may.',
      resolve: (a, _, ctx) => viewerApproval(a, ctx.actor).approveBlockedReason,
    }),
    recipients: t.exposeStringList('recipients', {
      nullable: true,
      description: 'Detail only; null in lists.',
    }),
  }),
});

const ApprovalPageType = builder
  .objectRef<Page<ApprovalDto>>('ApprovalPage')
  .implement({ fields: (t) => answerFields(t, ApprovalPage, { refs: { data: ApprovalRef } }) });

const CountType = builder.objectRef<{ key: string; count: number }>('ApprovalCount').implement({
  fields: (t) => ({ key: t.exposeString('key'), count: t.exposeInt('count') }),
});

const StatsType = builder.objectRef<ApprovalStats>('ApprovalStats').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalStatsAnswer, { omit: ['byStatus', 'byPriority'] }),
    // GraphQL has no map type: the counts by key as a list.
    byStatus: t.field({
      type: [CountType],
      resolve: (s) => Object.entries(s.byStatus).map(([key, count]) => ({ key, count })),
    }),
    byPriority: t.field({
      type: [CountType],
      resolve: (s) => Object.entries(s.byPriority).map(([key, count]) => ({ key, count })),
    }),
  }),
});

const HistoryType = builder.objectRef<ApprovalHistoryEntry>('ApprovalHistoryEntry').implement({
  fields: (t) => answerFields(t, ApprovalHistoryEntryAnswer, { scalars: { timestamp: 'DateTime' } }),
});

const CandidateType = builder.objectRef<BillCandidate>('ApprovalBillCandidate').implement({
  description: 'An open QuickBooks bill of the company, as the /bills screen lists it.',
  fields: (t) => ({
    ...answerFields(t, ApprovalBillCandidate, { omit: ['duplicateOf', 'refusedReason'] }),
    // The look-alike flattened (the schema the web types against has it so).
    duplicateOfBillId: t.string({ nullable: true, resolve: (c) => c.duplicateOf?.billId ?? null }),
    duplicateOfApprovalId: t.string({ nullable: true, resolve: (c) => c.duplicateOf?.approvalId ?? null }),
    duplicateOfPaid: t.boolean({ resolve: (c) => c.duplicateOf?.paid === true }),
    refusedReason: t.exposeString('refusedReason', {
      nullable: true,
      description:
        'Why the bill cannot go in an approval (an amount no ACH payment carries); null if it can.',
    }),
  }),
});

const BulkRowType = builder.objectRef<BulkResult['results'][number]>('ApprovalBulkRow').implement({
  fields: (t) => answerFields(t, ApprovalBulkResult.shape.results.element, { refs: { status: StatusEnum } }),
});

const BulkType = builder.objectRef<BulkResult>('ApprovalBulkResult').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalBulkResult, { omit: ['summary'], refs: { results: BulkRowType } }),
    // The summary flattened into the result.
    processed: t.int({ resolve: (r) => r.summary.processed }),
    succeeded: t.int({ resolve: (r) => r.summary.succeeded }),
    failed: t.int({ resolve: (r) => r.summary.failed }),
  }),
});

const PolicyType = builder.objectRef<ApprovalPolicyDto>('ApprovalPolicy').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalPolicy, { omit: ['assignedStaffOnly'] }),
    assignedStaffOnly: t.exposeBoolean('assignedStaffOnly', {
      description: 'Only staff assigned to the company (and ADMINs) see and act on its approvals.',
    }),
  }),
});

builder.queryField('approvals', (t) =>
  t.field({
    type: ApprovalPageType,
    description:
      'Approvals, newest first unless sorted; limit 5, 10, 25, 50 or 100 (USER, MODERATOR, ADMIN).',
    args: {
      search: t.arg.string({ required: false }),
      status: t.arg({ type: StatusEnum, required: false }),
      priority: t.arg({ type: PriorityEnum, required: false }),
      companyId: t.arg.int({ required: false }),
      page: t.arg.int({ required: false }),
      limit: t.arg.int({ required: false }),
      sortBy: t.arg({ type: SortEnum, required: false }),
      sortOrder: t.arg({ type: SortOrderEnum, required: false }),
    },
    resolve: (_, args, ctx) => run(() => listApprovals(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

// Staff keep the list and its stat cards open: their answers are kept while these read models stand still.
cacheableQuery('approvals', LIST_READ_MODELS);
cacheableQuery('approvalStats', ['approvals']);

builder.queryField('approval', (t) =>
  t.field({
    type: ApprovalRef,
    description: 'One approval with its bills, vendor contacts, ACH status (masked) and recipients.',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => getApproval(ctx.app, ctx.actor, args.id)),
  }),
);

builder.queryField('approvalHistory', (t) =>
  t.field({
    type: [HistoryType],
    args: { id: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => approvalHistory(ctx.app, ctx.actor, args.id)),
  }),
);

builder.queryField('approvalStats', (t) =>
  t.field({
    type: StatsType,
    args: { companyId: t.arg.int({ required: false }) },
    resolve: (_, args, ctx) => run(() => approvalStats(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

builder.queryField('approvalBillCandidates', (t) =>
  t.field({
    type: [CandidateType],
    description: 'The company’s open QuickBooks bills for a new approval (ADMIN, MODERATOR).',
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => billsForApproval(ctx.app, ctx.actor, args)),
  }),
);

const ManagerOptionType = builder.objectRef<ManagerOption>('ApprovalManagerOption').implement({
  description: 'An ACTIVE manager an approval can be assigned to.',
  fields: (t) => ({
    ...answerFields(t, ApprovalManagerOption, { omit: ['displayName'] }),
    displayName: t.exposeString('displayName', { description: '‘first last’, else the e-mail' }),
  }),
});

builder.queryField('approvalManagerOptions', (t) =>
  t.field({
    type: [ManagerOptionType],
    description: 'The ACTIVE managers an approval can be assigned to (ADMIN, MODERATOR).',
    resolve: (_, _args, ctx) => run(() => approvalManagerOptions(ctx.app, ctx.actor)),
  }),
);

const ExportFormatEnum = builder.enumType('ApprovalExportFormat', { values: ['csv'] as const });

const ExportFileType = builder.objectRef<z.infer<typeof ApprovalExportFile>>('ApprovalExportFile').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalExportFile, { omit: ['content'] }),
    content: t.exposeString('content', { description: 'The CSV text' }),
  }),
});

builder.queryField('approvalsExport', (t) =>
  t.field({
    type: ExportFileType,
    description: 'The filtered approvals as CSV, newest first (as GET /approvals/export).',
    args: {
      search: t.arg.string({ required: false }),
      status: t.arg({ type: StatusEnum, required: false }),
      priority: t.arg({ type: PriorityEnum, required: false }),
      companyId: t.arg.int({ required: false }),
      format: t.arg({ type: ExportFormatEnum, required: false }),
    },
    resolve: (_, args, ctx) => run(() => approvalsExportFile(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

builder.queryField('approvalPolicy', (t) =>
  t.field({
    type: PolicyType,
    description: 'The company’s approval policy (ADMIN): segregation of duties and staff scope.',
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => getApprovalPolicy(ctx.app, ctx.actor, args.companyId)),
  }),
);

const CreateInput = builder.inputType('CreateApprovalInput', {
  fields: (t) => ({
    companyId: t.int({ required: true }),
    billIds: t.stringList({ required: true }),
    managerId: t.int({ required: false }),
    priority: t.field({ type: PriorityEnum, required: false }),
    recipients: t.stringList({ required: false }),
    confirmDuplicates: t.stringList({
      required: false,
      description: 'Bills accepted as possible duplicates',
    }),
  }),
});

const UpdateInput = builder.inputType('UpdateApprovalInput', {
  fields: (t) => ({
    priority: t.field({ type: PriorityEnum, required: false }),
    managerId: t.int({ required: false, description: 'null clears the manager' }),
    recipients: t.stringList({ required: false }),
  }),
});

const PolicyInput = builder.inputType('ApprovalPolicyInput', {
  fields: (t) => ({
    creatorMayNotApprove: t.boolean({ required: true }),
    secondApprovalThreshold: t.float({ required: false }),
    assignedStaffOnly: t.boolean({ required: false }),
  }),
});

builder.mutationField('createApproval', (t) =>
  t.field({
    type: ApprovalRef,
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_, args, ctx) => run(() => createApproval(ctx.app, ctx.actor, withoutNulls(args.input))),
  }),
);

builder.mutationField('updateApproval', (t) =>
  t.field({
    type: ApprovalRef,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
    // managerId: null is meaningful here (clears the manager), so nulls are kept.
    resolve: (_, args, ctx) => run(() => updateApproval(ctx.app, ctx.actor, args.id, { ...args.input })),
  }),
);

builder.mutationField('deleteApproval', (t) =>
  t.field({
    type: 'Boolean',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => deleteApproval(ctx.app, ctx.actor, args.id).then(() => true)),
  }),
);

builder.mutationField('approveApproval', (t) =>
  t.field({
    type: ApprovalRef,
    args: { id: t.arg.string({ required: true }), approvedBillIds: t.arg.stringList({ required: true }) },
    resolve: (_, args, ctx) =>
      run(() => approveApproval(ctx.app, ctx.actor, args.id, { approvedBills: args.approvedBillIds })),
  }),
);

builder.mutationField('rejectApproval', (t) =>
  t.field({
    type: ApprovalRef,
    args: { id: t.arg.string({ required: true }), rejectionReason: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) =>
      run(() => rejectApproval(ctx.app, ctx.actor, args.id, { rejectionReason: args.rejectionReason })),
  }),
);

builder.mutationField('updateApprovalRecipients', (t) =>
  t.field({
    type: ApprovalRef,
    args: { id: t.arg.string({ required: true }), recipients: t.arg.stringList({ required: true }) },
    resolve: (_, args, ctx) =>
      run(() => updateApprovalRecipients(ctx.app, ctx.actor, args.id, { recipients: args.recipients })),
  }),
);

builder.mutationField('bulkApproveApprovals', (t) =>
  t.field({
    type: BulkType,
    args: { ids: t.arg.stringList({ required: true }) },
    resolve: (_, args, ctx) => run(() => bulkApproveApprovals(ctx.app, ctx.actor, { ids: args.ids })),
  }),
);

builder.mutationField('bulkRejectApprovals', (t) =>
  t.field({
    type: BulkType,
    args: { ids: t.arg.stringList({ required: true }), reason: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) =>
      run(() => bulkRejectApprovals(ctx.app, ctx.actor, { ids: args.ids, reason: args.reason })),
  }),
);

builder.mutationField('setApprovalPolicy', (t) =>
  t.field({
    type: PolicyType,
    args: { companyId: t.arg.int({ required: true }), input: t.arg({ type: PolicyInput, required: true }) },
    resolve: (_, args, ctx) =>
      run(() =>
        setApprovalPolicy(ctx.app, ctx.actor, args.companyId, {
          creatorMayNotApprove: args.input.creatorMayNotApprove,
          secondApprovalThreshold: args.input.secondApprovalThreshold ?? null,
          assignedStaffOnly: args.input.assignedStaffOnly ?? undefined,
        }),
      ),
  }),
);

/** What a push resolves from: the notice's own fields, and the row behind it only when asked for. */
interface ApprovalChangeSource {
  id: string;
  type: string;
  /** The status the change left, carried by the notice of a status change (null: read the row). */
  noticedStatus: string | null;
  companyId: number | null;
  approval(): Promise<ApprovalDto | null>;
}

const ApprovalChange = builder.objectRef<ApprovalChangeSource>('ApprovalChange').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    type: t.exposeString('type', { description: 'The event: ApprovalCreated, ApprovalApproved, …' }),
    status: t.field({
      type: StatusEnum,
      nullable: true,
      // A status change's notice says which status it left: the screens' subscription (id, type,
      // status) is pushed without a read. Other changes read the row.
      resolve: async (c) => (c.noticedStatus ?? (await c.approval())?.status ?? null) as never,
    }),
    companyId: t.exposeInt('companyId', { nullable: true }),
    approval: t.field({
      type: ApprovalRef,
      nullable: true,
      description: 'The list row after the change (no bills); null once deleted.',
      resolve: (c) => c.approval(),
    }),
  }),
});

/**
 * The rows behind a message's approval notices, in one query the first time a subscriber asks for
 * one (a bulk action's 100 changes are one read, not 100 per subscriber). Nothing is read for a
 * message whose pushes need no row: the screens subscribe to id, type and status, which a status
 * change's notice carries.
 */
export function batchApprovalReads(live: LiveBus, app: AppServices) {
  live.onNotices((notices) => {
    const changed = notices.filter((n) => n.topic === 'approval');
    if (changed.length === 0) return;
    let rows: Promise<Map<string, ApprovalDto>> | null = null;
    const read = () => {
      rows ??= approvalSummaries(app, [...new Set(changed.map((n) => n.id))]);
      return rows;
    };
    for (const n of changed)
      seedSharedRead(n, 'approval', () =>
        read().then(
          (byId) => byId.get(n.id) ?? null,
          () => null,
        ),
      );
  });
}

/** The row behind a notice, read once for every subscriber in this process; null once deleted. */
export function changedApproval(notice: ChangeNotice, app: AppServices, actor: Actor | null) {
  return sharedRead(notice, 'approval', () => getApprovalSummary(app, actor, notice.id).catch(() => null));
}

async function* onlyCompany(source: AsyncIterable<ChangeNotice>, companyId: number) {
  for await (const n of source) if (Number(n.data?.companyId) === companyId) yield n;
}

builder.subscriptionField('approvalChanged', (t) =>
  t.field({
    type: ApprovalChange,
    description:
      'Pushed after the approvals read model changed (created, approved, rejected, expired, updated, deleted). Optionally one approval or one company.',
    authScopes: { permission: 'approvals.read' },
    args: { id: t.arg.string({ required: false }), companyId: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) => {
      const source = inStaffScope(
        ctx.live.subscribe('approval', args.id == null ? undefined : args.id),
        ctx.app,
        ctx.actor,
      );
      return args.companyId == null ? source : onlyCompany(source, args.companyId);
    },
    resolve: (notice, _, ctx): ApprovalChangeSource => {
      authorize(ctx.actor, 'approvals.read');
      const d = notice.data ?? {};
      return {
        id: notice.id,
        type: String(d.type ?? 'changed'),
        noticedStatus: typeof d.status === 'string' ? d.status : null,
        companyId: typeof d.companyId === 'number' ? d.companyId : null,
        approval: () => changedApproval(notice, ctx.app, ctx.actor),
      };
    },
  }),
);

const ApprovalPolicyChange = builder.objectRef<{ companyId: number }>('ApprovalPolicyChange').implement({
  fields: (t) => ({ companyId: t.exposeInt('companyId') }),
});

builder.subscriptionField('approvalPolicyChanged', (t) =>
  t.field({
    type: ApprovalPolicyChange,
    description:
      'Pushed after a company’s segregation-of-duties policy changed: who may approve its approvals may have changed. Optionally one company.',
    authScopes: { permission: 'approvals.read' },
    args: { companyId: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) =>
      ctx.live.subscribe('approval-policy', args.companyId == null ? undefined : String(args.companyId)),
    resolve: (notice, _, ctx) => {
      authorize(ctx.actor, 'approvals.read');
      return { companyId: Number(notice.id) };
    },
  }),
);

const DayType = builder.objectRef<ApprovalsDay>('ApprovalsDay').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalsDayAnswer, { omit: ['date'] }),
    date: t.exposeString('date', { description: 'YYYY-MM-DD (UTC)' }),
  }),
});

builder.queryField('dashboardApprovalsByStatus', (t) =>
  t.field({
    type: [DayType],
    description:
      'The dashboard chart: approvals created per day over the last `days` (30, at most 90), by status now.',
    args: { days: t.arg.int({ required: false }) },
    resolve: (_, args, ctx) => run(() => approvalsByDay(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);
