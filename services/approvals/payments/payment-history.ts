// The payment events as history steps (GET /approvals/{id}/history): what happened to the file, the
// links and the QuickBooks payments, in words an auditor follows. A link's confirmation names the
// link's recipient as the one who acted (opened from the sealed event data; '[erased]' once the
// company is forgotten); a file's step, and a download's, carries the file's address; a failure, a
// regeneration or a refused payment carries its reason.
import { ERASED } from '../../../schema/approvals/answers.js';
import type { PaymentEvent, PaymentJob } from '../../../schema/approvals/payment-events.js';
import { counted } from '../history-words.js';

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const dollars = (cents: number) => USD.format(cents / 100);

export interface PaymentStep {
  action: string;
  details: string | null;
  amount: number | null;
  /** Who acted when it was not a signed-in user (a link's recipient). */
  actorName: string | null;
  downloadUrl: string | null;
  reason: string | null;
}

/** How a QuickBooks payment sync ended, in words. */
const SYNC_FINISHED: Record<
  Extract<PaymentEvent, { type: 'QbPaymentSyncFinished' }>['data']['status'],
  string
> = {
  SUCCESS: 'QuickBooks payment sync succeeded',
  PARTIAL_SUCCESS: 'QuickBooks payment sync partly succeeded',
  FAILED: 'QuickBooks payment sync failed',
  SKIPPED: 'QuickBooks payment sync skipped',
};

/** Each job of the payment path, as a person names the step. */
export const PAYMENT_JOB_WORDS: Record<PaymentJob, string> = {
  'request-nacha': 'Asking for the NACHA file',
  'generate-nacha': 'Generating the NACHA file',
  'deferred-nacha': 'Asking again for the waiting NACHA file',
  'start-qb-sync': 'Starting the QuickBooks payment sync',
  'pay-bills': 'Recording the bill payments in QuickBooks',
  'notify-manager': 'E-mailing the manager of the new approval',
  'send-links': 'E-mailing the confirmation links',
  'notify-completed': 'E-mailing the payment notice',
  'notify-payment-problem': 'E-mailing the manager about a payment problem',
  'record-return': 'Recording the returned payment',
  'void-returned-payments': 'Voiding the returned payment in QuickBooks',
  'notify-returned': 'E-mailing the returned payment notice',
  'bank-delivery': 'Sending the NACHA file to the bank',
};

/** Bills named as a person reads them: their document numbers, else their ids. */
const billList = (bills: ReadonlyArray<{ billId: string; docNumber: string | null }>) =>
  bills.map((b) => b.docNumber ?? b.billId).join(', ');

/** Where a stored file of the approval is downloaded (ADMIN, MODERATOR; each download recorded). */
export const nachaFileUrl = (approvalId: string, fileId: string) =>
  `/api/bill-approval/approvals/${approvalId}/nacha-files/${fileId}`;

const STEP_LINK: Record<'bank-uploaded' | 'payment-completed', string> = {
  'bank-uploaded': 'Bank upload link',
  'payment-completed': 'Payment completed link',
};

/**
 * `erased`: the event's personal fields whose subject was forgotten (the store names them);
 * `userName`: a staff member's name by id, for the steps staff took in place of a link's recipient.
 */
