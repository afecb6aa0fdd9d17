// The payment half of an approval's row (schema/approvals/payment-answers.ts PaymentFields): the
// status it moves to, the current file, the penny test, the confirmations and the QuickBooks payment
// sync. Only what the events carry: file ids, names, counts, totals, vendors' last four digits at
// most (not even those are kept here); never an account number.
import { jobStepDone, type PaymentEvent } from '../../schema/approvals/payment-events.js';
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { ApprovalPaymentColumns, ApprovalsTable } from './tables.js';

export const PAYMENT_EVENT_TYPES = [
  'NachaGenerationRequested',
  'NachaFileGenerated',
  'NachaGenerationFailed',
  'PennyTestGenerated',
  'ApprovalLinkIssued',
  'BankUploadConfirmed',
  'PaymentCompleted',
  'QbPaymentSyncStarted',
  'QbBillPaid',
  'QbBillPaymentFailed',
  'QbPaymentSyncFinished',
  'PaymentJobFailed',
  'PaymentJobRecovered',
  // Recorded on the approval before the bank's answers moved to the payments module (decision 0041).
  'PaymentReturnRecorded',
  'QbBillPaymentVoided',
] as const;

/** The payments module's answers about the approval's entries (on `achentry-<trace>`). */
export const ENTRY_ANSWER_TYPES = ['PaymentEntryReturned', 'PaymentEntryQbVoided'] as const;
export type EntryAnswerEvent = Extract<PaymentsEvent, { type: (typeof ENTRY_ANSWER_TYPES)[number] }>;

/** Events that set the status (their change notices carry it). */
export const PAYMENT_STATUS_EVENTS = [
  'NachaGenerationRequested',
  'NachaFileGenerated',
  'BankUploadConfirmed',
  'PaymentCompleted',
] as const;

export const emptyPaymentColumns = (): ApprovalPaymentColumns => ({
  nacha_status: null,
  nacha_version: 0,
  nacha_file_id: null,
  nacha_file_name: null,
  nacha_batch_number: null,
  nacha_generated_at: null,
  nacha_effective_date: null,
  nacha_entry_count: null,
  nacha_total_cents: null,
  nacha_problems: [],
  nacha_skipped_bills: [],
  penny_test_file_id: null,
  penny_test_file_name: null,
  penny_test_batch_number: null,
  penny_test_cents: null,
  penny_test_vendor_count: null,
  penny_test_generated_at: null,
  bank_uploaded_at: null,
  payment_completed_at: null,
  qb_sync_status: null,
  qb_sync_message: null,
  qb_sync_at: null,
  qb_sync_items: [],
  payment_job_problem: null,
  payment_link_sent_at: null,
  payment_link_expires_at: null,
  bank_upload_reason: null,
  payment_completed_reason: null,
  bank_payment_state: null,
  returned_bill_ids: [],
  returned_traces: [],
});

export const PAYMENT_COLUMNS = Object.keys(emptyPaymentColumns()) as Array<keyof ApprovalPaymentColumns>;

/** The columns' SQL (added to an existing table too: a rebuild of version 1 finds them missing). */
export const PAYMENT_COLUMNS_SQL = `
  nacha_status text,
  nacha_version integer NOT NULL DEFAULT 0,
  nacha_file_id text,
  nacha_file_name text,
  nacha_batch_number integer,
  nacha_generated_at timestamptz,
  nacha_effective_date text,
  nacha_entry_count integer,
  nacha_total_cents bigint,
  nacha_problems jsonb NOT NULL DEFAULT '[]',
  nacha_skipped_bills jsonb NOT NULL DEFAULT '[]',
  penny_test_file_id text,
  penny_test_file_name text,
  penny_test_batch_number integer,
  penny_test_cents integer,
  penny_test_vendor_count integer,
  penny_test_generated_at timestamptz,
  bank_uploaded_at timestamptz,
  payment_completed_at timestamptz,
  qb_sync_status text,
  qb_sync_message text,
  qb_sync_at timestamptz,
  qb_sync_items jsonb NOT NULL DEFAULT '[]',
  payment_job_problem jsonb,
  payment_link_sent_at timestamptz,
  payment_link_expires_at timestamptz,
  bank_upload_reason text,
  payment_completed_reason text,
  bank_payment_state text,
  returned_bill_ids text[] NOT NULL DEFAULT '{}',
  returned_traces text[] NOT NULL DEFAULT '{}'`;

