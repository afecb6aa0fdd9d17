// The payment fields of an approval's answer (NACHA, penny test, payment sync), the
// penny-test and link answers, and the sync detail item. Written once: Approval (answers.ts) is
// extended with PaymentFields; REST and GraphQL derive from these.
import { z } from 'zod';
import { PaymentEntryOutcome } from '../payments/answers.js';
import { named } from '../shared/answers.js';
import { LINK_ACTIONS, NachaProblem, QB_SYNC_STATUSES } from './payment-events.js';

/** One QuickBooks bill payment of a sync run. */
export const QbSyncDetailItem = z.object({
  billId: z.string(),
  docNumber: z.string().nullable(),
  vendorName: z.string().nullable(),
  amount: z.number(),
  billPaymentId: z.string().nullable(),
  duration: z.number().int().describe('Milliseconds'),
  error: z.string().nullable(),
  success: z.boolean(),
});

/** A stored file of the approval: every NACHA version and penny test, newest first. */
export const NachaFileRef = z.object({
  fileId: z.string(),
  kind: z.enum(['payment', 'penny-test']),
  fileName: z.string(),
  version: z.number().int().describe('The payment file’s version; 0 for a penny test'),
  batchNumber: z.number().int(),
  generatedAt: z.string(),
  url: z.string().describe('Download as text (ADMIN, MODERATOR; recorded)'),
  current: z.boolean().describe('The file the bank is to receive (latest version)'),
});

/**
 * What stops or holds the approval's payment, in plain words, where the clerk works (list row, badge,
 * detail, dashboard): a job that failed for good (`job`), a file waiting on a fix (`nacha`; a file made
 * without the vendors whose banking changed after approval too) or on the day's file limit (`waiting`,
 * with the day it will be made), a QuickBooks record that failed after the bank paid (`quickbooks`).
 * `retry`: what helps — Regenerate, approve the changed bank details again (then Regenerate), Retry the
 * sync, or the failed job's retry on the operations page (ADMIN); null when waiting is all there is to do.
 */
export const PaymentProblem = named(
  'PaymentProblem',
  z.object({
    kind: z.enum(['job', 'nacha', 'waiting', 'quickbooks']),
    message: z.string(),
    at: z.string().nullable(),
    retry: z.enum(['regenerate', 'approve-again', 'retry-qb-sync', 'operations']).nullable(),
    queue: z.string().nullable().describe('The failed job’s queue (kind job)'),
    jobId: z.string().nullable().describe('The failed job’s id (kind job)'),
  }),
);

/**
 * What a payment will need, checked from the day the approval is made: `blocking` stops the file
 * (the company's NACHA settings, its payment account); a vendor's is waited for; `account-balance`
 * is a warning to look at.
 */
export const PaymentPrerequisite = named(
  'PaymentPrerequisite',
  z.object({
    kind: z.enum(['nacha-settings', 'payment-account', 'account-balance', 'vendor']),
    blocking: z.boolean(),
    vendorName: z.string().nullable(),
    message: z.string(),
  }),
);

/**
 * The approval's file on its way to the bank over SFTP (its company's bank connection): waiting for
 * the cut-off window, delivered by the system (and what the bank answered), or not sent and why.
 */
export const BankDelivery = named(
  'BankDelivery',
  z.object({
    status: z.enum(['scheduled', 'delivered', 'failed']),
    fileName: z.string(),
    version: z.number().int().describe('The version of the payment file the delivery is for'),
    windowAt: z.string().nullable().describe('The cut-off window the file waits for (New York time)'),
    deliveredAt: z.string().nullable(),
    size: z.number().int().nullable().describe('Bytes, as delivered'),
    sha256: z.string().nullable().describe('Of the file as delivered'),
    foundThere: z
      .boolean()
      .nullable()
      .describe('The file was already in the bank’s inbox (by name and size), so it was not sent again'),
    bankAnswer: z.enum(['acknowledged', 'rejected']).nullable(),
    bankText: z.string().nullable().describe('The bank’s answer in its own words'),
    failure: z.string().nullable().describe('Why the file was not sent'),
  }),
);

