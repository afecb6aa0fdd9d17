// The outcome the e-mail link's result pages show, from the redirect's query (spec 2 §2).

export type DirectActionOutcome =
  | { kind: 'invalid' }
  | { kind: 'success'; title: string; approvalId: string }
  | { kind: 'failure'; title: string; approvalId: string; error: string }
  | { kind: 'no-action'; message: string; approvalId: string };

/**
 * The e-mail link's result (spec 2 §2 Public direct-action result): action (bank-upload or
 * payment-completed; the link's own name bank-uploaded is read the same), approvalId, success,
 * error, noAction.
 */
export function directActionOutcome(q: URLSearchParams): DirectActionOutcome {
  const action = q.get('action');
  const approvalId = q.get('approvalId');
  if (!action || !approvalId) return { kind: 'invalid' };
  const bank = action === 'bank-upload' || action === 'bank-uploaded';
  if (q.get('noAction') === 'true')
    return {
      kind: 'no-action',
      approvalId,
      message: bank
        ? 'This bill has already been uploaded to the bank'
        : 'This bill has already been marked as paid',
    };
  if (q.get('success') === 'true')
    return {
      kind: 'success',
      approvalId,
      title: bank ? 'Successfully uploaded to bank' : 'Successfully marked as payment completed',
    };
  return {
    kind: 'failure',
    approvalId,
    title: bank ? 'Failed to upload to bank' : 'Failed to mark as payment completed',
    error: q.get('error') || 'An unknown error occurred',
  };
}
