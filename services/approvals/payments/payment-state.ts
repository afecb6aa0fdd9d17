// The payment half of the approval's state and how each payment event moves it: the files made
// (with what each paid per bill), the links, the QuickBooks sync, a payment job's failure. Pure;
// composed into approval-decider.ts through payment-decider.ts, which decides the commands.
import type { ApprovalStatus } from '../../../schema/approvals/events.js';
import {
  jobStepDone,
  type LinkAction,
  type NachaProblem,
  type PaymentEvent,
  type PaymentJob,
  type QbSyncStatus,
} from '../../../schema/approvals/payment-events.js';

/** What a file paid for one bill; null: a file made before per-bill amounts were kept, for a vendor of several bills. */
export interface FileBill {
  billId: string;
  amountCents: number | null;
}

export interface PaymentFile {
  fileId: string;
  fileName: string;
  batchNumber: number;
  version: number;
  /** The bills the file paid, with what it paid for each (empty for a penny test). */
  bills: FileBill[];
  /**
   * Its entries: one per vendor, with that vendor's bills and the entry's trace number (the key the
   * bank's answers name it by: the payments module's `achentry-<trace>`; absent on older files).
   */
  vendors: Array<{ qbVendorId: string; billIds: string[]; traceNumber?: string }>;
  /** A payment file effective today in a Same-Day ACH window (absent on older files and penny tests). */
  sameDay?: boolean;
  /** Why its effective date is not the one asked for. */
  dateNote?: string;
  /** Billflow uploads it over SFTP at its window: nobody is asked to upload it (absent: by hand). */
  sftp?: true;
  at: string;
}

export interface PaymentState {
  /** How many files were asked for; the latest request's outcome is the one that counts. */
  nachaVersion: number;
  nacha: 'NONE' | 'REQUESTED' | 'GENERATED' | 'FAILED';
  /** The effective entry date chosen for the latest request (at approval or Regenerate); null: the default. */
  chosenEffectiveDate: string | null;
  /** When the latest file was asked for: the instant its cut-off window is counted from, however late its job runs. */
  requestedAt: string | null;
  problems: NachaProblem[];
  /** Every payment file made (the latest last): older versions stay downloadable. */
  files: PaymentFile[];
  pennyTests: PaymentFile[];
  /** The file version the bank took: what the QuickBooks bill payments must record. */
  uploadedVersion: number | null;
  /** Each link issued, with the address it was sent to. */
  links: Record<
    string,
    { action: LinkAction; fileVersion: number; recipient: string; expiresAt: string; used: boolean }
  >;
  qbSync: {
    status: QbSyncStatus | null;
    attempt: number;
    paidBillIds: string[];
  };
  /** A job of the payment path that failed for good, until its step goes through (or the job does). */
  jobProblem: { jobId: string; job: PaymentJob; reason: string; at: string } | null;
}

export const initialPaymentState = (): PaymentState => ({
  nachaVersion: 0,
  nacha: 'NONE',
  chosenEffectiveDate: null,
  requestedAt: null,
  problems: [],
  files: [],
  pennyTests: [],
  uploadedVersion: null,
  jobProblem: null,
  links: {},
  qbSync: { status: null, attempt: 0, paidBillIds: [] },
});

/** What the payment rules read of the approval. */
export interface PaymentSlice {
  approvalId: string;
  companyId: number;
  status: ApprovalStatus | null;
  approvedBillIds: string[];
  /** The approval's recipients now: a link works only while its address is one of them or the manager's. */
  recipients: string[];
  payment: PaymentState;
}

/** The bills of the file the bank took, each with what the file paid for it (empty before the upload). */
export function billsAtTheBank(payment: PaymentState): FileBill[] {
  return fileAtTheBank(payment)?.bills ?? [];
}

/**
 * The bills QuickBooks must record as paid: those of the file at the bank, less the ones whose entry
 * the bank returned (`returned`: read from the payments module's entries) before QuickBooks recorded
 * them (a returned bill already recorded stays counted: its payment is voided, not unrecorded).
 */
export function billsToRecord(payment: PaymentState, returned: ReadonlySet<string>): FileBill[] {
  const paid = new Set(payment.qbSync.paidBillIds);
  return billsAtTheBank(payment).filter((b) => !returned.has(b.billId) || paid.has(b.billId));
}

/** The file the bank took (null before the upload). */
export function fileAtTheBank(payment: PaymentState): PaymentFile | null {
  if (payment.uploadedVersion === null) return null;
  return payment.files.find((f) => f.version === payment.uploadedVersion) ?? null;
}

/**
 * A file's vendors as paid bills: the amounts the file recorded per bill; for a file made before
 * they were kept, a vendor of one bill paid that bill its whole credit, and a vendor of several
 * bills left the split unknown (null), which the QuickBooks sync refuses to guess.
 */
