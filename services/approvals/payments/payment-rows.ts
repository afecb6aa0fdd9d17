// The payment half of an approval's answer (PaymentFields) from its read-model row, and the stored
// files of the detail from its state (every version and penny test, newest first).
import type { z } from 'zod';
import type {
  NachaFileRef,
  PaymentFields,
  PaymentProblem,
} from '../../../schema/approvals/payment-answers.js';
import type { PaymentJob } from '../../../schema/approvals/payment-events.js';
import type { ApprovalState } from '../approval-decider.js';
import { CHANGED_AFTER_APPROVAL } from './banking-holds.js';
import { nachaFileUrl, PAYMENT_JOB_WORDS } from './payment-history.js';

export const PAYMENT_SELECT = [
  'a.nacha_status',
  'a.nacha_version',
  'a.nacha_file_id',
  'a.nacha_file_name',
  'a.nacha_batch_number',
  'a.nacha_generated_at',
  'a.nacha_effective_date',
  'a.nacha_entry_count',
  'a.nacha_total_cents',
  'a.nacha_problems',
  'a.nacha_skipped_bills',
  'a.penny_test_file_id',
  'a.penny_test_file_name',
  'a.penny_test_batch_number',
  'a.penny_test_cents',
  'a.penny_test_vendor_count',
  'a.penny_test_generated_at',
  'a.bank_uploaded_at',
  'a.payment_completed_at',
  'a.qb_sync_status',
  'a.qb_sync_message',
  'a.qb_sync_at',
  'a.qb_sync_items',
  'a.payment_job_problem',
  'a.payment_link_sent_at',
  'a.payment_link_expires_at',
  'a.bank_upload_reason',
  'a.payment_completed_reason',
  'a.bank_payment_state',
] as const;

type PaymentRow = {
  id: string;
  status: string;
  nacha_status: 'REQUESTED' | 'GENERATED' | 'FAILED' | null;
  nacha_version: number;
  nacha_file_id: string | null;
  nacha_file_name: string | null;
  nacha_batch_number: number | null;
  nacha_generated_at: Date | null;
  nacha_effective_date: string | null;
  nacha_entry_count: number | null;
  nacha_total_cents: number | string | null;
  nacha_problems: z.infer<typeof PaymentFields>['nachaProblems'];
  nacha_skipped_bills: z.infer<typeof PaymentFields>['nachaSkippedBills'];
  penny_test_file_id: string | null;
  penny_test_file_name: string | null;
  penny_test_batch_number: number | null;
  penny_test_cents: number | null;
  penny_test_vendor_count: number | null;
  penny_test_generated_at: Date | null;
  bank_uploaded_at: Date | null;
  payment_completed_at: Date | null;
  qb_sync_status: z.infer<typeof PaymentFields>['qbPaymentSyncStatus'];
  qb_sync_message: string | null;
  qb_sync_at: Date | null;
  qb_sync_items: z.infer<typeof PaymentFields>['qbPaymentSyncItems'];
  payment_job_problem: {
    job: PaymentJob;
    jobId: string;
    queue: string;
    reason: string;
    at: string;
  } | null;
  payment_link_sent_at: Date | null;
  payment_link_expires_at: Date | null;
  bank_upload_reason: string | null;
  payment_completed_reason: string | null;
  bank_payment_state: 'RETURNED' | 'PARTLY_RETURNED' | null;
};

const iso = (d: Date | null) => d?.toISOString() ?? null;
const dollars = (cents: number | string | null) => (cents === null ? null : Number(cents) / 100);

export function paymentFields(r: PaymentRow): z.infer<typeof PaymentFields> {
  const items = r.qb_sync_items ?? [];
  return {
    nachaFileGenerated: r.nacha_file_id !== null,
    nachaFileName: r.nacha_file_name,
    nachaBatchNumber: r.nacha_batch_number,
    nachaGeneratedAt: iso(r.nacha_generated_at),
    nachaProcessingStatus: r.nacha_status,
    nachaFileUrl: r.nacha_file_id ? nachaFileUrl(r.id, r.nacha_file_id) : null,
    nachaVersion: r.nacha_version ?? 0,
    nachaEffectiveDate: r.nacha_effective_date,
    nachaSameDay: null,
    nachaDateNote: null,
    nachaEntryCount: r.nacha_entry_count,
    nachaTotalAmount: dollars(r.nacha_total_cents),
    nachaProblems: r.nacha_problems ?? [],
    nachaSkippedBills: r.nacha_skipped_bills ?? [],
    nachaFiles: null,
    nachaFileSharedWith: null,
    pennyTestGenerated: r.penny_test_file_id !== null,
    pennyTestBatchNumber: r.penny_test_batch_number,
    pennyTestFileName: r.penny_test_file_name,
    pennyTestAmount: dollars(r.penny_test_cents),
    pennyTestVendorCount: r.penny_test_vendor_count,
    pennyTestGeneratedAt: iso(r.penny_test_generated_at),
    pennyTestFileUrl: r.penny_test_file_id ? nachaFileUrl(r.id, r.penny_test_file_id) : null,
    bankUploadedAt: iso(r.bank_uploaded_at),
    paymentCompletedAt: iso(r.payment_completed_at),
    qbPaymentSyncStatus: r.qb_sync_status,
    qbPaymentSyncMessage: r.qb_sync_message,
    qbPaymentSyncAt: iso(r.qb_sync_at),
    qbPaymentSyncDetails: items.length === 0 ? null : JSON.stringify(items),
    qbPaymentSyncItems: items,
    paymentProblem: paymentProblem(r),
    paymentPrerequisites: null,
    bankEntries: null,
    bankDelivery: null,
    bankPaymentState: r.bank_payment_state ?? null,
    paymentLinkSentAt: iso(r.payment_link_sent_at),
    paymentLinkExpiresAt: iso(r.payment_link_expires_at),
    bankUploadReason: r.bank_upload_reason,
    paymentCompletedReason: r.payment_completed_reason,
  };
}

