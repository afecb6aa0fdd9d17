// Every answer of the approvals module, written once. The application's answer
// types are `z.infer` of these (services/approvals/), the REST routes document them as they
// are (OpenAPI components for the named ones), and the GraphQL types derive their fields from them
// or are held to them by services/gateway/graphql/answers-approvals.unit.test.ts.
import { z } from 'zod';
import { named, pageOf } from '../shared/answers.js';
import { APPROVAL_STATUSES, BillSnapshot, PRIORITIES } from './events.js';
import { PaymentFields } from './payment-answers.js';

/** A staff member named on an approval (creator, approvers, rejecter). */
export const PersonRef = z.object({
  id: z.number().int(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
});

/** The approval's manager, while assigned and not deleted. */
export const ManagerRef = z.object({
  id: z.number().int(),
  firstName: z.string(),
  lastName: z.string(),
  title: z.string().nullable(),
  email: z.string(),
  phone: z.string().nullable(),
});

/** A bill's vendor as the vendors read model knows it: banking details masked. */
export const AchStatus = z.object({
  hasBankingInfo: z.boolean(),
  vendorId: z.number().int().nullable(),
  bankName: z.string().nullable(),
  accountType: z.enum(['checking', 'savings']).nullable(),
  routingNumber: z.string().nullable().describe('Masked'),
  accountNumber: z.string().nullable().describe('Masked'),
});

/**
 * A bill of the snapshot as the detail shows it: QuickBooks' shape as snapshotted, the vendor's
 * contact (opened from the log), whether an invoice can be downloaded, and the vendor's ACH status.
 */
export const ApprovalBill = BillSnapshot.extend({
  VendorInfo: z.object({
    CompanyName: z.string().nullable(),
    Email: z.string().nullable(),
    Phone: z.string().nullable(),
  }),
  invoiceAvailable: z.boolean(),
  achStatus: AchStatus,
});

/** A bill the creator accepted although it looks like another (in an approval, or paid). */
export const ApprovalDuplicate = z.object({
  billId: z.string(),
  matchesBillId: z.string(),
  matchesApprovalId: z
    .string()
    .nullable()
    .describe('The approval holding the look-alike; null when it is a paid bill'),
  paid: z.boolean().describe('The look-alike is already paid in QuickBooks'),
});

export const BANKING_FLAG_KINDS = ['recent-change', 'pending-change', 'frozen-change'] as const;

/**
 * A vendor's bank details changed where money is decided (the approvals list, /bills, the detail):
 * live within the company's flag window (`recent-change`), or a change waiting for a second look
 * (`pending-change`) or reported by the vendor's contact as not theirs (`frozen-change`), with who
 * made it and when, and who must act. Numbers masked.
 */
export const BankingFlag = named(
  'ApprovalBankingFlag',
  z.object({
    kind: z.enum(BANKING_FLAG_KINDS),
    vendorId: z.number().int(),
    qbVendorId: z.string(),
    vendorName: z.string().nullable(),
    changeId: z.string(),
    source: z
      .enum(['form', 'batch', 'csv', 'noc'])
      .describe('form, batch, csv, or a notification of change (noc)'),
    routingNumber: z.string().nullable().describe('The new routing number, masked'),
    accountNumber: z.string().nullable().describe('The new account number, masked'),
    previousRoutingNumber: z.string().nullable().describe('The routing number before, masked; null: none'),
    previousAccountNumber: z.string().nullable().describe('The account number before, masked; null: none'),
    changedById: z.number().int().nullable().describe('Who made the change; null: the system'),
    changedByName: z.string().nullable(),
    changedAt: z.string(),
    liveAt: z.string().nullable().describe('When it went live; null while held'),
    verifiedBy: z
      .string()
      .nullable()
      .describe('How it went live: second-person, micro-deposits, control-off; null while held'),
    verifiedByName: z.string().nullable().describe('Who approved it (second-person)'),
    flaggedUntil: z
      .string()
      .nullable()
      .describe('A recent change is flagged until then (the company’s flag days after it went live)'),
    awaiting: z.string().nullable().describe('Who must act on a held change; null once live'),
    message: z.string().describe('The flag in words'),
  }),
);

export const BANKING_REVIEW_STATES = ['as-approved', 'changed', 'pending', 'frozen', 'not-recorded'] as const;

/**
 * One vendor of an approved approval: the bank details approved (masked) beside the live ones. A file
 * pays it only `as-approved` (or `not-recorded`: approved before the banking approved was kept); a
 * `changed` one is approved again by an approver, who is shown these tails; `pending` and `frozen`
 * wait for the change's own decision.
 */
export const BankingReview = named(
  'ApprovalBankingReview',
  z.object({
    qbVendorId: z.string(),
    vendorName: z.string().nullable(),
    state: z.enum(BANKING_REVIEW_STATES),
    approvedRoutingNumber: z
      .string()
      .nullable()
      .describe('Masked; null: approved without banking, or not recorded'),
    approvedAccountNumber: z.string().nullable().describe('Masked'),
    liveRoutingNumber: z.string().nullable().describe('Masked; null: no banking now'),
    liveAccountNumber: z.string().nullable().describe('Masked'),
    message: z.string().nullable(),
  }),
);

/**
 * An approval as REST and GraphQL answer it to one viewer. `viewerMayApprove` and
 * `approveBlockedReason` are the caller's own; everything else is shared (ApprovalData).
 */
export const Approval = named(
  'Approval',
  z
    .object({
      id: z.string(),
      companyId: z.number().int(),
      companyName: z.string().nullable(),
      company: z.object({ id: z.number().int(), name: z.string() }).nullable(),
      status: z.enum(APPROVAL_STATUSES),
      priority: z.enum(PRIORITIES),
      /** Comma-separated, as the spec's screens count them (GraphQL serves the lists as billIds). */
      billIds: z.string().describe('Comma-separated'),
      approvedBillIds: z.string().describe('Comma-separated'),
      billIdList: z.array(z.string()),
      approvedBillIdList: z.array(z.string()),
      billCount: z.number().int(),
      approvedBillCount: z.number().int(),
      approvalRate: z.number().describe('Approved bills / bills, per cent'),
      totalAmount: z.number(),
      approvedAmount: z.number(),
      billStats: z.object({ totalAmount: z.number(), totalAmountApproved: z.number() }),
      billsParsed: z.array(ApprovalBill).nullable().describe('Detail only; null in lists'),
      approvedBillsParsed: z.array(ApprovalBill).nullable().describe('Detail only; null in lists'),
      managerId: z.number().int().nullable(),
      managerName: z.string().nullable(),
      managerEmail: z.string().nullable(),
      manager: ManagerRef.nullable(),
      createdBy: z.number().int().nullable(),
      creator: PersonRef.nullable(),
      approvedBy: z.number().int().nullable(),
      approver: PersonRef.nullable(),
      rejectedBy: z.number().int().nullable(),
      rejecter: PersonRef.nullable(),
      firstApprovedBy: z.number().int().nullable(),
      firstApprover: PersonRef.nullable(),
      firstApprovedAt: z.string().nullable(),
      /** The policy asked for two approvers and one has approved: still PENDING. */
      awaitingSecondApproval: z.boolean(),
      // The company's policy as it bears on this approval (read model of the policy stream).
      creatorMayNotApprove: z.boolean().describe('The company’s policy: the creator may not approve'),
      secondApprovalThreshold: z
        .number()
        .nullable()
        .describe('The company’s policy: above this amount two different approvers; null: never'),
      secondApprovalRequired: z.boolean().describe('Two different approvers are needed for this approval'),
      viewerMayApprove: z.boolean().describe('Whether the caller may approve it now'),
      approveBlockedReason: z
        .string()
        .nullable()
        .describe('Why the caller may not approve; null when they may'),
      approvalDate: z.string().nullable(),
      rejectionDate: z.string().nullable(),
      rejectionReason: z.string().nullable(),
      expiresAt: z.string(),
      expiredAt: z.string().nullable(),
      recipients: z.array(z.string()).nullable().describe('Detail only; null in lists'),
      confirmedDuplicates: z.array(ApprovalDuplicate),
      createdAt: z.string(),
      updatedAt: z.string(),
      bankingFlags: z
        .array(BankingFlag)
        .describe('Per vendor of its bills: a bank detail change within the flag window, pending or frozen'),
      bankingReview: z
        .array(BankingReview)
        .nullable()
        .describe(
          'Detail only (null in lists and before approval): each approved vendor’s banking approved beside the live',
        ),
      bankingToApproveAgain: z
        .boolean()
        .nullable()
        .describe(
          'Detail only (null in lists): a vendor’s banking changed after approval and the file is not at the bank yet, so it may be approved again',
        ),
    })
    // The payment half: file, penny test, confirmations, QuickBooks payment sync (payment-answers.ts).
    .extend(PaymentFields.shape),
);

/** What one viewer may do with an approval: computed per request, never kept in a shared answer. */
export const ViewerApproval = Approval.pick({ viewerMayApprove: true, approveBlockedReason: true });

/** The approval as every reader gets it (lists are kept and shared between requests and viewers). */
export const ApprovalData = Approval.omit({ viewerMayApprove: true, approveBlockedReason: true });

/** A page of approvals for one viewer (REST spreads it into `data` and `meta.pagination`). */
export const ApprovalPage = pageOf(Approval);

/** GET /approvals/stats: the five counts, bills and amounts (byStatus and byPriority by key). */
export const ApprovalStats = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  approved: z.number().int(),
  rejected: z.number().int(),
  expired: z.number().int(),
  processedBills: z.number().int(),
  approvedBills: z.number().int(),
  processedTotalAmount: z.number(),
  approvedTotalAmount: z.number(),
  byStatus: z.record(z.string(), z.number().int()),
  byPriority: z.record(z.string(), z.number().int()),
});