/**
 * The columns versions 5 to 7 added: a table of an older version serving until the rebuild's swap
 * gets them, empty.
 */
export const PAYMENT_LINK_COLUMNS_SQL = [
  'payment_link_sent_at timestamptz',
  'payment_link_expires_at timestamptz',
  'bank_upload_reason text',
  'payment_completed_reason text',
  'bank_payment_state text',
  "returned_bill_ids text[] NOT NULL DEFAULT '{}'",
  "returned_traces text[] NOT NULL DEFAULT '{}'",
];

type Items = ApprovalPaymentColumns['qb_sync_items'];

/** A bill's latest result replaces its earlier one, unless that was a payment (a paid bill stays paid). */
export function foldQbSyncItem(
  items: Items,
  e: Extract<PaymentEvent, { type: 'QbBillPaid' | 'QbBillPaymentFailed' }>,
) {
  const d = e.data;
  const item = {
    billId: d.billId,
    docNumber: d.docNumber,
    vendorName: d.vendorName,
    amount: d.amount,
    billPaymentId: e.type === 'QbBillPaid' ? e.data.billPaymentId : null,
    duration: d.durationMs,
    error: e.type === 'QbBillPaymentFailed' ? e.data.error : null,
    success: e.type === 'QbBillPaid',
  };
  const at = items.findIndex((i) => i.billId === item.billId);
  if (at === -1) return [...items, item];
  if (items[at].success) return items;
  return items.map((i, n) => (n === at ? item : i));
}

/** The row after one payment event; a failed job's problem ends when its step goes through. */
export function evolvePaymentRow(row: ApprovalsTable, event: PaymentEvent): ApprovalsTable {
  const next = evolvePaymentColumns(row, event);
  const problem = next.payment_job_problem;
  return problem && jobStepDone(event.type, problem.job) ? { ...next, payment_job_problem: null } : next;
}

