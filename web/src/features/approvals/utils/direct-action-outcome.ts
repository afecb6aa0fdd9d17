// The outcome the e-mail link's result pages show: the redirect's query says which
// approval and action, and the server's signed reference (`ref`, verified) says what happened. The
// query's own success, error and noAction are anyone's to type, so the page never states them.
import type { VerifiedActionResult } from '../api/action-result';

export type DirectActionOutcome =
  | { kind: 'invalid' }
  | { kind: 'unconfirmed' }
  | { kind: 'success'; title: string; approvalId: string }
  | { kind: 'failure'; title: string; approvalId: string; error: string }
  | { kind: 'no-action'; message: string; approvalId: string };

/** The page's neutral text when no outcome was verified. */
export const UNCONFIRMED_TEXT =
  'We could not confirm the outcome of this action; check the approval in Billflow.';

/** The redirect's action (bank-upload or payment-completed; the link's own name bank-uploaded is read the same). */
function linkAction(action: string): 'bank-uploaded' | 'payment-completed' | null {
  if (action === 'bank-upload' || action === 'bank-uploaded') return 'bank-uploaded';
  if (action === 'payment-completed') return 'payment-completed';
  return null;
}

/** Whether the query names an approval and action at all ('Missing required parameters from redirect'). */
export function hasRequiredParams(q: URLSearchParams): boolean {
  return !!q.get('action') && !!q.get('approvalId');
}

/**
 * The e-mail link's result: the query's action and approvalId
 * name it; the outcome is the verified reference's, for that approval and action, else unconfirmed.
 */
export function directActionOutcome(
  q: URLSearchParams,
  verified: VerifiedActionResult | null,
): DirectActionOutcome {
  const action = q.get('action');
  const approvalId = q.get('approvalId');
  if (!action || !approvalId) return { kind: 'invalid' };
  if (
    !verified ||
    verified.approvalId.toLowerCase() !== approvalId.toLowerCase() ||
    verified.action !== linkAction(action)
  )
    return { kind: 'unconfirmed' };
  const bank = verified.action === 'bank-uploaded';
  const id = verified.approvalId;
  if (verified.outcome === 'no-action')
    return {
      kind: 'no-action',
      approvalId: id,
      message: bank
        ? 'This bill has already been uploaded to the bank'
        : 'This bill has already been marked as paid',
    };
  if (verified.outcome === 'success')
    return {
      kind: 'success',
      approvalId: id,
      title: bank ? 'Successfully uploaded to bank' : 'Successfully marked as payment completed',
    };
  return {
    kind: 'failure',
    approvalId: id,
    title: bank ? 'Failed to upload to bank' : 'Failed to mark as payment completed',
    error: verified.error || 'An unknown error occurred',
  };
}
