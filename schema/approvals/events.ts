// Bill approval events. An approval is a stream per approval
// (`approval-<uuid>`); the bills it holds are claimed on the company's `approvalbills-<companyId>`
// stream (a bill is in at most one open approval), and the company's segregation-of-duties policy
// lives on `approvalpolicy-<companyId>`.
//
// The QuickBooks bills are snapshotted in ApprovalCreated, so the approval never changes when
// QuickBooks does. Personal data: a vendor's e-mail and phone (a sole trader's are a person's) and
// the recipients' e-mail addresses are sealed, with the company's key: an event has one subject, an
// approval names several vendors (not all synced into Billflow, so not all with a key of their own),
// and the approval is the company's record — forgetting the company shreds them. Vendor names and
// business addresses are kept plain: they are the books' counterparties, shown in every list.
import { z } from 'zod';
import { companySubject } from '../companies/events.js';
import type { PersonalFields } from '../shared/personal.js';
import { approvalAuditEvents } from './audit-events.js';
import { paymentEvents } from './payment-events.js';

const companyPersonal = (fields: readonly string[]): PersonalFields => ({
  subject: (data) => companySubject(data.companyId as number),
  fields,
});

export const APPROVAL_STATUSES = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'EXPIRED',
  // The payment statuses (payment-events.ts; docs/ARCHITECTURE.md says what each means on screen).
  'NACHA_GENERATED',
  'NACHA_PENDING',
  'BANK_UPLOADED',
  'PAYMENT_COMPLETED',
] as const;
export const ApprovalStatus = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

export const PRIORITIES = ['URGENT', 'HIGH', 'MEDIUM', 'LOW'] as const;
export const Priority = z.enum(PRIORITIES);
export type Priority = z.infer<typeof Priority>;

/** One line of a bill, as QuickBooks gave it (the fields the screens show). */
export const BillLineSnapshot = z.object({
  Id: z.string(),
  Description: z.string().nullable(),
  Amount: z.number(),
  Qty: z.number().nullable(),
  ItemName: z.string().nullable(),
  AccountName: z.string().nullable(),
});

/** A QuickBooks bill as it was when the approval was created (vendor contacts apart: sealed). */
export const BillSnapshot = z.object({
  Id: z.string(),
  DocNumber: z.string().nullable(),
  TxnDate: z.string().nullable(),
  DueDate: z.string().nullable(),
  TotalAmt: z.number(),
  Balance: z.number(),
  CurrencyRef: z.string().nullable(),
  VendorRef: z.object({ value: z.string(), name: z.string().nullable() }),
  /** VendorInfo without e-mail and phone (those are in `vendorContacts`, sealed). */
  VendorInfo: z.object({ CompanyName: z.string().nullable() }),
  VendorAddr: z
    .object({
      Line1: z.string().nullable(),
      City: z.string().nullable(),
      CountrySubDivisionCode: z.string().nullable(),
      PostalCode: z.string().nullable(),
    })
    .nullable(),
  Line: z.array(BillLineSnapshot),
  /** The invoice: the bill's first attachable in QuickBooks, if any. */
  AttachableId: z.string().nullable(),
  InvoiceFileName: z.string().nullable(),
});
export type BillSnapshot = z.infer<typeof BillSnapshot>;

/** A vendor's contact as QuickBooks had it (sealed in the event). */
export const VendorContact = z.object({
  qbVendorId: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
});
export type VendorContact = z.infer<typeof VendorContact>;

/**
 * A bill the creator accepted although it looks like another: one already in an approval
 * (`matchesApprovalId`), or one already paid in QuickBooks (`paid`, no approval).
 */
export const ConfirmedDuplicate = z.object({
  billId: z.string(),
  matchesBillId: z.string(),
  matchesApprovalId: z.string().nullable(),
  paid: z.boolean().default(false),
});
export type ConfirmedDuplicate = z.infer<typeof ConfirmedDuplicate>;

const approvalId = z.string();
const companyId = z.number().int().positive();
const userId = z.number().int().positive();

/**
 * A vendor's bank details as an approver was shown them: a fingerprint of routing number, account
 * number and type keyed with the company's data key (services/approvals/payments/approved-banking.ts),
 * never the numbers, with the tails the screens showed. `fingerprint` null: the vendor had no banking.
 * A file pays a vendor only while its live banking has the fingerprint approved.
 */
export const ApprovedBanking = z.object({
  qbVendorId: z.string(),
  fingerprint: z.string().nullable(),
  routingLast4: z.string().nullable(),
  accountLast4: z.string().nullable(),
});
export type ApprovedBanking = z.infer<typeof ApprovedBanking>;

/** Absent on approvals made before the banking approved was recorded: paid as current banking stands. */
const approvedBanking = z.array(ApprovedBanking).optional();

