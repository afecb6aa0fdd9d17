// The payment half of an approval: the fields the NACHA, penny-test and sync cards read, as a
// fragment of the schema (ApprovalPaymentFields; PaymentView is its answer), the staff's writes as
// mutations (regenerateNacha, generatePennyTest, retryQbSync, resendPaymentLink, confirmPaymentStep;
// lib/cache-rules.ts re-reads the approval after each, or every active query when it has no line), the stored files' downloads, and the e-mail link's token check and payment-completed
// call of /approvals/{id}/confirm. Files and the link's calls stay plain HTTP on the REST paths.
import { api } from '../../../lib/api-client';
import { graphql, type ResultOf } from '../../../lib/graphql';
import { downloadFile } from '../../../lib/transfer';

/**
 * The payment half of an approval (NACHA, penny test, payment sync), with its id and status: what the
 * NACHA, penny-test and sync cards read. The detail's fragment (ApprovalDetailFields) spreads it, so
 * the detail's answer is a PaymentView as it is.
 */
export const ApprovalPaymentFields = graphql(`
  fragment ApprovalPaymentFields on Approval @_unmask {
    id
    status
    companyId
    nachaFileGenerated
    nachaFileName
    nachaBatchNumber
    nachaGeneratedAt
    nachaProcessingStatus
    nachaFileUrl
    nachaVersion
    nachaEffectiveDate
    nachaSameDay
    nachaDateNote
    nachaEntryCount
    nachaTotalAmount
    nachaProblems {
      kind
      vendorName
      message
    }
    nachaSkippedBills {
      billId
      docNumber
      reason
    }
    paymentPrerequisites {
      kind
      blocking
      vendorName
      message
    }
    nachaFiles {
      fileId
      kind
      fileName
      version
      batchNumber
      generatedAt
      url
      current
    }
    nachaFileSharedWith
    pennyTestGenerated
    pennyTestBatchNumber
    pennyTestFileName
    pennyTestAmount
    pennyTestVendorCount
    pennyTestGeneratedAt
    pennyTestFileUrl
    bankUploadedAt
    paymentCompletedAt
    paymentLinkSentAt
    paymentLinkExpiresAt
    bankUploadReason
    paymentCompletedReason
    qbPaymentSyncStatus
    qbPaymentSyncMessage
    qbPaymentSyncAt
    qbPaymentSyncDetails
    qbPaymentSyncItems {
      billId
      docNumber
      vendorName
      amount
      billPaymentId
      duration
      error
      success
    }
    bankPaymentState
    bankDelivery {
      status
      fileName
      version
      windowAt
      deliveredAt
      size
      sha256
      foundThere
      bankAnswer
      bankText
      failure
    }
    bankEntries {
      traceNumber
      qbVendorId
      vendorName
      amountCents
      accountLast4
      fileName
      status
      returnCode
      returnDescription
      returnedAt
      changeCode
      changeDescription
      correctedAccountLast4
      correctionDueBy
    }
  }
`);

export type PaymentView = ResultOf<typeof ApprovalPaymentFields>;

/**
 * One bill payment of the QuickBooks sync (the list, or the same items in the details' JSON text);
 * `duration` in milliseconds.
 */
export type QbSyncItem = PaymentView['qbPaymentSyncItems'][number];

/** The file's delivery to the bank over SFTP (null: the company sends its files by hand). */
export type BankDelivery = NonNullable<PaymentView['bankDelivery']>;

/** An entry of the approval's file the bank returned or sent a notification of change for. */
export type BankEntry = NonNullable<PaymentView['bankEntries']>[number];

const A = '/api/bill-approval/approvals';
const path = (id: string, tail: string) => `${A}/${encodeURIComponent(id)}/${tail}`;

/** A stored NACHA or penny-test file, as text, saved under the server's file name. */
export function downloadNachaFile(url: string, fileName: string | null): Promise<string> {
  return downloadFile(url, fileName ?? 'nacha.txt', 'Unable to download the file. Please try again.');
}

/** GenerateNacha (regenerate): a new version; the server's message is shown. */
export const RegenerateNacha = graphql(`
  mutation RegenerateNacha($id: String!, $effectiveDate: String) {
    regenerateNacha(id: $id, effectiveDate: $effectiveDate) {
      message
      approval {
        id
        status
      }
    }
  }
`);

/**
 * ApproveBankingAgain: the live bank details of the vendors whose banking changed after approval are
 * approved as they are now (the viewer was shown their tails), so Regenerate makes a file that pays
 * them; the server's message is shown.
 */
export const ApproveBankingAgain = graphql(`
  mutation ApproveBankingAgain($id: String!) {
    approveBankingAgain(id: $id) {
      message
      approval {
        id
        status
      }
    }
  }
`);

