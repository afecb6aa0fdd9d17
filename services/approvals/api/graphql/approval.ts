// The Approval type and the object types of the approvals' answers: the bills a new
// approval can take, stats, history, bulk results, the company's approval policy, the dashboard's
// chart. Queries, mutations and live changes are beside it (approval-queries.ts,
// approval-mutations.ts, approval-subscriptions.ts).
import type { z } from 'zod';
import {
  AchStatus as AchStatusAnswer,
  ApprovalBillCandidate,
  ApprovalBulkResult,
  ApprovalData,
  ApprovalDuplicate,
  ApprovalExportFile,
  ApprovalHistoryChange,
  ApprovalHistoryEntry as ApprovalHistoryEntryAnswer,
  ApprovalManagerOption,
  ApprovalPage,
  ApprovalPolicy,
  ApprovalStats as ApprovalStatsAnswer,
  BANKING_FLAG_KINDS,
  BANKING_REVIEW_STATES,
  BankingFlag as BankingFlagAnswer,
  BankingReview as BankingReviewAnswer,
  BILL_SOURCES,
  HISTORY_ACTOR_KINDS,
  ManagerRef as ManagerRefAnswer,
  PersonRef as PersonRefAnswer,
} from '../../../../schema/approvals/answers.js';
import { APPROVAL_STATUSES, PRIORITIES } from '../../../../schema/approvals/events.js';
import { ApprovalsDay as ApprovalsDayAnswer } from '../../../../schema/dashboard/answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import type { Page } from '../../../shared/paging.js';
import type { BillCandidate } from '../../bills.js';
import type { BulkResult } from '../../bulk.js';
import type { ApprovalsDay } from '../../by-day.js';
import type { ApprovalHistoryEntry } from '../../history.js';
import type { ManagerOption } from '../../manager-options.js';
import type { ApprovalPolicyDto } from '../../policy.js';
import type { AchStatus, ApprovalBill, ApprovalDto, PersonRef } from '../../rows.js';
import type { ApprovalStats } from '../../stats.js';
import { viewerApproval } from '../../viewer.js';
import { PAYMENT_DATE_TIMES, PAYMENT_REFS } from './approval-payment.js';

export const StatusEnum = builder.enumType('ApprovalStatus', { values: APPROVAL_STATUSES });
export const PriorityEnum = builder.enumType('ApprovalPriority', { values: PRIORITIES });

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

// The kinds are lower case with dashes ('recent-change'), which GraphQL enum names cannot be: named
// RECENT_CHANGE, … in GraphQL, their values as REST answers them.
const dashed = (name: string, values: readonly string[]) =>
  builder.enumType(name, {
    values: Object.fromEntries(values.map((v) => [v.toUpperCase().replace(/-/g, '_'), { value: v }])),
  });
const BankingFlagKindEnum = dashed('ApprovalBankingFlagKind', BANKING_FLAG_KINDS);
const BankingSourceEnum = dashed('ApprovalBankingSource', BankingFlagAnswer.shape.source.options);
const BankingReviewStateEnum = dashed('ApprovalBankingReviewState', BANKING_REVIEW_STATES);

export const BankingFlagType = builder
  .objectRef<ApprovalDto['bankingFlags'][number]>('ApprovalBankingFlag')
  .implement({
    description:
      'A vendor’s bank detail change where money is decided: within the company’s flag window, pending, or frozen',
    fields: (t) =>
      answerFields(t, BankingFlagAnswer, {
        refs: { kind: BankingFlagKindEnum, source: BankingSourceEnum },
        scalars: { changedAt: 'DateTime', liveAt: 'DateTime', flaggedUntil: 'DateTime' },
      }),
  });

