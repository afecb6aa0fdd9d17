// The payment half of an approval's life, on the approval's own stream (`approval-<id>`): the NACHA
// file asked for, generated or failed, downloaded; the penny test; the e-mail links that let a
// manager confirm the bank upload and the payment without signing in; and the QuickBooks bill
// payments that follow. Spread into `approvalEvents` (events.ts): one stream, one decider.
//
// No account number is ever in these events: a file's vendors carry their last four digits only (one
// event cannot seal several vendors' numbers under each vendor's own key), and the file itself is kept
// encrypted with the company's key outside the log (services/payments/nacha-files.ts).
// A link's recipient is an e-mail address: sealed with the company's key, as the recipients are.
import { z } from 'zod';
import { companySubject } from '../companies/events.js';
import { ReturnAction } from '../payments/events.js';
import type { PersonalFields } from '../shared/personal.js';

const companyPersonal = (fields: readonly string[]): PersonalFields => ({
  subject: (data) => companySubject(data.companyId as number),
  fields,
});

const approvalId = z.string();
const companyId = z.number().int().positive();
const userId = z.number().int().positive();
const cents = z.number().int().nonnegative();

export const LINK_ACTIONS = ['bank-uploaded', 'payment-completed'] as const;
export const LinkAction = z.enum(LINK_ACTIONS);
export type LinkAction = z.infer<typeof LinkAction>;

export const QB_SYNC_STATUSES = [
  'PENDING',
  'SYNCING',
  'SUCCESS',
  'PARTIAL_SUCCESS',
  'FAILED',
  'SKIPPED',
] as const;
export const QbSyncStatus = z.enum(QB_SYNC_STATUSES);
export type QbSyncStatus = z.infer<typeof QbSyncStatus>;

/**
 * What a generation could not get past, each named for the person who can fix it. `entry-limit`: one
 * entry's amount (a vendor's bills summed) is above what the entry's 10-digit amount field holds,
 * $99,999,999.99; the fix is to pay those bills in more than one approval. `file-limit`: the company
 * sent the 36 files its bank takes in one day; the file is made on `waitUntil`'s banking day by itself.
 * `vendor-banking-changed`: the vendor's live banking is not the banking approved (changed after
 * approval: approve again), or a change of it is pending or frozen; the vendor is held out of the file.
 */
export const NachaProblem = z.object({
  kind: z.enum([
    'company-settings',
    'vendor-banking',
    'vendor-inactive',
    'vendor-unknown',
    'nothing-to-pay',
    'quickbooks',
    'entry-limit',
    'file-limit',
    'vendor-banking-changed',
  ]),
  vendorName: z.string().nullable(),
  message: z.string(),
  /** `file-limit`: the banking day (YYYY-MM-DD) the file will be made on, with no one acting. */
  waitUntil: z.string().optional(),
});
export type NachaProblem = z.infer<typeof NachaProblem>;

/** What a file paid for one bill: the QuickBooks bill payment records exactly this, never another sum. */
export const NachaFileBill = z.object({ billId: z.string(), amountCents: cents });
export type NachaFileBill = z.infer<typeof NachaFileBill>;

/**
 * One credit of a file: a vendor, the sum of its bills, the last four digits of its account, and
 * what it paid per bill (`bills`, summing to `amountCents`; absent on files made before it was kept).
 */
export const NachaFileVendor = z.object({
  qbVendorId: z.string(),
  name: z.string(),
  amountCents: cents,
  accountLast4: z.string(),
  billIds: z.array(z.string()),
  bills: z.array(NachaFileBill).optional(),
  /**
   * The entry's trace number (the ODFI's 8 digits + a 7-digit sequence never reused at that ODFI):
   * the key the bank's returns and notifications of change name it by. Absent on older files, whose
   * sequences restarted at 1 in every file.
   */
  traceNumber: z
    .string()
    .regex(/^\d{15}$/)
    .optional(),
});

/** A bill left out of the file: already paid in QuickBooks (balance 0), or its balance lower. */
export const NachaSkippedBill = z.object({
  billId: z.string(),
  docNumber: z.string().nullable(),
  reason: z.string(),
});

/** The payment path's jobs whose failure is recorded on the approval. */
export const PAYMENT_JOBS = [
  'request-nacha',
  'generate-nacha',
  'deferred-nacha',
  'start-qb-sync',
  'pay-bills',
  'notify-manager',
  'send-links',
  'notify-completed',
  'notify-payment-problem',
  'record-return',
  'void-returned-payments',
  'notify-returned',
  'bank-delivery',
] as const;
export const PaymentJob = z.enum(PAYMENT_JOBS);
export type PaymentJob = z.infer<typeof PaymentJob>;