export const PaymentFields = z.object({
  nachaFileGenerated: z.boolean(),
  nachaFileName: z.string().nullable(),
  nachaBatchNumber: z.number().int().nullable(),
  nachaGeneratedAt: z.string().nullable(),
  nachaProcessingStatus: z
    .enum(['REQUESTED', 'GENERATED', 'FAILED'])
    .nullable()
    .describe('REQUESTED: queued or generating; FAILED: waiting on a fix (nachaProblems)'),
  nachaFileUrl: z.string().nullable(),
  nachaVersion: z.number().int(),
  nachaEffectiveDate: z.string().nullable(),
  nachaSameDay: z
    .boolean()
    .nullable()
    .describe(
      'The file is effective today in a Same-Day ACH window (batch header SD1700). Detail only; null in lists',
    ),
  nachaDateNote: z
    .string()
    .nullable()
    .describe(
      'Why the file’s effective date is not the one asked for (a chosen date lapsed, an entry above the same-day limit). Detail only',
    ),
  nachaEntryCount: z.number().int().nullable(),
  nachaTotalAmount: z.number().nullable().describe('Credits, USD'),
  nachaProblems: z.array(NachaProblem),
  nachaSkippedBills: z.array(
    z.object({ billId: z.string(), docNumber: z.string().nullable(), reason: z.string() }),
  ),
  nachaFiles: z.array(NachaFileRef).nullable().describe('Detail only; null in lists'),
  nachaFileSharedWith: z
    .number()
    .int()
    .nullable()
    .describe(
      'Detail only: how many other approvals’ batches the current file carries (the approvals made for one cut-off window share its file); null in lists',
    ),
  pennyTestGenerated: z.boolean(),
  pennyTestBatchNumber: z.number().int().nullable(),
  pennyTestFileName: z.string().nullable(),
  pennyTestAmount: z.number().nullable().describe('USD, the micro-credits’ total'),
  pennyTestVendorCount: z.number().int().nullable(),
  pennyTestGeneratedAt: z.string().nullable(),
  pennyTestFileUrl: z.string().nullable(),
  bankUploadedAt: z.string().nullable(),
  paymentCompletedAt: z.string().nullable(),
  qbPaymentSyncStatus: z.enum(QB_SYNC_STATUSES).nullable(),
  qbPaymentSyncMessage: z.string().nullable(),
  qbPaymentSyncAt: z.string().nullable(),
  qbPaymentSyncDetails: z.string().nullable().describe('JSON text of an array of QbSyncDetailItem'),
  qbPaymentSyncItems: z.array(QbSyncDetailItem),
  paymentProblem: PaymentProblem.nullable(),
  paymentPrerequisites: z
    .array(PaymentPrerequisite)
    .nullable()
    .describe('Detail only (null in lists): what the payment still needs, checked before money moves'),
  paymentLinkSentAt: z
    .string()
    .nullable()
    .describe('When the current step’s e-mail link was last sent (null: none sent for this step)'),
  paymentLinkExpiresAt: z
    .string()
    .nullable()
    .describe('When the last-sent link of the current step stops working; after it, send the link again'),
  bankUploadReason: z
    .string()
    .nullable()
    .describe('Why staff confirmed the bank upload in the app (null: confirmed by its e-mail link)'),
  paymentCompletedReason: z
    .string()
    .nullable()
    .describe('Why staff confirmed the payment in the app (null: confirmed by its e-mail link)'),
  bankEntries: z
    .array(PaymentEntryOutcome)
    .nullable()
    .describe(
      'Detail only (null in lists): the entries of the approval’s files that the bank returned or sent a notification of change for',
    ),
  bankDelivery: BankDelivery.nullable().describe(
    'Detail only (null in lists, and for a company that sends its files by hand): the file’s delivery to the bank over SFTP',
  ),
  bankPaymentState: z
    .enum(['RETURNED', 'PARTLY_RETURNED'])
    .nullable()
    .describe(
      'What the bank did after the file, beside the status: RETURNED (every vendor’s entry came back), PARTLY_RETURNED; null: nothing came back',
    ),
});

/** POST /approvals/{id}/generate-penny-test */
export const PennyTestResult = named(
  'PennyTestResult',
  z.object({
    testAmount: z.number().describe('USD'),
    vendorCount: z.number().int(),
    fileName: z.string(),
    batchNumber: z.number().int(),
  }),
);

/** GET /approvals/{id}/verify-token. */
export const TokenStatusInfo = z.object({
  canMarkAsPaid: z.boolean(),
  isAlreadyPaid: z.boolean(),
  canMarkAsUploaded: z.boolean(),
  isAlreadyUploaded: z.boolean(),
});
export const LinkAnswer = z.object({
  action: z.enum(LINK_ACTIONS),
  expiresAt: z.string(),
  stepDone: z
    .boolean()
    .describe(
      'The link’s step is done (it was used, or done by another): the answer names only the approval’s id and status, and no recipient',
    ),
});
/** The approval as verify-token names it once the link's step is done: what the result needs. */
export const LinkStepDoneApproval = z.object({ id: z.string(), status: z.string() });
