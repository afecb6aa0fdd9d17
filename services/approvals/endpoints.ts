// The approvals' commands, each declared once (services/app/endpoints.ts): create, update, delete,
// approve a subset, reject, replace the recipients, the bulk actions and the company's policy. The
// gateway makes each one's REST route (/api/bill-approval/*), GraphQL mutation and OpenAPI entry.
import { z } from 'zod';
import { Approval, ApprovalBulkResult, ApprovalPolicy } from '../../schema/approvals/answers.js';
import {
  ApprovalPolicyInput,
  ApproveApprovalInput,
  BulkApproveInput,
  BulkRejectInput,
  CreateApprovalInput,
  RecipientsInput,
  RejectApprovalInput,
  UpdateApprovalInput,
} from '../../schema/approvals/commands.js';
import {
  byId,
  declareCommand,
  type GraphQLInputDeclaration,
  type WithId,
  withoutNulls,
} from '../app/endpoints.js';
import type { Actor } from '../auth/permissions.js';
import { approveApproval } from './approve.js';
import { bulkApproveApprovals, bulkRejectApprovals } from './bulk.js';
import { createApproval } from './create.js';
import { deleteApproval } from './delete.js';
import { setApprovalPolicy } from './policy.js';
import { rejectApproval } from './reject.js';
import type { ApprovalDto } from './rows.js';
import { updateApproval, updateApprovalRecipients } from './update.js';
import { withViewer } from './viewer.js';

const A = '/api/bill-approval/approvals';
const TAGS = ['approvals'];
const ApprovalIdParams = z.object({ id: z.string().max(64).describe('Approval id (UUID)') });
const CompanyIdParams = z.object({ companyId: z.string().max(12) });
/** Staff see (and act on) every company's approvals unless its policy keeps them to assigned staff. */
const IN_SCOPE = 'an approval of a company the caller may see (assigned staff only, under the policy)';
/** REST answers an approval with what the caller may do with it; GraphQL resolves that per field. */
const viewed = (a: ApprovalDto, actor: Actor | null) => withViewer(a, actor);

export const approvalInputs: GraphQLInputDeclaration[] = [
  {
    name: 'CreateApprovalInput',
    fields: {
      companyId: 'Int!',
      billIds: '[String!]!',
      managerId: 'Int',
      priority: 'ApprovalPriority',
      recipients: '[String!]',
      confirmDuplicates: { type: '[String!]', description: 'Bills accepted as possible duplicates' },
    },
  },
  {
    name: 'UpdateApprovalInput',
    fields: {
      priority: 'ApprovalPriority',
      managerId: { type: 'Int', description: 'null clears the manager' },
      recipients: '[String!]',
    },
  },
  {
    name: 'ApprovalPolicyInput',
    fields: {
      creatorMayNotApprove: 'Boolean!',
      secondApprovalThreshold: 'Float',
      assignedStaffOnly: 'Boolean',
    },
  },
];