const RETRY_OF_JOB: Record<PaymentJob, 'regenerate' | 'retry-qb-sync' | 'operations'> = {
  'request-nacha': 'regenerate',
  'generate-nacha': 'regenerate',
  'deferred-nacha': 'regenerate',
  'start-qb-sync': 'operations',
  'pay-bills': 'retry-qb-sync',
  'notify-manager': 'operations',
  'send-links': 'operations',
  'notify-completed': 'operations',
  'notify-payment-problem': 'operations',
  'record-return': 'operations',
  'void-returned-payments': 'operations',
  'notify-returned': 'operations',
  // A file the bank refused, or that could not be sent: a new version is sent at the next window.
  'bank-delivery': 'regenerate',
};

/** Approve again helps vendors held out for banking changed after approval; a pending change waits. */
const heldRetry = (problems: ReadonlyArray<{ message: string }>) =>
  problems.some((p) => p.message.includes(CHANGED_AFTER_APPROVAL)) ? ('approve-again' as const) : null;

/** The one problem the clerk sees first: a failed job, then the file, then the QuickBooks record. */
export function paymentProblem(r: PaymentRow): z.infer<typeof PaymentProblem> | null {
  const none = { queue: null, jobId: null };
  const job = r.payment_job_problem;
  if (job)
    return {
      kind: 'job',
      message: `${PAYMENT_JOB_WORDS[job.job]} failed: ${job.reason}`,
      at: job.at,
      retry: RETRY_OF_JOB[job.job],
      queue: job.queue,
      jobId: job.jobId,
    };
  if (r.nacha_status === 'FAILED') {
    const problems = r.nacha_problems ?? [];
    const limit = problems.find((p) => p.kind === 'file-limit');
    if (limit) return { kind: 'waiting', message: limit.message, at: null, retry: null, ...none };
    return {
      kind: 'nacha',
      message: `The NACHA file could not be made: ${problems.map((p) => p.message).join('; ')}`,
      at: null,
      // Held only by vendors' bank details: approving them again helps once a change went live; a
      // change still pending waits for its own decision on the vendor's page.
      retry:
        problems.length > 0 && problems.every((p) => p.kind === 'vendor-banking-changed')
          ? heldRetry(problems)
          : 'regenerate',
      ...none,
    };
  }
  // A file made without the vendors whose banking is not the banking approved: someone approves again
  // (then Regenerate) before the bank has it, or those vendors' bills wait.
  if (r.status === 'NACHA_GENERATED' && r.nacha_status === 'GENERATED' && (r.nacha_problems ?? []).length > 0)
    return {
      kind: 'nacha',
      message: `The NACHA file leaves out ${r.nacha_problems.map((p) => p.message).join('; ')}. The rest of the file went ahead; ${
        heldRetry(r.nacha_problems)
          ? 'approve again, then Regenerate, to pay them in it'
          : "once the change is decided on the vendor's page, approve again if it went live, then Regenerate"
      }`,
      at: iso(r.nacha_generated_at),
      retry: heldRetry(r.nacha_problems),
      ...none,
    };
  const sync = r.qb_sync_status;
  if (sync === 'FAILED' || sync === 'PARTIAL_SUCCESS' || sync === 'SKIPPED') {
    const how = sync === 'PARTIAL_SUCCESS' ? 'only partly recorded' : 'not recorded';
    return {
      kind: 'quickbooks',
      message: `Paid by the bank, ${how} in QuickBooks: ${r.qb_sync_message ?? 'see the sync card'}`,
      at: iso(r.qb_sync_at),
      retry: 'retry-qb-sync',
      ...none,
    };
  }
  return null;
}

/** Every stored file of the approval, newest first; `current` marks the latest payment version. */
export function nachaFilesOf(approvalId: string, state: ApprovalState): Array<z.infer<typeof NachaFileRef>> {
  const latest = state.payment.files.at(-1)?.fileId ?? null;
  return [
    ...state.payment.files.map((f) => ({ ...f, kind: 'payment' as const })),
    ...state.payment.pennyTests.map((f) => ({ ...f, kind: 'penny-test' as const })),
  ]
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : b.version - a.version))
    .map((f) => ({
      fileId: f.fileId,
      kind: f.kind,
      fileName: f.fileName,
      version: f.version,
      batchNumber: f.batchNumber,
      generatedAt: f.at,
      url: nachaFileUrl(approvalId, f.fileId),
      current: f.fileId === latest,
    }));
}

/** The detail's words on the latest file's date: same-day or not, and why it is not the date asked for. */
export function nachaDateOf(state: ApprovalState): {
  nachaSameDay: boolean | null;
  nachaDateNote: string | null;
} {
  const latest = state.payment.files.at(-1);
  return { nachaSameDay: latest ? (latest.sameDay ?? false) : null, nachaDateNote: latest?.dateNote ?? null };
}