/** GeneratePennyTest: the micro-credits' total and the vendors tested. */
export const GeneratePennyTest = graphql(`
  mutation GeneratePennyTest($id: String!) {
    generatePennyTest(id: $id) {
      testAmount
      vendorCount
      fileName
      batchNumber
    }
  }
`);

/** RetryQbSync: pays the bills not yet paid in QuickBooks; the server's message is shown. */
export const RetryQbSync = graphql(`
  mutation RetryQbSync($id: String!) {
    retryQbSync(id: $id) {
      message
      approval {
        id
        status
      }
    }
  }
`);

/**
 * ResendPaymentLink: fresh links for the step the approval waits on, to its manager and recipients,
 * with a reason; the server's message says to how many people ("Link sent again to 2 people").
 */
export const ResendPaymentLink = graphql(`
  mutation ResendPaymentLink($id: String!, $reason: String!) {
    resendPaymentLink(id: $id, reason: $reason) {
      message
      approval {
        id
        status
      }
    }
  }
`);

/**
 * ConfirmPaymentStep: staff confirm the step in place of the link's recipients, with a reason;
 * `action` is the step the viewer saw, so a step already past is refused rather than the next one
 * confirmed.
 */
export const ConfirmPaymentStep = graphql(`
  mutation ConfirmPaymentStep($id: String!, $reason: String!, $action: String) {
    confirmPaymentStep(id: $id, reason: $reason, action: $action) {
      message
      approval {
        id
        status
      }
    }
  }
`);

/**
 * SendWaitingFilesNow (ADMIN): the company's files waiting for their cut-off window go to the bank at
 * once; the server's message says how many ("1 waiting file will be sent now"). The approval's push
 * re-reads the card once its file is delivered.
 */
export const SendWaitingFilesNow = graphql(`
  mutation ApprovalSendWaitingFilesNow($companyId: Int!) {
    sendWaitingFilesNow(companyId: $companyId)
  }
`);

/**
 * A payment job that failed for good, run again (ADMIN: the operations page's retry, offered where
 * the approval says what holds its payment). The approval's problem ends when the job goes through,
 * and its push re-reads the screen.
 */
export const RetryPaymentJob = graphql(`
  mutation ApprovalRetryPaymentJob($queue: String!, $jobId: String!) {
    retryFailedJob(queue: $queue, jobId: $jobId)
  }
`);

/** The approval as the token check answers it (the REST approval's shape; what the page reads). */
export interface TokenApproval {
  id: string;
  status: string;
  companyName: string | null;
  company?: { id: number; name: string } | null;
  totalAmount: number;
  manager?: {
    firstName: string;
    lastName: string;
    title: string | null;
    email: string;
    phone: string | null;
  } | null;
  managerName?: string | null;
  managerEmail?: string | null;
  createdAt: string;
  approvalDate: string | null;
  nachaGeneratedAt?: string | null;
  nachaBatchNumber?: number | null;
  billsParsed?: Array<{
    Id: string;
    DocNumber: string | null;
    TotalAmt: number;
    VendorRef?: { value: string; name: string | null } | null;
  }> | null;
}

/** The approval as the token check answers it once the link's step is done: its id and status only. */
export interface TokenApprovalDone {
  id: string;
  status: string;
}

export interface TokenVerification {
  approval: TokenApproval | TokenApprovalDone;
  user: { name: string | null; email: string; role: string } | null;
  statusInfo: {
    canMarkAsPaid: boolean;
    isAlreadyPaid: boolean;
    canMarkAsUploaded?: boolean;
    isAlreadyUploaded?: boolean;
  };
  /** The link: `stepDone` once its step is done (used, or done by another); the approval is then id and status. */
  link?: { action: string; expiresAt: string; stepDone?: boolean };
}

/** The approval in full (a link that can still act), not only its id and status. */
export const isFullApproval = (a: TokenVerification['approval']): a is TokenApproval => 'createdAt' in a;

/** GET verify-token (with the session's bearer too); the action, when given, is checked by the server. */
export async function verifyToken(
  id: string,
  token: string,
  action?: string | null,
): Promise<TokenVerification> {
  const res = await api.get<TokenVerification>(path(id, 'verify-token'), {
    query: { token, action },
    fallbackMessage: 'Unable to verify your access to this approval.',
  });
  return res.data as TokenVerification;
}

/** POST payment-completed with the link's token as query and an empty body. */
export async function markPaymentCompleted(id: string, token: string): Promise<string | null> {
  const res = await api.post<unknown>(path(id, 'payment-completed'), undefined, {
    query: { token },
    fallbackMessage: 'Failed to mark as payment completed',
  });
  return res.message ?? null;
}