/** What a history step is shown as when its subject was forgotten (the field's key is gone). */
export const ERASED = '[erased]';

/** Who took a history step: a signed-in user, the recipient of an e-mail link, or a system job. */
export const HISTORY_ACTOR_KINDS = ['user', 'link-recipient', 'system'] as const;

/** One field a history step changed, as text (old → new); '[erased]' once its subject was forgotten. */
export const ApprovalHistoryChange = z.object({
  field: z.string(),
  from: z.string().nullable(),
  to: z.string().nullable(),
});

/**
 * One step of an approval's history: from its stream, and from the streams around it (the company's
 * policy in force, its vendors' banking unmasked), in the order of the log. Every field is derived
 * from the events alone.
 */
export const ApprovalHistoryEntry = z.object({
  id: z.string(),
  position: z.string().describe('The event’s position in the global log (orders every step)'),
  stream: z.string().describe('The stream the event is on: the approval’s, its company’s policy, a vendor’s'),
  action: z.string(),
  actorKind: z.enum(HISTORY_ACTOR_KINDS),
  userId: z.number().int().nullable(),
  userName: z
    .string()
    .nullable()
    .describe('Who acted: the user, the link’s recipient, or the system job (e.g. “System (payments job)”)'),
  timestamp: z.string(),
  changes: z
    .array(ApprovalHistoryChange)
    .describe('The fields the step changed, old → new (from folding the approval before and after it)'),
  reason: z
    .string()
    .nullable()
    .describe('The reason given: a rejection’s, a failure’s, why a file was asked for'),
  /** The step in plain text (amounts in en-US format), for clients that show it as is. */
  details: z.string().nullable(),
  amount: z
    .number()
    .nullable()
    .describe(
      'The amount of the step (created: the total; approved: the approved bills), for the reader to format',
    ),
  threshold: z
    .number()
    .nullable()
    .describe('A first approval: the company’s second-approval threshold its amount was above'),
  managerName: z
    .string()
    .nullable()
    .describe('The manager the step assigned; null when none, or when that manager was deleted'),
  downloadUrl: z
    .string()
    .nullable()
    .describe('The file that belongs to the step (a NACHA or penny-test file made or downloaded)'),
});