export function paymentStep(
  e: PaymentEvent,
  erased: readonly string[] = [],
  userName: (id: number) => string = (id) => `User #${id}`,
): PaymentStep {
  // Confirmed by staff in the app, with their reason, in place of the link's recipients.
  const inApp = (d: { byUserId: number | null; linkId: string | null; reason?: string }) =>
    !d.linkId && d.byUserId !== null && d.reason !== undefined
      ? `Confirmed in the app by ${userName(d.byUserId)}: ${d.reason}`
      : null;
  const joined = (...parts: Array<string | null>) => parts.filter(Boolean).join('. ') || null;
  const recipient = (r: string | null) => (erased.includes('recipient') ? ERASED : r);
  const linkActor = (d: { linkId: string | null; recipient: string | null }) =>
    d.linkId ? `${recipient(d.recipient) ?? 'A recipient'} (e-mail link)` : null;
  const s = (action: string, details: string | null, more: Partial<PaymentStep> = {}): PaymentStep => ({
    action,
    details,
    amount: null,
    actorName: null,
    downloadUrl: null,
    reason: null,
    ...more,
  });
  switch (e.type) {
    case 'NachaGenerationRequested':
      return s(
        e.data.reason === 'approved' ? 'NACHA file requested' : 'NACHA file regeneration requested',
        `Version ${e.data.version}${e.data.effectiveDate ? `, effective ${e.data.effectiveDate} as chosen` : ''}`,
        {
          reason:
            e.data.reason === 'approved'
              ? 'The approval was approved'
              : e.data.byUserId === null
                ? 'The file waited for a banking day with files left; asked again by the system'
                : 'Regenerate asked for by staff',
        },
      );
    case 'NachaFileGenerated': {
      const d = e.data;
      const skipped = d.skippedBills.length
        ? `; left out: ${d.skippedBills.map((b) => `${b.docNumber ?? b.billId} (${b.reason})`).join(', ')}`
        : '';
      const held = d.heldVendors?.length
        ? `; held out: ${d.heldVendors.map((h) => h.message).join('; ')}`
        : '';
      return s(
        'NACHA file generated',
        `${d.fileName}: ${counted(d.entryCount, 'entry', 'entries')}, ${dollars(d.totalCreditCents)} to ${counted(d.vendors.length, 'vendor')}, effective ${d.effectiveDate}${d.sameDay ? ' (same-day)' : ''}, batch ${d.batchNumber}${d.balanced ? ', balanced' : ''}${skipped}${held}${d.dateNote ? `; ${d.dateNote}` : ''}`,
        { amount: d.totalCreditCents / 100, downloadUrl: nachaFileUrl(d.approvalId, d.fileId) },
      );
    }
    case 'NachaGenerationFailed':
      return s('NACHA generation failed', e.data.reason, { reason: e.data.reason });
    case 'NachaFileDownloaded':
      return s(
        e.data.kind === 'payment' ? 'NACHA file downloaded' : 'Penny test file downloaded',
        `File ${e.data.fileId}`,
        { downloadUrl: nachaFileUrl(e.data.approvalId, e.data.fileId) },
      );
    case 'PennyTestGenerated':
      return s(
        'Penny test generated',
        `${e.data.fileName}: ${dollars(e.data.totalCents)} to ${counted(e.data.vendorCount, 'vendor')}`,
        { amount: e.data.totalCents / 100, downloadUrl: nachaFileUrl(e.data.approvalId, e.data.fileId) },
      );
    case 'ApprovalLinkIssued':
      return s(
        `${STEP_LINK[e.data.action]} sent`,
        `To ${recipient(e.data.recipient)}, valid until ${e.data.expiresAt.slice(0, 10)}`,
      );
    case 'PaymentLinkResendRequested':
      return s(
        `${STEP_LINK[e.data.action]} sent again`,
        `Asked by ${userName(e.data.byUserId)} for ${counted(e.data.recipientCount, 'person', 'people')}: ${e.data.reason}`,
        { reason: e.data.reason },
      );
    case 'BankUploadConfirmed':
      if (e.data.delivery)
        return s(
          'Uploaded to the bank',
          `NACHA file version ${e.data.fileVersion} (${e.data.delivery.fileName}, ${e.data.delivery.size} bytes, sha256 ${e.data.delivery.sha256.slice(0, 12)}…) sent over SFTP at the cut-off window`,
          // No link's recipient: the history names the system job that uploaded it.
        );
      return s('Bank upload confirmed', joined(`NACHA file version ${e.data.fileVersion}`, inApp(e.data)), {
        actorName: linkActor(e.data),
        reason: e.data.reason ?? null,
      });
    case 'PaymentCompleted':
      return s('Payment completed', inApp(e.data), {
        actorName: linkActor(e.data),
        reason: e.data.reason ?? null,
      });
    case 'QbPaymentSyncStarted':
      return s(
        e.data.attempt === 1 ? 'QuickBooks payment sync started' : 'QuickBooks payment sync retried',
        `${counted(e.data.billIds.length, 'bill')} to pay, attempt ${e.data.attempt}`,
      );
    case 'QbBillPaid':
      return s(
        'QuickBooks bill paid',
        `Bill ${e.data.docNumber ?? e.data.billId}: payment ${e.data.billPaymentId}`,
        {
          amount: e.data.amount,
        },
      );
    case 'QbBillPaymentFailed':
      return s(
        'QuickBooks bill payment failed',
        `Bill ${e.data.docNumber ?? e.data.billId}: ${e.data.error}`,
        { amount: e.data.amount, reason: e.data.error },
      );
    case 'QbPaymentSyncFinished':
      return s(SYNC_FINISHED[e.data.status], e.data.message, {
        reason: e.data.status === 'SUCCESS' ? null : e.data.message,
      });
    case 'PaymentJobFailed':
      return s(`${PAYMENT_JOB_WORDS[e.data.job]} failed`, e.data.reason, { reason: e.data.reason });
    case 'PaymentJobRecovered':
      return s(`${PAYMENT_JOB_WORDS[e.data.job]} went through on a retry`, null);
    // Recorded on the approval before the bank's answers moved to the payments module (decision 0041).
    case 'PaymentReturnRecorded':
      return s(...returnedWords(e.data, e.data.bills));
    case 'QbBillPaymentVoided':
      return s(...voidedWords(e.data));
  }
}

type Words = [action: string, details: string | null, more: Partial<PaymentStep>];

/** The bank's return of one vendor's entry, in words; `bills`: what the entry paid for each. */
export function returnedWords(
  d: {
    vendorName: string;
    returnCode: string;
    description: string;
    amountCents: number;
    accountLast4: string;
    fileName: string;
  },
  bills: ReadonlyArray<{ billId: string; docNumber: string | null }>,
): Words {
  const freed = bills.length
    ? `; ${bills.length === 1 ? 'bill' : 'bills'} ${billList(bills)} ${bills.length === 1 ? 'is' : 'are'} free for a new approval`
    : '';
  return [
    `Payment to ${d.vendorName} returned by the bank`,
    `${d.returnCode} ${d.description}: ${dollars(d.amountCents)} to the account ending ${d.accountLast4.slice(-4)} (${d.fileName})${freed}`,
    { amount: d.amountCents / 100, reason: `${d.returnCode} ${d.description}` },
  ];
}

/** The QuickBooks payments of a returned entry's bills voided, in words. */
export function voidedWords(d: {
  vendorName: string;
  bills: ReadonlyArray<{ billId: string; docNumber: string | null; billPaymentId: string; amount: number }>;
}): Words {
  const n = d.bills.length;
  return [
    `QuickBooks payment for ${d.vendorName} voided`,
    `${n === 1 ? 'Bill' : 'Bills'} ${billList(d.bills)} ${n === 1 ? 'is' : 'are'} open again (${n === 1 ? 'payment' : 'payments'} ${d.bills.map((b) => b.billPaymentId).join(', ')})`,
    { amount: Math.round(d.bills.reduce((sum, b) => sum + b.amount, 0) * 100) / 100 },
  ];
}
