// The payment half of the approval decider (reference/nacha.md): APPROVED → NACHA_PENDING
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
import { DomainError } from '../../shared/domain-errors.js';
import { type Confirmer, checkLink, confirmedBy } from './confirmer.js';
import { billsAtTheBank, billsToRecord, type PaymentSlice } from './payment-state.js';
import { REASON_LENGTH, reasonFits } from './step-reason.js';

export type { Confirmer } from './confirmer.js';
export {
  billsAtTheBank,
  billsToRecord,
  evolvePayment,
  type FileBill,
  fileAtTheBank,
  fileBills,
  initialPaymentState,
  type PaymentFile,
  type PaymentSlice,
  type PaymentState,
} from './payment-state.js';

export type PaymentCommand =
  | {
      type: 'RequestNacha';
      reason: 'approved' | 'regenerate';
      byUserId: number | null;
      /** Regenerate's chosen effective entry date, already checked against the calendar. */
      effectiveDate?: string;
      now: string;
    }
  | {
      type: 'RecordNachaGenerated';
      version: number;
      /** What the payments module wrote, as the approval records it (NachaFileGenerated's facts). */
      file: Omit<
        Extract<PaymentEvent, { type: 'NachaFileGenerated' }>['data'],
        'approvalId' | 'companyId' | 'version' | 'at'
      >;
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
  /**
   * Staff send the current step's link again. `recipientCount`: the manager and recipients with an
   * address now (the caller reads them), to whom the fresh links will go.
   */
  | { type: 'ResendPaymentLink'; byUserId: number; reason: string; recipientCount: number; now: string }
  | ({ type: 'MarkBankUploaded'; now: string } & Confirmer)
  | ({ type: 'MarkPaymentCompleted'; now: string } & Confirmer)
  /**
   * `returnedBillIds`: the bills of the file at the bank whose entries the bank returned (the caller
   * reads the payments module's entries): QuickBooks does not record them as paid.
   */
  | {
      type: 'StartQbSync';
      retry: boolean;
      byUserId: number | null;
      returnedBillIds: readonly string[];
      now: string;
    }
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
  | {
      type: 'FinishQbSync';
      attempt: number;
      skipped: boolean;
      message: string;
      returnedBillIds: readonly string[];
      now: string;
    }
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

/**
 * Statuses a file may be (re)made from: the screens offer it up to PAYMENT_COMPLETED; the server
 * refuses it once the bank has the file.
 */
export const REGENERATE_OFFERED: readonly ApprovalStatus[] = [
  'APPROVED',
  'NACHA_PENDING',
  'NACHA_GENERATED',
  'BANK_UPLOADED',
  'PAYMENT_COMPLETED',
];
const REGENERATABLE: readonly ApprovalStatus[] = ['APPROVED', 'NACHA_PENDING', 'NACHA_GENERATED'];
export const AT_THE_BANK = 'The NACHA file is already at the bank: a second file would pay the vendors twice';

/** The penny test is offered on the same statuses as Regenerate. */
export const PENNY_TEST_STATUSES = REGENERATE_OFFERED;

/** Retry pays the bills not yet paid; offered once a run ended without paying them all. */
export const QB_RETRYABLE: readonly QbSyncStatus[] = ['FAILED', 'PARTIAL_SUCCESS', 'SKIPPED'];

/** The spec's text for a status that does not allow the update (the confirm page matches on it). */
const cannotUpdate = (status: ApprovalStatus | null) =>
  new DomainError('CONFLICT', `Cannot update approval with status ${status}`);

/** The step whose link a status waits on. */
export const STEP_OF_STATUS: Partial<Record<ApprovalStatus, LinkAction>> = {
  NACHA_GENERATED: 'bank-uploaded',
  BANK_UPLOADED: 'payment-completed',
};

export const NOBODY_TO_SEND =
  'Nobody to send the link to: this approval has neither a manager with an e-mail address nor recipients. Confirm the step in the app with a reason, or add a recipient and send the link again.';

export const SYSTEM_UPLOADS =
  'Billflow uploads this file to the bank over SFTP at its cut-off window: nobody is sent a link to upload it. An ADMIN may send the company’s waiting files now, or confirm the upload in the app with a reason.';

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
                data: {
                  approvalId,
                  companyId,
                  version: 1,
                  reason: 'approved',
                  byUserId: null,
                  // The date the approver chose travels with the request the file is made for.
                  ...(payment.chosenEffectiveDate ? { effectiveDate: payment.chosenEffectiveDate } : {}),
                  at,
                },
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
            ...(command.effectiveDate ? { effectiveDate: command.effectiveDate } : {}),
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
            // The file that waited keeps the date asked for, if it still holds when made.
            ...(payment.chosenEffectiveDate ? { effectiveDate: payment.chosenEffectiveDate } : {}),
            at,
          },
        },
      ];
    }
    case 'RecordPaymentJobFailed': {
      if (payment.jobProblem?.jobId === command.jobId) return [];
      // The notice of a problem failing (its mail refused, say) does not hide the problem it was about;
      // it stays failed on the operations page.
      if (payment.jobProblem && command.job === 'notify-payment-problem') return [];
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
    case 'ResendPaymentLink': {
      const action = status ? STEP_OF_STATUS[status] : undefined;
      if (!action)
        throw new DomainError(
          'CONFLICT',
          `Cannot send a payment link again for an approval with status ${status}: links wait on NACHA Generated (the bank upload) and Bank Uploaded (the payment)`,
        );
      if (!reasonFits(command.reason)) throw new DomainError('VALIDATION', REASON_LENGTH);
      // A file Billflow sends over SFTP asks nobody to upload it: one who did would send it twice.
      if (action === 'bank-uploaded' && payment.files.find((f) => f.version === payment.nachaVersion)?.sftp)
        throw new DomainError('CONFLICT', SYSTEM_UPLOADS);
      if (command.recipientCount < 1) throw new DomainError('CONFLICT', NOBODY_TO_SEND);
      // The step's earlier links stay good until their own expiry: someone may be on the confirmation
      // page already, and the fresh link is only another way to the same step (one press confirms it).
      return [
        {
          type: 'PaymentLinkResendRequested',
          data: {
            approvalId,
            companyId,
            action,
            fileVersion: payment.nachaVersion,
            recipientCount: command.recipientCount,
            byUserId: command.byUserId,
            reason: command.reason,
            at,
          },
        },
      ];
    }
    case 'MarkBankUploaded': {
      if (status !== 'NACHA_GENERATED') throw cannotUpdate(status);
      if (command.link) checkLink(state, command.link, 'bank-uploaded', at);
      const d = command.delivery;
      // The bank has what was delivered: a version made since then was never sent, so the books
      // must not follow it (the QuickBooks sync pays what the uploaded version paid).
      if (d && d.fileVersion !== payment.nachaVersion)
        throw new DomainError(
          'CONFLICT',
          `The bank received version ${d.fileVersion} of the NACHA file (${d.fileName}), but version ${payment.nachaVersion} was made since: tell the bank which one to pay before going on`,
        );
      return [
        {
          type: 'BankUploadConfirmed',
          data: {
            approvalId,
            companyId,
            fileVersion: payment.nachaVersion,
            ...confirmedBy(command),
            ...(d
              ? { delivery: { via: 'sftp' as const, fileName: d.fileName, size: d.size, sha256: d.sha256 } }
              : {}),
            at,
          },
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
            // A bill whose entry the bank returned is not paid there either.
            billIds: billsToRecord(payment, new Set(command.returnedBillIds))
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
      const total = billsToRecord(payment, new Set(command.returnedBillIds)).length;
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
