// The payment half of the approval decider (spec 2 §4; reference/nacha.md): APPROVED → NACHA_PENDING
// (a file asked for: queued, generating, or waiting on a fix) → NACHA_GENERATED → BANK_UPLOADED (an
// e-mail link or staff confirm) → PAYMENT_COMPLETED, then the QuickBooks payment sync (a status of its
// own). Composed into approval-decider.ts: the same stream and state, these commands and events.
// Pure: times, ids, the file's figures and the link's checked signature come on the command.
import type { ApprovalStatus } from '../../../schema/approvals/events.js';
import type {
  LinkAction,
  NachaProblem,
  PaymentEvent,
  PaymentJob,
  QbSyncStatus,
} from '../../../schema/approvals/payment-events.js';
import { jobStepDone } from '../../../schema/approvals/payment-events.js';
import { DomainError } from '../../shared/domain-errors.js';

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
  at: string;
}

export interface PaymentState {
  /** How many files were asked for; the latest request's outcome is the one that counts. */
  nachaVersion: number;
  nacha: 'NONE' | 'REQUESTED' | 'GENERATED' | 'FAILED';
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

/**
 * A signed-in staff member, or an e-mail link whose signature the caller has checked. `manager` is
 * the address of the approval's manager now (null: none, or none with an address), which the caller
 * reads: the approval holds only the manager's id.
 */
export type Confirmer =
  | { byUserId: number; link: null }
  | {
      byUserId: number | null;
      link: { linkId: string; recipient: string; manager: string | null };
    };

export type PaymentCommand =
  | { type: 'RequestNacha'; reason: 'approved' | 'regenerate'; byUserId: number | null; now: string }
  | {
      type: 'RecordNachaGenerated';
      version: number;
      file: {
        fileId: string;
        fileName: string;
        batchNumber: number;
        fileIdModifier: string;
        effectiveDate: string;
        entryCount: number;
        totalCreditCents: number;
        totalDebitCents: number;
        balanced: boolean;
        vendors: Array<{
          qbVendorId: string;
          name: string;
          amountCents: number;
          accountLast4: string;
          billIds: string[];
          bills?: Array<{ billId: string; amountCents: number }>;
        }>;
        skippedBills: Array<{ billId: string; docNumber: string | null; reason: string }>;
      };
      now: string;
    }
  | { type: 'RecordNachaFailed'; version: number; reason: string; problems: NachaProblem[]; now: string }
  | { type: 'RecordNachaDownload'; fileId: string; byUserId: number; now: string }
  | {
      type: 'RecordPennyTest';
      file: {
        fileId: string;
        fileName: string;
        batchNumber: number;
        fileIdModifier: string;
        totalCents: number;
        vendorCount: number;
      };
      byUserId: number;
      now: string;
    }
  | {
      type: 'IssueLink';
      linkId: string;
      action: LinkAction;
      recipient: string;
      expiresAt: string;
      now: string;
    }
  | ({ type: 'MarkBankUploaded'; now: string } & Confirmer)
  | ({ type: 'MarkPaymentCompleted'; now: string } & Confirmer)
  | { type: 'StartQbSync'; retry: boolean; byUserId: number | null; now: string }
  | {
      type: 'RecordQbBillResult';
      attempt: number;
      billId: string;
      docNumber: string | null;
      vendorName: string | null;
      amount: number;
      durationMs: number;
      outcome: { billPaymentId: string } | { error: string };
      now: string;
    }
  | { type: 'FinishQbSync'; attempt: number; skipped: boolean; message: string; now: string }
  /** The system asks again for a file that waited on the day's file limit (its banking day came). */
  | { type: 'RequestDeferredNacha'; version: number; now: string }
  | {
      type: 'RecordPaymentJobFailed';
      job: PaymentJob;
      jobId: string;
      queue: string;
      reason: string;
      now: string;
    }
  | { type: 'RecordPaymentJobRecovered'; jobId: string; now: string };

/** Statuses from which a file may be (re)made: spec 2 offers it through PAYMENT_COMPLETED, the server stops at the bank. */
export const REGENERATE_OFFERED: readonly ApprovalStatus[] = [
  'APPROVED',
  'NACHA_PENDING',
  'NACHA_GENERATED',
  'BANK_UPLOADED',
  'PAYMENT_COMPLETED',
];
const REGENERATABLE: readonly ApprovalStatus[] = ['APPROVED', 'NACHA_PENDING', 'NACHA_GENERATED'];
export const AT_THE_BANK = 'The NACHA file is already at the bank: a second file would pay the vendors twice';

/** The penny test is offered on the same statuses as Regenerate (spec 2 §2). */
export const PENNY_TEST_STATUSES = REGENERATE_OFFERED;

/** Retry pays the bills not yet paid; offered once a run ended without paying them all. */
export const QB_RETRYABLE: readonly QbSyncStatus[] = ['FAILED', 'PARTIAL_SUCCESS', 'SKIPPED'];

/** The bills of the file the bank took, each with what the file paid for it (empty before the upload). */
export function billsAtTheBank(payment: PaymentState): FileBill[] {
  if (payment.uploadedVersion === null) return [];
  return payment.files.find((f) => f.version === payment.uploadedVersion)?.bills ?? [];
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

/** The spec's text for a status that does not allow the update (the confirm page matches on it). */
const cannotUpdate = (status: ApprovalStatus | null) =>
  new DomainError('CONFLICT', `Cannot update approval with status ${status}`);

const sameAddress = (a: string) => (b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function checkLink(
  state: PaymentSlice,
  link: { linkId: string; manager: string | null },
  action: LinkAction,
  now: string,
) {
  const l = state.payment.links[link.linkId];
  if (!l) throw new DomainError('FORBIDDEN', 'This link is not valid for this approval');
  if (l.action !== action) throw new DomainError('FORBIDDEN', 'This link is for another action');
  if (l.used) throw new DomainError('FORBIDDEN', 'This link has already been used');
  if (now >= l.expiresAt) throw new DomainError('FORBIDDEN', 'This link has expired');
  // A link is its recipient's while they are on the approval: removing a recipient (or the manager
  // changing) ends the links sent to that address.
  const holder = sameAddress(l.recipient);
  if (!state.recipients.some(holder) && !(link.manager !== null && holder(link.manager)))
    throw new DomainError(
      'FORBIDDEN',
      'This link no longer works: its recipient is no longer a recipient of this approval',
    );
  if (l.fileVersion !== state.payment.nachaVersion)
    throw new DomainError(
      'FORBIDDEN',
      'This link was replaced: the NACHA file was regenerated after it was sent',
    );
}

const confirmedBy = (c: Confirmer) => ({
  byUserId: c.byUserId,
  linkId: c.link?.linkId ?? null,
  recipient: c.link?.recipient ?? null,
});

export function decidePayment(command: PaymentCommand, state: PaymentSlice): PaymentEvent[] {
  const { approvalId, companyId, status, payment } = state;
  const at = command.now;
  switch (command.type) {
    case 'RequestNacha': {
      if (command.reason === 'approved') {
        // The process manager's request after approval: once, whatever happened since.
        return status === 'APPROVED' && payment.nachaVersion === 0
          ? [
              {
                type: 'NachaGenerationRequested',
                data: { approvalId, companyId, version: 1, reason: 'approved', byUserId: null, at },
              },
            ]
          : [];
      }
      if (status === 'BANK_UPLOADED' || status === 'PAYMENT_COMPLETED')
        throw new DomainError('CONFLICT', AT_THE_BANK);
      if (!REGENERATABLE.includes(status!))
        throw new DomainError(
          'CONFLICT',
          `Cannot regenerate the NACHA file of an approval with status ${status}`,
        );
      return [
        {
          type: 'NachaGenerationRequested',
          data: {
            approvalId,
            companyId,
            version: payment.nachaVersion + 1,
            reason: 'regenerate',
            byUserId: command.byUserId,
            at,
          },
        },
      ];
    }
    case 'RecordNachaGenerated':
    case 'RecordNachaFailed': {
      // Only the latest request's outcome counts, once; an older job's answer is dropped.
      if (command.version !== payment.nachaVersion || payment.nacha !== 'REQUESTED') return [];
      if (status !== 'NACHA_PENDING') return [];
      if (command.type === 'RecordNachaFailed')
        return [
          {
            type: 'NachaGenerationFailed',
            data: {
              approvalId,
              companyId,
              version: command.version,
              reason: command.reason,
              problems: command.problems,
              at,
            },
          },
        ];
      return [
        {
          type: 'NachaFileGenerated',
          data: { approvalId, companyId, version: command.version, ...command.file, at },
        },
      ];
    }
    case 'RequestDeferredNacha': {
      // Only the request that waited, still waiting: staff may have regenerated since.
      const waiting =
        status === 'NACHA_PENDING' &&
        payment.nacha === 'FAILED' &&
        payment.nachaVersion === command.version &&
        payment.problems.some((x) => x.kind === 'file-limit');
      if (!waiting) return [];
      return [
        {
          type: 'NachaGenerationRequested',
          data: {
            approvalId,
            companyId,
            version: payment.nachaVersion + 1,
            reason: 'regenerate',
            byUserId: null,
            at,
          },
        },
      ];
    }
    case 'RecordPaymentJobFailed': {
      if (payment.jobProblem?.jobId === command.jobId) return [];
      const { job, jobId, queue, reason } = command;
      return [{ type: 'PaymentJobFailed', data: { approvalId, companyId, job, jobId, queue, reason, at } }];
    }
    case 'RecordPaymentJobRecovered': {
      const problem = payment.jobProblem;
      if (!problem || problem.jobId !== command.jobId) return [];
      return [
        {
          type: 'PaymentJobRecovered',
          data: { approvalId, companyId, job: problem.job, jobId: problem.jobId, at },
        },
      ];
    }
    case 'RecordNachaDownload': {
      const payFile = payment.files.find((f) => f.fileId === command.fileId);
      const pennyFile = payment.pennyTests.find((f) => f.fileId === command.fileId);
      if (!payFile && !pennyFile) throw new DomainError('NOT_FOUND', 'No such file for this approval');
      return [
        {
          type: 'NachaFileDownloaded',
          data: {
            approvalId,
            companyId,
            fileId: command.fileId,
            kind: payFile ? 'payment' : 'penny-test',
            byUserId: command.byUserId,
            at,
          },
        },
      ];
    }
    case 'RecordPennyTest': {
      if (!PENNY_TEST_STATUSES.includes(status!))
        throw new DomainError(
          'CONFLICT',
          `Cannot generate a penny test for an approval with status ${status}`,
        );
      if (payment.pennyTests.some((f) => f.fileId === command.file.fileId)) return [];
      return [
        {
          type: 'PennyTestGenerated',
          data: { approvalId, companyId, ...command.file, byUserId: command.byUserId, at },
        },
      ];
    }
    case 'IssueLink': {
      if (payment.links[command.linkId]) return [];
      const wanted = command.action === 'bank-uploaded' ? 'NACHA_GENERATED' : 'BANK_UPLOADED';
      // A link for a step already past (a job late after a regenerate or a confirmation): none.
      if (status !== wanted) return [];
      return [
        {
          type: 'ApprovalLinkIssued',
          data: {
            approvalId,
            companyId,
            linkId: command.linkId,
            action: command.action,
            fileVersion: payment.nachaVersion,
            recipient: command.recipient,
            expiresAt: command.expiresAt,
            at,
          },
        },
      ];
    }
    case 'MarkBankUploaded': {
      if (status !== 'NACHA_GENERATED') throw cannotUpdate(status);
      if (command.link) checkLink(state, command.link, 'bank-uploaded', at);
      return [
        {
          type: 'BankUploadConfirmed',
          data: { approvalId, companyId, fileVersion: payment.nachaVersion, ...confirmedBy(command), at },
        },
      ];
    }
    case 'MarkPaymentCompleted': {
      if (status !== 'BANK_UPLOADED') throw cannotUpdate(status);
      if (command.link) checkLink(state, command.link, 'payment-completed', at);
      return [{ type: 'PaymentCompleted', data: { approvalId, companyId, ...confirmedBy(command), at } }];
    }
    case 'StartQbSync': {
      const sync = payment.qbSync;
      if (status !== 'PAYMENT_COMPLETED')
        throw new DomainError('CONFLICT', 'QuickBooks payments are made once the payment is completed');
      if (!command.retry) {
        // The first run after the payment: once.
        if (sync.attempt > 0) return [];
      } else if (sync.status === 'SYNCING' || sync.status === 'PENDING') {
        throw new DomainError('CONFLICT', 'The QuickBooks payment sync is already running');
      } else if (!QB_RETRYABLE.includes(sync.status!)) {
        throw new DomainError('CONFLICT', 'Every approved bill is already paid in QuickBooks');
      }
      // Only what the bank paid is recorded as paid: the bills of the uploaded file, not every
      // approved bill (a bill the file left out stays open in QuickBooks).
      const paid = new Set(sync.paidBillIds);
      return [
        {
          type: 'QbPaymentSyncStarted',
          data: {
            approvalId,
            companyId,
            attempt: sync.attempt + 1,
            billIds: billsAtTheBank(payment)
              .map((b) => b.billId)
              .filter((id) => !paid.has(id)),
            byUserId: command.byUserId,
            at,
          },
        },
      ];
    }
    case 'RecordQbBillResult': {
      const sync = payment.qbSync;
      if (command.attempt !== sync.attempt || sync.status !== 'SYNCING') return [];
      if (!billsAtTheBank(payment).some((b) => b.billId === command.billId))
        throw new DomainError('VALIDATION', `Not a bill the uploaded NACHA file paid: ${command.billId}`);
      if (sync.paidBillIds.includes(command.billId)) return [];
      const { billId, docNumber, vendorName, amount, durationMs, attempt } = command;
      const base = { approvalId, companyId, attempt, billId, docNumber, vendorName, amount, durationMs, at };
      return 'billPaymentId' in command.outcome
        ? [{ type: 'QbBillPaid', data: { ...base, billPaymentId: command.outcome.billPaymentId } }]
        : [{ type: 'QbBillPaymentFailed', data: { ...base, error: command.outcome.error } }];
    }
    case 'FinishQbSync': {
      const sync = payment.qbSync;
      if (command.attempt !== sync.attempt || sync.status !== 'SYNCING') return [];
      const paid = sync.paidBillIds.length;
      const total = billsAtTheBank(payment).length;
      const result = command.skipped
        ? 'SKIPPED'
        : paid === total
          ? 'SUCCESS'
          : paid > 0
            ? 'PARTIAL_SUCCESS'
            : 'FAILED';
      return [
        {
          type: 'QbPaymentSyncFinished',
          data: {
            approvalId,
            companyId,
            attempt: command.attempt,
            status: result,
            message: command.message,
            at,
          },
        },
      ];
    }
  }
}

/** The approval's status and payment state after a payment event. */
export function evolvePayment<S extends PaymentSlice>(state: S, event: PaymentEvent): S {
  const next = evolvePaymentStep(state, event);
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
        payment: { ...p, nachaVersion: event.data.version, nacha: 'REQUESTED', problems: [] },
      };
    case 'NachaFileGenerated': {
      const d = event.data;
      const file = {
        fileId: d.fileId,
        fileName: d.fileName,
        batchNumber: d.batchNumber,
        version: d.version,
        bills: fileBills(d.vendors),
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
      return state;
    case 'PennyTestGenerated': {
      const d = event.data;
      const file = {
        fileId: d.fileId,
        fileName: d.fileName,
        batchNumber: d.batchNumber,
        version: 0,
        bills: [],
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
  }
}