function evolvePaymentColumns(row: ApprovalsTable, event: PaymentEvent): ApprovalsTable {
  const at = new Date(event.data.at);
  const r = { ...row, updated_at: at };
  // The step's link: when it was last sent and until when it works; a step that moves on ends it.
  const noLink = { payment_link_sent_at: null, payment_link_expires_at: null };
  switch (event.type) {
    case 'ApprovalLinkIssued':
      // One event per person of a sending, each valid from its own instant: the latest is the
      // sending's last. Not a change of the approval itself (updated_at stays).
      return {
        ...row,
        payment_link_sent_at: at,
        payment_link_expires_at: new Date(event.data.expiresAt),
      };
    case 'NachaGenerationRequested':
      return {
        ...r,
        ...noLink,
        status: 'NACHA_PENDING',
        nacha_status: 'REQUESTED',
        nacha_version: event.data.version,
        nacha_problems: [],
      };
    case 'NachaFileGenerated': {
      const d = event.data;
      return {
        ...r,
        ...noLink,
        status: 'NACHA_GENERATED',
        nacha_status: 'GENERATED',
        nacha_file_id: d.fileId,
        nacha_file_name: d.fileName,
        nacha_batch_number: d.batchNumber,
        nacha_generated_at: at,
        nacha_effective_date: d.effectiveDate,
        nacha_entry_count: d.entryCount,
        nacha_total_cents: d.totalCreditCents,
        // The vendors held out of it (the rest of the file went ahead), named as a failure's are.
        nacha_problems: d.heldVendors ?? [],
        nacha_skipped_bills: d.skippedBills,
      };
    }
    case 'NachaGenerationFailed':
      return { ...r, nacha_status: 'FAILED', nacha_problems: event.data.problems };
    case 'PennyTestGenerated': {
      const d = event.data;
      return {
        ...r,
        penny_test_file_id: d.fileId,
        penny_test_file_name: d.fileName,
        penny_test_batch_number: d.batchNumber,
        penny_test_cents: d.totalCents,
        penny_test_vendor_count: d.vendorCount,
        penny_test_generated_at: at,
      };
    }
    case 'BankUploadConfirmed':
      return {
        ...r,
        ...noLink,
        status: 'BANK_UPLOADED',
        bank_uploaded_at: at,
        bank_upload_reason: event.data.reason ?? null,
      };
    case 'PaymentCompleted':
      return {
        ...r,
        ...noLink,
        status: 'PAYMENT_COMPLETED',
        payment_completed_at: at,
        payment_completed_reason: event.data.reason ?? null,
        qb_sync_status: 'PENDING',
      };
    case 'QbPaymentSyncStarted':
      return { ...r, qb_sync_status: 'SYNCING', qb_sync_at: at, qb_sync_message: null };
    case 'QbBillPaid':
    case 'QbBillPaymentFailed':
      return { ...r, qb_sync_items: foldQbSyncItem(row.qb_sync_items ?? [], event) };
    case 'QbPaymentSyncFinished':
      return { ...r, qb_sync_status: event.data.status, qb_sync_message: event.data.message, qb_sync_at: at };
    case 'PaymentJobFailed': {
      const { job, jobId, queue, reason } = event.data;
      return { ...r, payment_job_problem: { job, jobId, queue, reason, at: event.data.at } };
    }
    case 'PaymentJobRecovered':
      return { ...r, payment_job_problem: null };
    case 'PaymentReturnRecorded':
      return {
        ...withReturn(r, event.data.traceNumber, event.data.bills),
        bank_payment_state: event.data.bankPaymentState,
      };
    case 'QbBillPaymentVoided':
      return withVoids(r, event.data.bills);
    default:
      return row;
  }
}

function withReturn(row: ApprovalsTable, trace: string, bills: ReadonlyArray<{ billId: string }>) {
  return {
    ...row,
    returned_traces: [...new Set([...(row.returned_traces ?? []), trace])],
    returned_bill_ids: [...new Set([...(row.returned_bill_ids ?? []), ...bills.map((b) => b.billId)])],
  };
}

/** The QuickBooks items show the bill's payment voided: it no longer counts as paid there. */
function withVoids(row: ApprovalsTable, bills: ReadonlyArray<{ billId: string; billPaymentId: string }>) {
  return {
    ...row,
    qb_sync_items: (row.qb_sync_items ?? []).map((i) =>
      bills.some((b) => b.billId === i.billId && b.billPaymentId === i.billPaymentId)
        ? { ...i, error: `Payment ${i.billPaymentId} voided: the bank returned the payment` }
        : i,
    ),
  };
}

/**
 * The row after the payments module's answer about one of its entries: a return (its bills, and
 * whether every entry of the file has come back), or the voids of its QuickBooks payments.
 */
export function evolveEntryAnswerRow(row: ApprovalsTable, event: EntryAnswerEvent): ApprovalsTable {
  const r = { ...row, updated_at: new Date(event.data.at) };
  if (event.type === 'PaymentEntryQbVoided') return withVoids(r, event.data.bills);
  const d = event.data;
  const next = withReturn(r, d.traceNumber, d.bills ?? []);
  // A return read before the count was kept says PARTLY until its approval's own record says more.
  const all = d.fileEntryCount !== undefined && next.returned_traces.length >= d.fileEntryCount;
  return {
    ...next,
    bank_payment_state: all ? 'RETURNED' : (row.bank_payment_state ?? 'PARTLY_RETURNED'),
  };
}