const GENERATION_JOBS: readonly PaymentJob[] = ['request-nacha', 'generate-nacha', 'deferred-nacha'];
/** The events that show a failed job's step went through after all (its problem is then over). */
const STEP_DONE: Readonly<Record<string, readonly PaymentJob[]>> = {
  NachaGenerationRequested: GENERATION_JOBS,
  NachaFileGenerated: GENERATION_JOBS,
  NachaGenerationFailed: GENERATION_JOBS,
  QbPaymentSyncStarted: ['start-qb-sync', 'pay-bills'],
  ApprovalLinkIssued: ['send-links'],
  BankUploadConfirmed: ['send-links', 'bank-delivery'],
  PaymentCompleted: ['send-links'],
  PaymentReturnRecorded: ['record-return'],
  QbBillPaymentVoided: ['void-returned-payments'],
};
export const jobStepDone = (eventType: string, job: PaymentJob) =>
  STEP_DONE[eventType]?.includes(job) ?? false;

/**
 * Who confirmed: a signed-in staff member, or the recipient of an e-mail link (sealed). `reason`: why
 * staff confirmed in the app instead of the link's recipients (absent on a link's confirmation, and
 * on confirmations recorded before it was asked for).
 */
const confirmedBy = {
  byUserId: userId.nullable(),
  linkId: z.string().nullable(),
  recipient: z.string().nullable(),
  reason: z.string().optional(),
};