/**
 * Where the /bills screen's bills come from: Billflow's copy kept fresh by QuickBooks, or that copy as
 * it stands while QuickBooks asks Billflow to wait (its limits).
 */
export const BILL_SOURCES = ['quickbooks', 'copy'] as const;

/** An open QuickBooks bill of the company, as the /bills screen lists it. */
export const ApprovalBillCandidate = z.object({
  id: z.string(),
  docNumber: z.string().nullable(),
  txnDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  amount: z.number(),
  balance: z.number(),
  vendorQbId: z.string(),
  vendorName: z.string().nullable(),
  vendorId: z.number().int().nullable(),
  /** The vendor's bank details are complete in Billflow (vendors read model). */
  bankingReady: z.boolean(),
  /** The open approval holding it, if any: it cannot go in another. */
  inOpenApproval: z.boolean(),
  openApprovalId: z.string().nullable(),
  /** Looks like a bill (other id) already in an approval: creating with it needs a confirmation. */
  possibleDuplicate: z.boolean(),
  /** The bill it looks like: in an approval (approvalId), or already paid in QuickBooks (paid). */
  duplicateOf: z
    .object({ billId: z.string(), approvalId: z.string().nullable(), paid: z.boolean() })
    .nullable(),
  refusedReason: z
    .string()
    .nullable()
    .describe('Why the bill cannot go in an approval (an amount no ACH payment carries); null if it can'),
  bankingFlags: z
    .array(BankingFlag)
    .describe('The vendor’s bank detail change within the flag window, pending or frozen'),
  source: z
    .enum(BILL_SOURCES)
    .describe(
      'quickbooks: Billflow’s copy as QuickBooks confirmed it within the freshness window; copy: QuickBooks asked Billflow to wait, so the copy as last read (copyAsOf)',
    ),
  copyAsOf: z
    .string()
    .describe('When Billflow’s copy of the company’s bills last matched QuickBooks (ISO time)'),
  quickbooksRetryAfterSeconds: z
    .number()
    .int()
    .nullable()
    .describe('How long QuickBooks asked Billflow to wait before asking it again; null when it did not'),
});

/** A bulk approve or reject: a result per approval and a summary. */
export const ApprovalBulkResult = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      success: z.boolean(),
      status: z.enum(APPROVAL_STATUSES).nullable(),
      error: z.string().nullable(),
    }),
  ),
  summary: z.object({ processed: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
});

/** An ACTIVE manager an approval can be assigned to. */
export const ApprovalManagerOption = named(
  'ApprovalManagerOption',
  z.object({
    id: z.number().int(),
    displayName: z.string().describe('‘first last’, else the e-mail'),
    email: z.string(),
    companyManager: z
      .boolean()
      .describe('The manager assigned to the company the options were asked for (companyId)'),
  }),
);

/** The company's segregation-of-duties policy. */
export const ApprovalPolicy = z.object({
  companyId: z.number().int(),
  creatorMayNotApprove: z.boolean(),
  secondApprovalThreshold: z.number().nullable(),
  assignedStaffOnly: z.boolean(),
});

/** The export as a file (GraphQL's approvalsExport; REST sends the same CSV as an attachment). */
export const ApprovalExportFile = z.object({
  filename: z.string(),
  contentType: z.string(),
  content: z.string(),
});
