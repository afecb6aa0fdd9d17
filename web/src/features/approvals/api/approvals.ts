// The Approvals reads and writes as GraphQL documents: list, stats,
// detail, history, the /bills candidates and manager picker, create, edit, approve a subset, reject,
// delete, bulk approve and reject, and the company's segregation-of-duties policy. The answer types
// come from the documents. Writes and `approvalChanged` pushes re-read the list, its stats and an
// open detail through the cache (lib/cache-rules.ts). Files stay plain HTTP on the REST paths: the
// CSV export and a bill's invoice.
import { graphql, type ResultOf, type VariablesOf } from '../../../lib/graphql';
import { downloadFile } from '../../../lib/transfer';
import { ApprovalPaymentFields } from './payments';

/**
 * A vendor's bank details changed where money is decided: recently (within the company's flag days),
 * or a change pending or frozen, with who made it and when, and who must act. Numbers masked.
 */
export const BankingFlagFields = graphql(`
  fragment ApprovalBankingFlagFields on ApprovalBankingFlag @_unmask {
    kind
    vendorId
    qbVendorId
    vendorName
    changeId
    source
    routingNumber
    accountNumber
    previousRoutingNumber
    previousAccountNumber
    changedById
    changedByName
    changedAt
    liveAt
    verifiedBy
    verifiedByName
    flaggedUntil
    awaiting
    message
  }
`);

export type BankingFlag = ResultOf<typeof BankingFlagFields>;

/**
 * What a list row shows; the detail adds the bills, the people and the policy's bearing. The row
 * says what holds its payment (paymentProblem), so the list, the badge and the detail say it alike,
 * and which of its vendors' bank details changed recently or wait for a second look (bankingFlags).
 */
export const ApprovalRowFields = graphql(
  `
  fragment ApprovalRowFields on Approval @_unmask {
    id
    companyId
    companyName
    status
    priority
    billIds
    billCount
    approvedBillCount
    totalAmount
    approvedAmount
    managerId
    managerName
    managerEmail
    awaitingSecondApproval
    viewerMayApprove
    approveBlockedReason
    paymentProblem {
      kind
      message
      at
      retry
      queue
      jobId
    }
    bankingFlags {
      ...ApprovalBankingFlagFields
    }
    bankPaymentState
    createdAt
    updatedAt
  }
`,
  [BankingFlagFields],
);

export type ApprovalRow = ResultOf<typeof ApprovalRowFields>;
export type PaymentProblem = NonNullable<ApprovalRow['paymentProblem']>;
export type ApprovalStatus = ApprovalRow['status'];
export type Priority = ApprovalRow['priority'];

export const ApprovalsQuery = graphql(
  `
    query Approvals(
      $search: String
      $companyId: Int
      $status: ApprovalStatus
      $priority: ApprovalPriority
      $problem: ApprovalPaymentProblemFilter
      $page: Int
      $limit: Int
      $sortBy: ApprovalSortBy
      $sortOrder: SortOrder
    ) {
      approvals(
        search: $search
        companyId: $companyId
        status: $status
        priority: $priority
        problem: $problem
        page: $page
        limit: $limit
        sortBy: $sortBy
        sortOrder: $sortOrder
      ) {
        data {
          ...ApprovalRowFields
        }
        total
        page
        limit
        totalPages
      }
    }
  `,
  [ApprovalRowFields],
);

export type ApprovalsVariables = VariablesOf<typeof ApprovalsQuery>;

export const ApprovalStatsQuery = graphql(`
  query ApprovalStats {
    approvalStats {
      total
      pending
      approved
      rejected
      expired
      processedBills
      approvedBills
      processedTotalAmount
      approvedTotalAmount
    }
  }
`);

export type ApprovalStats = ResultOf<typeof ApprovalStatsQuery>['approvalStats'];

export const ApprovalBillFields = graphql(`
  fragment ApprovalBillFields on ApprovalBill @_unmask {
    id
    docNumber
    dueDate
    totalAmt
    currency
    vendorName
    vendorCompanyName
    vendorEmail
    vendorPhone
    vendorAddress {
      line1
      city
      countrySubDivisionCode
      postalCode
    }
    lines {
      id
      description
      amount
      qty
      itemName
      accountName
    }
    invoiceAvailable
    invoiceFileName
    achStatus {
      hasBankingInfo
      vendorId
      bankName
      accountType
      routingNumber
      accountNumber
    }
  }
`);