export const approvalEndpoints = [
  declareCommand({
    name: 'CreateApproval',
    permission: 'approvals.write',
    scope: 'a company the caller may see; its open bills not in another open approval',
    run: (app, actor, body: unknown) => createApproval(app, actor, body),
    rest: {
      method: 'POST',
      path: A,
      input: (r) => r.body,
      answer: viewed,
      status: 201,
      message: 'Approval created successfully',
      doc: {
        summary: 'Create an approval from QuickBooks bills (snapshotted); ADMIN, MODERATOR',
        description:
          'A bill in another open approval is refused (409). A bill that looks like one already in an approval (same vendor, amount and document number) is refused (409) unless listed in confirmDuplicates; the confirmation is recorded.',
        tags: TAGS,
        body: CreateApprovalInput,
        data: Approval,
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'createApproval',
      args: { input: 'CreateApprovalInput!' },
      returns: 'Approval!',
      input: (args) => withoutNulls(args.input as object),
    },
  }),
  declareCommand({
    name: 'UpdateApproval',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, { id, body }: WithId) => updateApproval(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${A}/:id`,
      input: byId,
      answer: viewed,
      message: 'Approval updated successfully',
      doc: {
        summary: 'Update a PENDING approval: priority, managerId (null clears), recipients',
        tags: TAGS,
        params: ApprovalIdParams,
        body: UpdateApprovalInput,
        data: Approval,
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'updateApproval',
      args: { id: 'String!', input: 'UpdateApprovalInput!' },
      returns: 'Approval!',
      // managerId: null is meaningful here (clears the manager), so nulls are kept.
      input: (args) => ({ id: args.id, body: { ...(args.input as object) } }),
    },
  }),
  declareCommand({
    name: 'DeleteApproval',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, id: unknown) => deleteApproval(app, actor, id).then(() => null),
    rest: {
      method: 'DELETE',
      path: `${A}/:id`,
      input: (r) => r.params.id,
      message: 'Approval deleted successfully',
      doc: {
        summary: 'Delete an approval (kept in the log, gone from every list; its bills are free again)',
        tags: TAGS,
        params: ApprovalIdParams,
        data: z.null(),
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'deleteApproval',
      args: { id: 'String!' },
      returns: 'Boolean!',
      input: (args) => args.id,
      answer: () => true,
    },
  }),
  declareCommand({
    name: 'ApproveApproval',
    permission: 'approvals.write',
    scope: `${IN_SCOPE}; not its creator when the policy says so, and a second approver above the threshold`,
    run: (app, actor, { id, body }: WithId) => approveApproval(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${A}/:id/approve`,
      input: byId,
      answer: viewed,
      message: 'Approval approved successfully',
      doc: {
        summary: 'Approve a PENDING approval: approvedBills, a subset of its bills (at least one)',
        description:
          "Under the company policy, the creator may be refused (403), and above the threshold the first approval leaves it PENDING with awaitingSecondApproval until a different approver approves. effectiveDate ('YYYY-MM-DD', optional) is the file's effective entry date: a banking day, not past, at most 30 days ahead, today only for a company that sends Same-Day ACH before 14:45 New York; otherwise 400 and nothing is recorded. Absent: the next banking day (today in a same-day window).",
        tags: TAGS,
        params: ApprovalIdParams,
        body: ApproveApprovalInput,
        data: Approval,
        errors: [400, 403, 404, 409],
      },
    },
    graphql: {
      name: 'approveApproval',
      args: { id: 'String!', approvedBillIds: '[String!]!', effectiveDate: 'String' },
      returns: 'Approval!',
      input: (args) => ({
        id: args.id,
        body: { approvedBills: args.approvedBillIds, effectiveDate: args.effectiveDate },
      }),
    },
  }),
  declareCommand({
    name: 'RejectApproval',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, { id, body }: WithId) => rejectApproval(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${A}/:id/reject`,
      input: byId,
      answer: viewed,
      message: 'Approval rejected successfully',
      doc: {
        summary: 'Reject a PENDING approval with a reason (trimmed, not blank, at most 1,000 characters)',
        tags: TAGS,
        params: ApprovalIdParams,
        body: RejectApprovalInput,
        data: Approval,
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'rejectApproval',
      args: { id: 'String!', rejectionReason: 'String!' },
      returns: 'Approval!',
      input: (args) => ({ id: args.id, body: { rejectionReason: args.rejectionReason } }),
    },
  }),
  declareCommand({
    name: 'UpdateApprovalRecipients',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, { id, body }: WithId) => updateApprovalRecipients(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${A}/:id/recipients`,
      input: byId,
      answer: viewed,
      message: 'Recipients updated successfully',
      doc: {
        summary: 'Replace the recipients (e-mail addresses, at most 20) of an open approval',
        tags: TAGS,
        params: ApprovalIdParams,
        body: RecipientsInput,
        data: Approval,
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'updateApprovalRecipients',
      args: { id: 'String!', recipients: '[String!]!' },
      returns: 'Approval!',
      input: (args) => ({ id: args.id, body: { recipients: args.recipients } }),
    },
  }),
  declareCommand({
    name: 'BulkApproveApprovals',
    permission: 'approvals.write',
    scope: `each approval ${IN_SCOPE}; one refused is reported, the others go on`,
    run: (app, actor, body: unknown) => bulkApproveApprovals(app, actor, body),
    rest: {
      method: 'POST',
      path: `${A}/bulk-approve`,
      input: (r) => r.body,
      doc: {
        summary: 'Approve several PENDING approvals (all their bills); a result per approval and a summary',
        tags: TAGS,
        body: BulkApproveInput,
        data: ApprovalBulkResult,
      },
    },
    graphql: {
      name: 'bulkApproveApprovals',
      args: { ids: '[String!]!' },
      returns: 'ApprovalBulkResult!',
      input: (args) => ({ ids: args.ids }),
    },
  }),
  declareCommand({
    name: 'BulkRejectApprovals',
    permission: 'approvals.write',
    scope: `each approval ${IN_SCOPE}; one refused is reported, the others go on`,
    run: (app, actor, body: unknown) => bulkRejectApprovals(app, actor, body),
    rest: {
      method: 'POST',
      path: `${A}/bulk-reject`,
      input: (r) => r.body,
      doc: {
        summary: 'Reject several PENDING approvals with one reason; a result per approval and a summary',
        tags: TAGS,
        body: BulkRejectInput,
        data: ApprovalBulkResult,
      },
    },
    graphql: {
      name: 'bulkRejectApprovals',
      args: { ids: '[String!]!', reason: 'String!' },
      returns: 'ApprovalBulkResult!',
      input: (args) => ({ ids: args.ids, reason: args.reason }),
    },
  }),
  declareCommand({
    name: 'SetApprovalPolicy',
    permission: 'approvals.policy',
    scope: 'any live company (the policy is the administrator’s)',
    run: (app, actor, { id, body }: WithId) => setApprovalPolicy(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: '/api/bill-approval/policies/:companyId',
      input: (r) => ({ id: r.params.companyId, body: r.body }),
      message: 'Approval policy saved',
      doc: {
        summary:
          'Set the company’s policy (ADMIN): creatorMayNotApprove, secondApprovalThreshold (USD or null), assignedStaffOnly (absent: unchanged)',
        tags: TAGS,
        params: CompanyIdParams,
        body: ApprovalPolicyInput,
        data: ApprovalPolicy,
        errors: [404],
      },
    },
    graphql: {
      name: 'setApprovalPolicy',
      args: { companyId: 'Int!', input: 'ApprovalPolicyInput!' },
      returns: 'ApprovalPolicy!',
      input: (args) => {
        const input = args.input as {
          creatorMayNotApprove: boolean;
          secondApprovalThreshold?: number | null;
          assignedStaffOnly?: boolean | null;
        };
        return {
          id: args.companyId,
          body: {
            creatorMayNotApprove: input.creatorMayNotApprove,
            secondApprovalThreshold: input.secondApprovalThreshold ?? null,
            assignedStaffOnly: input.assignedStaffOnly ?? undefined,
          },
        };
      },
    },
  }),
];
