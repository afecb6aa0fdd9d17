// The outcome of an e-mail link's confirmation as the server signed it: the result page passes the
// redirect's `ref` to GET /api/bill-approval/direct-action-result and states only what comes back.
import { api } from '../../../lib/api-client';

export interface VerifiedActionResult {
  approvalId: string;
  /** The link's action: bank-uploaded or payment-completed. */
  action: string;
  /** success: the step was done; no-action: it was done already; failure: refused. */
  outcome: 'success' | 'no-action' | 'failure';
  /** The refusal's text (failure only). */
  error: string | null;
  expiresAt: string;
}

/** The outcome a result reference states; rejects when the server does not vouch for it. */
export async function verifyActionResult(ref: string): Promise<VerifiedActionResult> {
  const res = await api.get<VerifiedActionResult>('/api/bill-approval/direct-action-result', {
    query: { ref },
    skipAuthRefresh: true,
    fallbackMessage: 'We could not confirm the outcome of this action',
  });
  if (!res.data) throw new Error('We could not confirm the outcome of this action');
  return res.data;
}