export type ApprovalBill = ResultOf<typeof ApprovalBillFields>;

const PersonFields = graphql(`
  fragment ApprovalPersonFields on ApprovalPerson @_unmask {
    id
    firstName
    lastName
  }
`);

/** What the detail shows of an approval: now (ApprovalQuery) and as of a past step (ApprovalAsOfQuery). */
export const ApprovalDetailFields = graphql(
  `
  fragment ApprovalDetailFields on Approval @_unmask {
    ...ApprovalRowFields
    ...ApprovalPaymentFields
    approvedBillIds
    manager {
      id
      email
    }
    bills {
      ...ApprovalBillFields
    }
    approvedBills {
      ...ApprovalBillFields
    }
    creator {
      ...ApprovalPersonFields
    }
    approver {
      ...ApprovalPersonFields
    }
    rejecter {
      ...ApprovalPersonFields
    }
    firstApprover {
      ...ApprovalPersonFields
    }
    firstApprovedBy
    firstApprovedAt
    secondApprovalThreshold
    secondApprovalRequired
    approvalDate
    rejectionDate
    rejectionReason
    expiresAt
    expiredAt
    recipients
    confirmedDuplicates {
      billId
      matchesBillId
      matchesApprovalId
      paid
    }
    bankingReview {
      qbVendorId
      vendorName
      state
      approvedRoutingNumber
      approvedAccountNumber
      liveRoutingNumber
      liveAccountNumber
      message
    }
    bankingToApproveAgain
  }
`,
  [ApprovalRowFields, ApprovalPaymentFields, ApprovalBillFields, PersonFields],
);

export const ApprovalQuery = graphql(
  `
    query Approval($id: String!) {
      approval(id: $id) {
        ...ApprovalDetailFields
      }
    }
  `,
  [ApprovalDetailFields],
);

export type Approval = ResultOf<typeof ApprovalQuery>['approval'];

export const ApprovalHistoryQuery = graphql(`
  query ApprovalHistory($id: String!) {
    approvalHistory(id: $id) {
      id
      position
      stream
      action
      actorKind
      userName
      timestamp
      details
      amount
      threshold
      managerName
      changes {
        field
        from
        to
      }
      reason
      downloadUrl
    }
  }
`);

/** The company filter's choices (up to 1000). */
export const CompanyChoicesQuery = graphql(`
  query ApprovalCompanyChoices {
    companies(page: 1, limit: 1000) {
      data {
        id
        name
      }
    }
  }
`);

/**
 * The manager picker of /bills and the edit dialog: ACTIVE managers (ADMIN and MODERATOR may read it).
 * With a company, its assigned manager is marked (companyManager): /bills starts with that one.
 */
export const ManagerOptionsQuery = graphql(`
  query ApprovalManagerOptions($companyId: Int) {
    approvalManagerOptions(companyId: $companyId) {
      id
      displayName
      email
      companyManager
    }
  }
`);

export type ManagerOption = ResultOf<typeof ManagerOptionsQuery>['approvalManagerOptions'][number];

/**
 * A company's open QuickBooks bills as /bills lists them (read from QuickBooks: slow), each saying
 * whether it comes from Billflow's copy while QuickBooks asks to wait, and the copy's time, and
 * whether its vendor's bank details changed recently or wait for a second look.
 */
export const BillCandidatesQuery = graphql(
  `
  query ApprovalBillCandidates($companyId: Int!) {
    approvalBillCandidates(companyId: $companyId) {
      id
      docNumber
      dueDate
      amount
      vendorName
      bankingReady
      inOpenApproval
      openApprovalId
      possibleDuplicate
      duplicateOfBillId
      duplicateOfPaid
      refusedReason
      source
      copyAsOf
      quickbooksRetryAfterSeconds
      bankingFlags {
        ...ApprovalBankingFlagFields
      }
    }
  }
`,
  [BankingFlagFields],
);

export type BillCandidate = ResultOf<typeof BillCandidatesQuery>['approvalBillCandidates'][number];

