// The approvals' queries: the list, one approval, its history,
// stats, the /bills candidates, the manager picker, the CSV export, the policy and the dashboard's
// chart.

import { PaymentProblemFilter } from '../../../../schema/approvals/commands.js';
import { withoutNulls } from '../../../app/endpoints.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { cacheableQuery } from '../../../gateway/response-cache.js';
import { approvalAsOf } from '../../as-of.js';
import { billsForApproval } from '../../bills.js';
import { approvalsByDay } from '../../by-day.js';
import { getApproval } from '../../detail.js';
import { approvalsExportFile } from '../../export-csv.js';
import { approvalHistory } from '../../history.js';
import { LIST_READ_MODELS, listApprovals } from '../../list.js';
import { approvalManagerOptions } from '../../manager-options.js';
import { getApprovalPolicy } from '../../policy.js';
import { approvalStats } from '../../stats.js';
import {
  ApprovalPageType,
  ApprovalRef,
  CandidateType,
  DayType,
  ExportFileType,
  HistoryType,
  ManagerOptionType,
  PolicyType,
  PriorityEnum,
  StatsType,
  StatusEnum,
} from './approval.js';
import { ApprovalAsOfInputType, asOfQuery } from './approval-as-of.js';

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
const ProblemFilterEnum = builder.enumType('ApprovalPaymentProblemFilter', {
  description:
    'What holds the payment: ANY (someone must act: all but WAITING), FILE (the NACHA file could not be made), SYNC (QuickBooks did not record what the bank paid), WAITING (the file waits for the next banking day).',
  values: Object.fromEntries(
    PaymentProblemFilter.options.map((v) => [v.toUpperCase(), { value: v }]),
  ) as Record<Uppercase<PaymentProblemFilter>, { value: PaymentProblemFilter }>,
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
      problem: t.arg({ type: ProblemFilterEnum, required: false }),
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
    description:
      'One approval with its bills, vendor contacts, ACH status (masked) and recipients; with asOf, as it stood after that event (ADMIN, MODERATOR; steps: approvalAsOf).',
    args: {
      id: t.arg.string({ required: true }),
      asOf: t.arg({ type: ApprovalAsOfInputType, required: false }),
    },
    resolve: (_, args, ctx) =>
      run(async () =>
        args.asOf
          ? (await approvalAsOf(ctx.app, ctx.actor, args.id, asOfQuery(args.asOf))).approval
          : getApproval(ctx.app, ctx.actor, args.id),
      ),
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

builder.queryField('approvalManagerOptions', (t) =>
  t.field({
    type: [ManagerOptionType],
    description:
      'The ACTIVE managers an approval can be assigned to (ADMIN, MODERATOR); with companyId, the company’s assigned manager is marked (companyManager).',
    args: { companyId: t.arg.int({ required: false }) },
    resolve: (_, args, ctx) => run(() => approvalManagerOptions(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

const ExportFormatEnum = builder.enumType('ApprovalExportFormat', { values: ['csv'] as const });

builder.queryField('approvalsExport', (t) =>
  t.field({
    type: ExportFileType,
    description: 'The filtered approvals as CSV, newest first (as GET /approvals/export).',
    args: {
      search: t.arg.string({ required: false }),
      status: t.arg({ type: StatusEnum, required: false }),
      priority: t.arg({ type: PriorityEnum, required: false }),
      companyId: t.arg.int({ required: false }),
      problem: t.arg({ type: ProblemFilterEnum, required: false }),
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

builder.queryField('dashboardApprovalsByStatus', (t) =>
  t.field({
    type: [DayType],
    description:
      'The dashboard chart: approvals created per day over the last `days` (30, at most 90), by status now.',
    args: { days: t.arg.int({ required: false }) },
    resolve: (_, args, ctx) => run(() => approvalsByDay(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);