export const paymentEvents = {
  /**
   * A file is asked for: by the system when the approval is approved (`approved`), or by staff
   * (`regenerate`). `version` counts the requests; only the latest one's outcome counts.
   */
  NachaGenerationRequested: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      version: z.number().int().positive(),
      reason: z.enum(['approved', 'regenerate']),
      byUserId: userId.nullable(),
      /**
       * The effective entry date chosen ('YYYY-MM-DD', a banking day): the file takes it if it still
       * holds when made. Absent: the default (the next banking day, or today in a same-day window).
       */
      effectiveDate: z.string().optional(),
      at: z.string(),
    }),
  },
  NachaFileGenerated: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      version: z.number().int().positive(),
      fileId: z.string(),
      fileName: z.string(),
      batchNumber: z.number().int().positive(),
      fileIdModifier: z.string().length(1),
      effectiveDate: z.string(),
      entryCount: z.number().int().nonnegative(),
      totalCreditCents: cents,
      totalDebitCents: cents,
      balanced: z.boolean(),
      vendors: z.array(NachaFileVendor),
      skippedBills: z.array(NachaSkippedBill),
      /**
       * Vendors held out of this file, each named (kind vendor-banking-changed): the rest of the file
       * went ahead, their bills wait for approve again and Regenerate. Absent on older files.
       */
      heldVendors: z.array(NachaProblem).optional(),
      /** Effective today in a Same-Day ACH window (batch header SD1700). Absent on older files: false. */
      sameDay: z.boolean().optional(),
      /** Why the effective date is not the one asked for (a chosen date lapsed, an entry above the same-day limit). */
      dateNote: z.string().optional(),
      /**
       * The cut-off window whose shared file carries this one as batch `batchNumber` (decision 0040):
       * the window's instant, its file's number there, and how the window's files go (by hand or over
       * SFTP: a company that changes how it sends never mixes the two). Absent on older files: a file
       * of its own.
       */
      window: z
        .object({ at: z.string(), file: z.number().int().positive(), via: z.enum(['manual', 'sftp']) })
        .optional(),
      at: z.string(),
    }),
  },
  NachaGenerationFailed: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      version: z.number().int().positive(),
      reason: z.string(),
      problems: z.array(NachaProblem),
      at: z.string(),
    }),
  },
  /** Each download of a stored file is on record: who took which file. */
  NachaFileDownloaded: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      fileId: z.string(),
      kind: z.enum(['payment', 'penny-test']),
      byUserId: userId,
      at: z.string(),
    }),
  },
  PennyTestGenerated: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      fileId: z.string(),
      fileName: z.string(),
      batchNumber: z.number().int().positive(),
      fileIdModifier: z.string().length(1),
      totalCents: cents,
      vendorCount: z.number().int().positive(),
      byUserId: userId,
      at: z.string(),
    }),
  },
  /** An e-mail link was made for one recipient, one action, and the file version it confirms. */
  ApprovalLinkIssued: {
    version: 1,
    personal: companyPersonal(['recipient']),
    schema: z.object({
      approvalId,
      companyId,
      linkId: z.string(),
      action: LinkAction,
      fileVersion: z.number().int().positive(),
      recipient: z.string(),
      expiresAt: z.string(),
      at: z.string(),
    }),
  },
  /**
   * Staff asked for the current step's link to be sent again (a link lapsed, the signing key changed,
   * a mail went astray): the `payment-mail` process manager issues fresh links to the manager and the
   * recipients of that moment. `recipientCount`: how many there were when it was asked.
   */
  PaymentLinkResendRequested: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      action: LinkAction,
      fileVersion: z.number().int().positive(),
      recipientCount: z.number().int().positive(),
      byUserId: userId,
      reason: z.string(),
      at: z.string(),
    }),
  },
  BankUploadConfirmed: {
    version: 1,
    personal: companyPersonal(['recipient']),
    schema: z.object({
      approvalId,
      companyId,
      fileVersion: z.number().int().positive(),
      ...confirmedBy,
      /**
       * The system delivered the file to the bank over SFTP (byUserId, linkId and recipient null):
       * what it sent, on record. Absent on a person's confirmation.
       */
      delivery: z
        .object({
          via: z.literal('sftp'),
          fileName: z.string(),
          size: z.number().int().nonnegative(),
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
        })
        .optional(),
      at: z.string(),
    }),
  },
  PaymentCompleted: {
    version: 1,
    personal: companyPersonal(['recipient']),
    schema: z.object({ approvalId, companyId, ...confirmedBy, at: z.string() }),
  },
  /** A QuickBooks payment run starts (attempt 1 after the payment; later ones are retries). */
  QbPaymentSyncStarted: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      attempt: z.number().int().positive(),
      billIds: z.array(z.string()),
      byUserId: userId.nullable(),
      at: z.string(),
    }),
  },
  QbBillPaid: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      attempt: z.number().int().positive(),
      billId: z.string(),
      docNumber: z.string().nullable(),
      vendorName: z.string().nullable(),
      amount: z.number(),
      billPaymentId: z.string(),
      durationMs: z.number().int().nonnegative(),
      at: z.string(),
    }),
  },
  QbBillPaymentFailed: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      attempt: z.number().int().positive(),
      billId: z.string(),
      docNumber: z.string().nullable(),
      vendorName: z.string().nullable(),
      amount: z.number(),
      error: z.string(),
      durationMs: z.number().int().nonnegative(),
      at: z.string(),
    }),
  },
  QbPaymentSyncFinished: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      attempt: z.number().int().positive(),
      status: z.enum(['SUCCESS', 'PARTIAL_SUCCESS', 'FAILED', 'SKIPPED']),
      message: z.string(),
      at: z.string(),
    }),
  },
  /**
   * A job of the payment path ended in failure for good (a refusal, its attempts used up, a bug): the
   * approval shows it with its reason in plain words until the step it stopped goes through.
   */
  PaymentJobFailed: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      job: PaymentJob,
      jobId: z.string(),
      queue: z.string(),
      reason: z.string(),
      at: z.string(),
    }),
  },
  /**
   * The bank returned the entry that paid one vendor of the approval (the payments module's
   * PaymentEntryReturned, on `achentry-<trace>`): that vendor was not paid. Its bills are let go (a
   * new approval may take them), and their QuickBooks payments are voided. The approval's status
   * stays what it was; `bankPaymentState` says whether every entry of the file came back.
   */
  PaymentReturnRecorded: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      traceNumber: z.string(),
      qbVendorId: z.string(),
      vendorName: z.string(),
      amountCents: cents,
      accountLast4: z.string(),
      fileName: z.string(),
      returnCode: z.string(),
      description: z.string(),
      action: ReturnAction,
      /** The vendor's bills the returned entry paid, with what it paid for each. */
      bills: z.array(z.object({ billId: z.string(), docNumber: z.string().nullable(), amountCents: cents })),
      bankPaymentState: z.enum(['RETURNED', 'PARTLY_RETURNED']),
      returnedAt: z.string(),
      at: z.string(),
    }),
  },
  /**
   * The QuickBooks bill payments Billflow recorded for a returned entry's bills are voided (Intuit's
   * void: the record stays with its amounts zeroed), so those bills are open again there. Absent when
   * none had been recorded.
   */
  QbBillPaymentVoided: {
    version: 1,
    schema: z.object({
      approvalId,
      companyId,
      traceNumber: z.string(),
      vendorName: z.string(),
      bills: z.array(
        z.object({
          billId: z.string(),
          docNumber: z.string().nullable(),
          billPaymentId: z.string(),
          amount: z.number(),
        }),
      ),
      at: z.string(),
    }),
  },
  /** The failed job ran again and went through (retried from the operations page). */
  PaymentJobRecovered: {
    version: 1,
    schema: z.object({ approvalId, companyId, job: PaymentJob, jobId: z.string(), at: z.string() }),
  },
} as const;

type Defs = typeof paymentEvents;
export type PaymentEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];