export const ApprovalPolicyQuery = graphql(`
  query ApprovalPolicy($companyId: Int!) {
    approvalPolicy(companyId: $companyId) {
      companyId
      creatorMayNotApprove
      secondApprovalThreshold
      assignedStaffOnly
    }
  }
`);

export const SetApprovalPolicy = graphql(`
  mutation SetApprovalPolicy($companyId: Int!, $input: ApprovalPolicyInput!) {
    setApprovalPolicy(companyId: $companyId, input: $input) {
      companyId
      creatorMayNotApprove
      secondApprovalThreshold
      assignedStaffOnly
    }
  }
`);

export const CreateApproval = graphql(`
  mutation CreateApproval($input: CreateApprovalInput!) {
    createApproval(input: $input) {
      id
    }
  }
`);

/** What may change while PENDING; a field left out stays, managerId null clears the manager. */
export const UpdateApproval = graphql(`
  mutation UpdateApproval($id: String!, $input: UpdateApprovalInput!) {
    updateApproval(id: $id, input: $input) {
      id
    }
  }
`);

export type UpdateApprovalInput = VariablesOf<typeof UpdateApproval>['input'];

export const ApproveApproval = graphql(`
  mutation ApproveApproval($id: String!, $approvedBillIds: [String!]!, $effectiveDate: String) {
    approveApproval(id: $id, approvedBillIds: $approvedBillIds, effectiveDate: $effectiveDate) {
      id
      status
      awaitingSecondApproval
    }
  }
`);

export const RejectApproval = graphql(`
  mutation RejectApproval($id: String!, $rejectionReason: String!) {
    rejectApproval(id: $id, rejectionReason: $rejectionReason) {
      id
      status
    }
  }
`);

export const DeleteApproval = graphql(`
  mutation DeleteApproval($id: String!) {
    deleteApproval(id: $id)
  }
`);

const BulkResultFields = graphql(`
  fragment ApprovalBulkResultFields on ApprovalBulkResult @_unmask {
    processed
    succeeded
    failed
    results {
      id
      success
      status
      error
    }
  }
`);

export type BulkResult = ResultOf<typeof BulkResultFields>;

export const BulkApprove = graphql(
  `
    mutation BulkApproveApprovals($ids: [String!]!) {
      bulkApproveApprovals(ids: $ids) {
        ...ApprovalBulkResultFields
      }
    }
  `,
  [BulkResultFields],
);

export const BulkReject = graphql(
  `
    mutation BulkRejectApprovals($ids: [String!]!, $reason: String!) {
      bulkRejectApprovals(ids: $ids, reason: $reason) {
        ...ApprovalBulkResultFields
      }
    }
  `,
  [BulkResultFields],
);

/** The REST calls' time-outs for the slow reads and writes (QuickBooks, many approvals at once). */
export const SLOW_MS = 30_000;
export const BULK_MS = 60_000;

export interface ApprovalFilters {
  search: string;
  companyId: string;
  status: string;
  priority: string;
  /** What holds the payment: any, file, sync or waiting (the URL's and REST's words); '' for all. */
  problem: string;
}

const A = '/api/bill-approval/approvals';

/** The invoice PDF of a bill, saved under the server's file name. */
export function downloadInvoice(approvalId: string, bill: ApprovalBill): Promise<string> {
  return downloadFile(
    `${A}/${encodeURIComponent(approvalId)}/bills/${encodeURIComponent(bill.id)}/invoice`,
    bill.invoiceFileName ?? `invoice-${bill.id}.pdf`,
    'Unable to download invoice. Please try again.',
  );
}

/** The filtered list as a CSV file (the server's export, saved under its file name). */
export function exportApprovals(filters: ApprovalFilters): Promise<string> {
  const q = new URLSearchParams();
  if (filters.search.trim()) q.set('search', filters.search.trim());
  if (filters.companyId) q.set('companyId', filters.companyId);
  if (filters.status) q.set('status', filters.status);
  if (filters.priority) q.set('priority', filters.priority);
  if (filters.problem) q.set('problem', filters.problem);
  q.set('format', 'csv');
  return downloadFile(`${A}/export?${q}`, 'approvals-export.csv', 'Failed to export approvals');
}