export function fileBills(
  vendors: ReadonlyArray<{
    amountCents: number;
    billIds: string[];
    bills?: Array<{ billId: string; amountCents: number }>;
  }>,
): FileBill[] {
  return vendors.flatMap((v) =>
    v.bills
      ? v.bills.map((b) => ({ billId: b.billId, amountCents: b.amountCents }))
      : v.billIds.map((billId) => ({ billId, amountCents: v.billIds.length === 1 ? v.amountCents : null })),
  );
}

/** The approval's status and payment state after a payment event. */
export function evolvePayment<S extends PaymentSlice>(state: S, event: PaymentEvent): S {
  // A type this process does not know (written by a newer one) changes nothing here.
  const next = evolvePaymentStep(state, event) ?? state;
  const problem = next.payment.jobProblem;
  if (problem && jobStepDone(event.type, problem.job))
    return { ...next, payment: { ...next.payment, jobProblem: null } };
  return next;
}

function evolvePaymentStep<S extends PaymentSlice>(state: S, event: PaymentEvent): S {
  const p = state.payment;
  switch (event.type) {
    case 'NachaGenerationRequested':
      return {
        ...state,
        status: 'NACHA_PENDING',
        payment: {
          ...p,
          nachaVersion: event.data.version,
          nacha: 'REQUESTED',
          chosenEffectiveDate: event.data.effectiveDate ?? null,
          requestedAt: event.data.at,
          problems: [],
        },
      };
    case 'NachaFileGenerated': {
      const d = event.data;
      const file = {
        fileId: d.fileId,
        fileName: d.fileName,
        batchNumber: d.batchNumber,
        version: d.version,
        bills: fileBills(d.vendors),
        vendors: d.vendors.map((v) => ({
          qbVendorId: v.qbVendorId,
          billIds: v.billIds,
          ...(v.traceNumber ? { traceNumber: v.traceNumber } : {}),
        })),
        ...(d.sameDay ? { sameDay: true } : {}),
        ...(d.dateNote ? { dateNote: d.dateNote } : {}),
        ...(d.window?.via === 'sftp' ? { sftp: true as const } : {}),
        at: d.at,
      };
      return {
        ...state,
        status: 'NACHA_GENERATED',
        payment: { ...p, nacha: 'GENERATED', files: [...p.files, file] },
      };
    }
    case 'NachaGenerationFailed':
      return { ...state, payment: { ...p, nacha: 'FAILED', problems: event.data.problems } };
    case 'NachaFileDownloaded':
    case 'PaymentLinkResendRequested':
      return state;
    case 'PennyTestGenerated': {
      const d = event.data;
      const file = {
        fileId: d.fileId,
        fileName: d.fileName,
        batchNumber: d.batchNumber,
        version: 0,
        bills: [],
        vendors: [],
        at: d.at,
      };
      return { ...state, payment: { ...p, pennyTests: [...p.pennyTests, file] } };
    }
    case 'ApprovalLinkIssued': {
      const d = event.data;
      return {
        ...state,
        payment: {
          ...p,
          links: {
            ...p.links,
            [d.linkId]: {
              action: d.action,
              fileVersion: d.fileVersion,
              recipient: d.recipient,
              expiresAt: d.expiresAt,
              used: false,
            },
          },
        },
      };
    }
    case 'BankUploadConfirmed':
    case 'PaymentCompleted': {
      const linkId = event.data.linkId;
      const links =
        linkId && p.links[linkId] ? { ...p.links, [linkId]: { ...p.links[linkId], used: true } } : p.links;
      if (event.type === 'BankUploadConfirmed')
        return {
          ...state,
          status: 'BANK_UPLOADED',
          payment: { ...p, links, uploadedVersion: event.data.fileVersion },
        };
      return {
        ...state,
        status: 'PAYMENT_COMPLETED',
        payment: { ...p, links, qbSync: { ...p.qbSync, status: 'PENDING' } },
      };
    }
    case 'QbPaymentSyncStarted':
      return {
        ...state,
        payment: { ...p, qbSync: { ...p.qbSync, status: 'SYNCING', attempt: event.data.attempt } },
      };
    case 'QbBillPaid':
      return {
        ...state,
        payment: { ...p, qbSync: { ...p.qbSync, paidBillIds: [...p.qbSync.paidBillIds, event.data.billId] } },
      };
    case 'QbBillPaymentFailed':
      return state;
    case 'QbPaymentSyncFinished':
      return { ...state, payment: { ...p, qbSync: { ...p.qbSync, status: event.data.status } } };
    case 'PaymentJobFailed': {
      const { jobId, job, reason, at } = event.data;
      return { ...state, payment: { ...p, jobProblem: { jobId, job, reason, at } } };
    }
    case 'PaymentJobRecovered':
      return { ...state, payment: { ...p, jobProblem: null } };
    // Recorded on the approval before the bank's answers moved to the payments module's entries
    // (decision 0041): its history and read model still show them; its rules read the entries.
    case 'PaymentReturnRecorded':
    case 'QbBillPaymentVoided':
      return state;
  }
}
