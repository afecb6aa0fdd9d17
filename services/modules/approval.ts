// Bill approvals: created from a company's QuickBooks bills (snapshotted),
// approved (a subset), rejected, expired by a delayed job, deleted; one open approval per bill, a
// duplicate-bill guard and a per-company segregation-of-duties policy.
import { approvalPoliciesProjection } from '../../projections/approvals/approval-policies.js';
import { approvalsProjection } from '../../projections/approvals/approvals.js';
import { bankingControlsProjection } from '../../projections/approvals/banking-controls.js';
import * as approvalCommands from '../../schema/approvals/commands.js';
import { approvalBillsEvents, approvalEvents, approvalPolicyEvents } from '../../schema/approvals/events.js';
import { billCopyJobHandlers, billCopyProcessManager } from '../../workers/approvals/bill-copy-reactions.js';
import {
  PAYMENT_MAIL_QUEUE,
  PAYMENTS_QUEUE,
  paymentMailJobHandlers,
  paymentMailProcessManager,
  paymentsJobHandlers,
  paymentsProcessManager,
} from '../../workers/approvals/payments.js';
import {
  APPROVALS_QUEUE,
  approvalsJobHandlers,
  approvalsProcessManager,
} from '../../workers/approvals/reactions.js';
import '../approvals/api/graphql/approval-payment-results.js';
import '../approvals/api/graphql/approval-queries.js';
import { batchApprovalReads } from '../approvals/api/graphql/approval-subscriptions.js';
import { approvalAuditRoutes } from '../approvals/api/rest/approval-audit-routes.js';
import { approvalLinkRoutes } from '../approvals/api/rest/approval-link-routes.js';
import { approvalPaymentRoutes } from '../approvals/api/rest/approval-payment-routes.js';
import { approvalRoutes } from '../approvals/api/rest/approval-routes.js';
import { approvalEndpoints, approvalInputs } from '../approvals/endpoints.js';
import { paymentEndpoints } from '../approvals/payments/endpoints.js';
import { linkEndpoints } from '../approvals/payments/link-endpoints.js';
import { defineModule } from './module.js';

// ADMIN and MODERATOR do every approval action; USER views (list, detail, history, stats,
// export); GUEST nothing in this area. The policy (segregation of duties) is the administrator's.
const permissions = {
  'approvals.read': ['ADMIN', 'MODERATOR', 'USER'] as const,
  'approvals.write': ['ADMIN', 'MODERATOR'] as const,
  'approvals.policy': ['ADMIN'] as const,
  // A stored NACHA file holds every vendor's account number: downloaded by ADMIN and MODERATOR only.
  'approvals.nachaDownload': ['ADMIN', 'MODERATOR'] as const,
  // An approval as it stood at any past step (time travel) is for staff who act on approvals.
  'approvals.audit': ['ADMIN', 'MODERATOR'] as const,
};

type ApprovalPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends ApprovalPermissions {}
}

export const approvalModule = defineModule({
  name: 'approval',
  folder: 'approvals',
  events: { ...approvalEvents, ...approvalBillsEvents, ...approvalPolicyEvents },
  commands: approvalCommands,
  permissions,
  // banking_controls: the flag window of each company's bank detail changes, where money is decided.
  projections: [approvalsProjection, approvalPoliciesProjection, bankingControlsProjection],
  processManagers: [
    approvalsProcessManager,
    paymentsProcessManager,
    paymentMailProcessManager,
    billCopyProcessManager,
  ],
  jobHandlers: {
    [APPROVALS_QUEUE]: { ...approvalsJobHandlers, ...billCopyJobHandlers },
    [PAYMENTS_QUEUE]: paymentsJobHandlers,
    [PAYMENT_MAIL_QUEUE]: paymentMailJobHandlers,
  },
  endpoints: [...approvalEndpoints, ...paymentEndpoints, ...linkEndpoints],
  graphqlInputs: approvalInputs,
  routes: [approvalRoutes, approvalPaymentRoutes, approvalLinkRoutes, approvalAuditRoutes],
  gateway: batchApprovalReads,
});