export const approvalEvents = {
  ApprovalCreated: {
    version: 1,
    personal: companyPersonal(['vendorContacts', 'recipients']),
    schema: z.object({
      approvalId,
      companyId,
      priority: Priority,
      managerId: z.number().int().positive().nullable(),
      createdBy: userId,
      bills: z.array(BillSnapshot).min(1),
      vendorContacts: z.array(VendorContact),
      recipients: z.array(z.string()),
      confirmedDuplicates: z.array(ConfirmedDuplicate),
      /** When the expiry job turns it EXPIRED if still PENDING (configured age from creation). */
      expiresAt: z.string(),
      at: z.string(),
    }),
  },
  /** Only what changed is present (priority, manager). */
  ApprovalUpdated: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      priority: Priority.optional(),
      managerId: z.number().int().positive().nullable().optional(),
      at: z.string(),
    }),
  },
  ApprovalRecipientsUpdated: {
    version: 1,
    personal: companyPersonal(['recipients']),
    schema: z.object({ approvalId, companyId, recipients: z.array(z.string()), at: z.string() }),
  },
  /**
   * The first of two approvals the company's policy asks for above its threshold: the status stays
   * PENDING, awaiting a second, different approver.
   */
  ApprovalFirstApproved: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      approvedBillIds: z.array(z.string()).min(1),
      byUserId: userId,
      amount: z.number(),
      threshold: z.number(),
      /** A first approval this one replaced: the completing choice reached beyond its bills. */
      supersedes: z.object({ byUserId: userId, approvedBillIds: z.array(z.string()).min(1) }).optional(),
      /** The banking of the approved bills' vendors as this approver was shown it. */
      approvedBanking,
      at: z.string(),
    }),
  },
  ApprovalApproved: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      approvedBillIds: z.array(z.string()).min(1),
      byUserId: userId,
      /** The first approver when the policy asked for two; else null. */
      firstApprovedBy: userId.nullable(),
      /**
       * The banking of the approved bills' vendors that the file may pay: as the approver was shown
       * it, or, where it changed after a first approver saw it, as that first approver saw it.
       */
      approvedBanking,
      /** The effective entry date the approver chose ('YYYY-MM-DD'); absent: the default. */
      effectiveDate: z.string().optional(),
      at: z.string(),
    }),
  },
  /**
   * Approved again for the vendors whose banking changed after approval (a change approved by a second
   * person, or confirmed by the vendor): the file may pay their new banking. Before the bank has the file.
   */
  ApprovalBankingReapproved: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      byUserId: userId,
      vendors: z
        .array(
          ApprovedBanking.extend({
            vendorName: z.string().nullable(),
            /** What was approved before (tails for the history; null fingerprint: no banking). */
            previous: ApprovedBanking.omit({ qbVendorId: true }).nullable(),
          }),
        )
        .min(1),
      at: z.string(),
    }),
  },
  ApprovalRejected: {
    version: 1,
    schema: z.object({ approvalId, companyId, reason: z.string(), byUserId: userId, at: z.string() }),
  },
  ApprovalExpired: { version: 1, schema: z.object({ approvalId, companyId, at: z.string() }) },
  /** Leaves every list; its events stay (history, audit). */
  ApprovalDeleted: {
    version: 1,
    schema: z.object({ approvalId, companyId, byUserId: userId, at: z.string() }),
  },
  ...paymentEvents,
  ...approvalAuditEvents,
} as const;

type Defs = typeof approvalEvents;
export type ApprovalEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];

/** A bill in a claim: its id and what the duplicate guard compares (vendor, amount, doc number). */
export const ClaimedBill = z.object({ billId: z.string(), fingerprint: z.string() });

/** The company's bills in approvals (stream `approvalbills-<companyId>`). */
export const approvalBillsEvents = {
  ApprovalBillsClaimed: {
    version: 1,
    schema: z.object({
      companyId,
      approvalId,
      bills: z.array(ClaimedBill).min(1),
      confirmedDuplicates: z.array(ConfirmedDuplicate),
      at: z.string(),
    }),
  },
  /**
   * Bills free again: their approval was rejected, expired or deleted, or approved without them, or
   * the bank returned the entry that paid them (`returned`: they may go into a new approval).
   * `forget` (a deleted approval): its bills no longer count for the duplicate guard either.
   */
  ApprovalBillsReleased: {
    version: 1,
    schema: z.object({
      companyId,
      approvalId,
      billIds: z.array(z.string()).min(1),
      reason: z.enum(['rejected', 'expired', 'deleted', 'not-approved', 'abandoned', 'returned']),
      forget: z.boolean(),
      at: z.string(),
    }),
  },
} as const;

type BillsDefs = typeof approvalBillsEvents;
export type ApprovalBillsEvent = {
  [K in keyof BillsDefs]: { type: K; data: z.infer<BillsDefs[K]['schema']> };
}[keyof BillsDefs];

/** The company's segregation-of-duties policy (stream `approvalpolicy-<companyId>`). */
export const approvalPolicyEvents = {
  ApprovalPolicySet: {
    version: 1,
    schema: z.object({
      companyId,
      creatorMayNotApprove: z.boolean(),
      /** Above this total (approved bills, USD) a second, different approver is needed; null: never. */
      secondApprovalThreshold: z.number().nonnegative().nullable(),
      /** Only assigned staff (and ADMINs) see and act on its approvals; absent in older events: true. */
      assignedStaffOnly: z.boolean().optional(),
      byUserId: userId,
      at: z.string(),
    }),
  },
} as const;

type PolicyDefs = typeof approvalPolicyEvents;
export type ApprovalPolicyEvent = {
  [K in keyof PolicyDefs]: { type: K; data: z.infer<PolicyDefs[K]['schema']> };
}[keyof PolicyDefs];
