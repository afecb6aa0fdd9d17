// The e-mail links' confirmations as JSON (the in-layout confirm page calls them), declared once
// (services/app/endpoints.ts): MarkBankUploaded and MarkPaymentCompleted. Public: the link's token,
// in the query, is the credential. Refusals keep the links' own envelope, whose codes the confirm
// page reads. The page a mail opens and its button are written in
// services/approvals/api/rest/approval-link-routes.ts (an HTML form and a redirect).
import { z } from 'zod';
import { LINK_ACTIONS, type LinkAction } from '../../../schema/approvals/payment-events.js';
import { named } from '../../../schema/shared/answers.js';
import { declareCommand, type RestRefusal } from '../../app/endpoints.js';
import { confirmByLink, LinkRefusal } from './confirm.js';

const A = '/api/bill-approval/approvals';
export const LinkIdParams = z.object({ id: z.string().max(64).describe('Approval id (UUID)') });
export const TokenQuery = z.object({
  token: z.string().describe('The e-mail link’s token'),
  action: z.enum(LINK_ACTIONS).optional().describe('The action the link is for (checked when given)'),
});

export const LinkErrorEnvelope = named(
  'LinkErrorEnvelope',
  z.object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(['BAD_REQUEST', 'INVALID_TOKEN', 'VALIDATION_FAILED', 'NOT_FOUND']),
      message: z.string(),
      details: z.string(),
    }),
    message: z.string(),
    code: z.string(),
  }),
);

export const LinkConfirmation = named(
  'LinkConfirmation',
  z.object({
    approvalId: z.string(),
    action: z.enum(LINK_ACTIONS),
    status: z.string(),
    noAction: z.boolean().describe('Already in the requested status: nothing was done'),
    resultRef: z
      .string()
      .describe(
        'The outcome, signed and short-lived: pass it to /direct-action-result as `ref` (GET /api/bill-approval/direct-action-result reads it)',
      ),
  }),
);

/** What a link whose step is done already says. */
export const ALREADY_DONE: Record<LinkAction, string> = {
  'bank-uploaded': 'This bill has already been uploaded to the bank',
  'payment-completed': 'This bill has already been marked as paid',
};

/** A link's refusal in the links' envelope; any other error in the usual one. */
export function linkRefusalBody(err: LinkRefusal) {
  return {
    success: false,
    error: { code: err.code, message: err.message, details: err.message },
    message: err.message,
    code: err.code,
  };
}

export const linkRefusal: RestRefusal = {
  answer: (err) => (err instanceof LinkRefusal ? { status: err.status, body: linkRefusalBody(err) } : null),
  envelope: LinkErrorEnvelope,
  statuses: [400, 403, 404, 409],
  description: 'Refused: error.code is BAD_REQUEST, INVALID_TOKEN, VALIDATION_FAILED or NOT_FOUND',
};

const confirmation = (action: LinkAction, name: string, summary: string) =>
  declareCommand({
    name,
    permission: 'public',
    scope: 'the approval the link was sent for, while its address is a recipient’s or the manager’s',
    run: (app, _actor, { id, token }: { id: unknown; token: unknown }) =>
      confirmByLink(app, { id, token, action }),
    rest: {
      method: 'POST',
      path: `${A}/:id/${action}`,
      input: (r) => ({ id: r.params.id, token: (r.query as { token?: unknown }).token }),
      message: (r) => (r.noAction ? ALREADY_DONE[action] : 'Status Updated Successfully'),
      doc: {
        summary,
        tags: ['approvals'],
        auth: false,
        params: LinkIdParams,
        querystring: TokenQuery.omit({ action: true }),
        data: LinkConfirmation,
        errors: [403, 404, 409],
      },
      refusal: linkRefusal,
    },
    // REST only: a link is a mail's, never a signed-in client's.
  });

export const linkEndpoints = [
  confirmation(
    'bank-uploaded',
    'MarkBankUploaded',
    'Confirm the bank upload with an e-mail link’s token (query; empty body; no sign-in)',
  ),
  confirmation(
    'payment-completed',
    'MarkPaymentCompleted',
    'Confirm the payment with an e-mail link’s token (query; empty body; no sign-in)',
  ),
];
