// Pure rules of the payment screens: when the NACHA and sync cards show,
// who may regenerate or retry, the penny test's failure titles, the token check's failure screens,
// and the confirm page's parameters.

import type { PaymentView, QbSyncItem } from '../api/payments';
import { NACHA_STATUSES } from './approval-rules';

export const QB_SYNC_SHOWN = [
  'SUCCESS',
  'FAILED',
  'PARTIAL_SUCCESS',
  'SYNCING',
  'PENDING',
  'SKIPPED',
] as const;

/**
 * The NACHA card: a file generated, a name or batch number, a penny test, or APPROVED;
 * also once a file was asked for (NACHA_PENDING: queued, or waiting on a fix the card names), so the
 * screen never hides the state the server is in.
 */
export function nachaCardShown(p: PaymentView): boolean {
  return (
    p.nachaFileGenerated ||
    Boolean(p.nachaFileName) ||
    p.nachaBatchNumber !== null ||
    p.pennyTestGenerated ||
    p.status === 'APPROVED' ||
    p.status === 'NACHA_PENDING' ||
    p.nachaProcessingStatus !== null
  );
}

/**
 * The stored NACHA and penny-test files (the card's downloads, the history's): ADMIN and MODERATOR
 * only, as the server's approvals.nachaDownload permits (a file holds every vendor's account number).
 */
export function mayDownloadFiles(role: string | null | undefined): boolean {
  return role === 'ADMIN' || role === 'MODERATOR';
}

/** Regenerate NACHA and the penny test: ADMIN or MODERATOR, from APPROVED through PAYMENT_COMPLETED. */
export function mayRegenerate(role: string | null | undefined, status: string): boolean {
  return (role === 'ADMIN' || role === 'MODERATOR') && (NACHA_STATUSES as readonly string[]).includes(status);
}

export function qbSyncShown(syncStatus: string | null | undefined): boolean {
  return (QB_SYNC_SHOWN as readonly string[]).includes(syncStatus ?? '');
}

/**
 * Retry only when the sync failed (wholly, or some bills: the retry pays only those not yet paid)
 * and the approval is PAYMENT_COMPLETED.
 */
export function mayRetryQbSync(syncStatus: string | null | undefined, approvalStatus: string): boolean {
  return (
    (syncStatus === 'FAILED' || syncStatus === 'PARTIAL_SUCCESS') && approvalStatus === 'PAYMENT_COMPLETED'
  );
}

/** The sync's detail items: the list when the answer has it, else the JSON text. */
export function syncItems(p: Pick<PaymentView, 'qbPaymentSyncItems' | 'qbPaymentSyncDetails'>): QbSyncItem[] {
  if (p.qbPaymentSyncItems && p.qbPaymentSyncItems.length > 0) return [...p.qbPaymentSyncItems];
  if (!p.qbPaymentSyncDetails) return [];
  try {
    const parsed: unknown = JSON.parse(p.qbPaymentSyncDetails);
    return Array.isArray(parsed) ? (parsed as QbSyncItem[]) : [];
  } catch {
    return [];
  }
}

const NO_BANKING = 'No vendors have complete banking information';
const VALIDATION = 'Penny test validation failed';

/** The penny test's failure toast (shown 8 s). */
export function pennyTestFailure(message: string): { title: string; description: string } {
  if (message.includes(NO_BANKING))
    return {
      title: 'No Vendor Banking Information',
      description:
        'No vendor of this approval has complete banking information. Set the routing numbers, account numbers and account types of its vendors in the accounting service, then try again.',
    };
  if (message.includes(VALIDATION))
    return {
      title: 'Vendor Banking Information Issues',
      description: message.replace(VALIDATION, '').replace(/^[\s:.-]+/, '') || message,
    };
  return { title: 'Failed to Generate Penny Test', description: message };
}
export const PENNY_TEST_ERROR_MS = 8000;

export type TokenFailureKind = 'unavailable' | 'already-paid' | 'denied';

/**
 * Which failure screen the token check's refusal shows: the text is error.details or
 * message, the code error.code.
 */
export function tokenFailure(
  body: unknown,
  fallback: string,
): { kind: TokenFailureKind; text: string; code: string | null } {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const err = (b.error && typeof b.error === 'object' ? b.error : {}) as Record<string, unknown>;
  const details = typeof err.details === 'string' ? err.details : null;
  const message =
    typeof b.message === 'string' ? b.message : typeof err.message === 'string' ? err.message : null;
  const text = details ?? message ?? (typeof b.error === 'string' ? b.error : fallback);
  const code = typeof err.code === 'string' ? err.code : typeof b.code === 'string' ? b.code : null;
  if (code === 'VALIDATION_FAILED' || text.includes('Cannot update approval with status'))
    return { kind: text.includes('PAYMENT_COMPLETED') ? 'already-paid' : 'unavailable', text, code };
  return { kind: 'denied', text, code };
}

/** The confirm page's query: both token and id, and a known action when one is given. */
export function confirmParamsError(
  id: string | undefined,
  token: string | null,
  action: string | null,
): string | null {
  if (!id || !token) return 'Missing required parameters';
  if (action !== null && action !== 'bank-uploaded' && action !== 'payment-completed')
    return 'Invalid action type';
  return null;
}
