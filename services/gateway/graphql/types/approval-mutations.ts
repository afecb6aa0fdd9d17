// The approvals' mutations: create, update, delete, approve a subset,
// reject, recipients, the bulk actions and the company's policy.
import { approveApproval } from '../../../approvals/approve.js';
import { bulkApproveApprovals, bulkRejectApprovals } from '../../../approvals/bulk.js';
import { createApproval } from '../../../approvals/create.js';
import { deleteApproval } from '../../../approvals/delete.js';
import { setApprovalPolicy } from '../../../approvals/policy.js';
import { rejectApproval } from '../../../approvals/reject.js';
import { updateApproval, updateApprovalRecipients } from '../../../approvals/update.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { withoutNulls } from '../inputs.js';
import { ApprovalRef, BulkType, PolicyType, PriorityEnum } from './approval.js';

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