const BankingReviewType = builder
  .objectRef<NonNullable<ApprovalDto['bankingReview']>[number]>('ApprovalBankingReview')
  .implement({
    description: 'An approved vendor’s bank details as approved beside the live ones (masked)',
    fields: (t) => answerFields(t, BankingReviewAnswer, { refs: { state: BankingReviewStateEnum } }),
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
        bankingFlags: BankingFlagType,
        bankingReview: BankingReviewType,
        ...PAYMENT_REFS,
      },
      scalars: { ...DATE_TIMES, ...PAYMENT_DATE_TIMES },
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

export const ApprovalPageType = builder
  .objectRef<Page<ApprovalDto>>('ApprovalPage')
  .implement({ fields: (t) => answerFields(t, ApprovalPage, { refs: { data: ApprovalRef } }) });

const CountType = builder.objectRef<{ key: string; count: number }>('ApprovalCount').implement({
  fields: (t) => ({ key: t.exposeString('key'), count: t.exposeInt('count') }),
});

export const StatsType = builder.objectRef<ApprovalStats>('ApprovalStats').implement({
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

// GraphQL enum names cannot hold '-': the values stay the answer's ('link-recipient').
const HistoryActorKindEnum = builder.enumType('ApprovalHistoryActorKind', {
  values: Object.fromEntries(
    HISTORY_ACTOR_KINDS.map((k) => [k.toUpperCase().replace('-', '_'), { value: k }]),
  ) as Record<string, { value: (typeof HISTORY_ACTOR_KINDS)[number] }>,
});

const HistoryChangeType = builder
  .objectRef<ApprovalHistoryEntry['changes'][number]>('ApprovalHistoryChange')
  .implement({ fields: (t) => answerFields(t, ApprovalHistoryChange) });

export const HistoryType = builder.objectRef<ApprovalHistoryEntry>('ApprovalHistoryEntry').implement({
  fields: (t) =>
    answerFields(t, ApprovalHistoryEntryAnswer, {
      scalars: { timestamp: 'DateTime' },
      refs: { actorKind: HistoryActorKindEnum, changes: HistoryChangeType },
    }),
});

// The answer's own words ('quickbooks', 'copy'): REST and GraphQL say the same.
const BillSourceEnum = builder.enumType('ApprovalBillSource', { values: BILL_SOURCES });

export const CandidateType = builder.objectRef<BillCandidate>('ApprovalBillCandidate').implement({
  description: 'An open QuickBooks bill of the company, as the /bills screen lists it.',
  fields: (t) => ({
    ...answerFields(t, ApprovalBillCandidate, {
      omit: ['duplicateOf', 'refusedReason'],
      refs: { source: BillSourceEnum, bankingFlags: BankingFlagType },
      scalars: { copyAsOf: 'DateTime' },
    }),
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

export const BulkType = builder.objectRef<BulkResult>('ApprovalBulkResult').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalBulkResult, { omit: ['summary'], refs: { results: BulkRowType } }),
    // The summary flattened into the result.
    processed: t.int({ resolve: (r) => r.summary.processed }),
    succeeded: t.int({ resolve: (r) => r.summary.succeeded }),
    failed: t.int({ resolve: (r) => r.summary.failed }),
  }),
});

export const PolicyType = builder.objectRef<ApprovalPolicyDto>('ApprovalPolicy').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalPolicy, { omit: ['assignedStaffOnly'] }),
    assignedStaffOnly: t.exposeBoolean('assignedStaffOnly', {
      description: 'Only staff assigned to the company (and ADMINs) see and act on its approvals.',
    }),
  }),
});

export const ManagerOptionType = builder.objectRef<ManagerOption>('ApprovalManagerOption').implement({
  description: 'An ACTIVE manager an approval can be assigned to.',
  fields: (t) => ({
    ...answerFields(t, ApprovalManagerOption, { omit: ['displayName'] }),
    displayName: t.exposeString('displayName', { description: '‘first last’, else the e-mail' }),
  }),
});

export const ExportFileType = builder
  .objectRef<z.infer<typeof ApprovalExportFile>>('ApprovalExportFile')
  .implement({
    fields: (t) => ({
      ...answerFields(t, ApprovalExportFile, { omit: ['content'] }),
      content: t.exposeString('content', { description: 'The CSV text' }),
    }),
  });

export const DayType = builder.objectRef<ApprovalsDay>('ApprovalsDay').implement({
  fields: (t) => ({
    ...answerFields(t, ApprovalsDayAnswer, { omit: ['date'] }),
    date: t.exposeString('date', { description: 'YYYY-MM-DD (UTC)' }),
  }),
});
