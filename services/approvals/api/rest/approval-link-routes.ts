// The e-mail links' calls: verify-token with the token as query (JSON, for the in-layout confirm page;
// its bank-uploaded and payment-completed are declared in services/approvals/payments/link-endpoints.ts),
// and the public confirmation step a link in a mail opens (no sign-in):
//   GET  /api/bill-approval/approvals/{id}/confirm-link?action&token: a standalone HTML page with the
//        approval's company, file and amount and one button. A GET (or HEAD) changes nothing, so a
//        mail scanner that fetches the link confirms nothing.
//   POST the same address (the button): runs the step, then 303 to the public /direct-action-result
//        with action (bank-upload | payment-completed), approvalId, success, error, noAction, and
//        `ref`: the outcome signed (result-ref.ts), the only part the result page states as fact.
//   GET  /api/bill-approval/direct-action-result?ref: the outcome a `ref` states (the result page asks).
// Refusals carry the codes the confirm page reads: VALIDATION_FAILED for a status that does not allow the
// step ('Cannot update approval with status X'), INVALID_TOKEN for a link that cannot act, BAD_REQUEST for
// missing parameters; as { success: false, error: { code, message, details }, message, code }.
import type { FastifyInstance, FastifyReply, FastifySchema } from 'fastify';
import { z } from 'zod';
import { Approval } from '../../../../schema/approvals/answers.js';
import {
  LinkAnswer,
  LinkStepDoneApproval,
  TokenStatusInfo,
} from '../../../../schema/approvals/payment-answers.js';
import { LINK_ACTIONS, type LinkAction } from '../../../../schema/approvals/payment-events.js';
import { named, routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import {
  confirmByLink,
  INVALID_ACTION,
  LinkRefusal,
  linkPageFacts,
  MISSING_PARAMETERS,
  openLink,
  parseAction,
  readLinkResult,
  refusalResultRef,
  stepStanding,
  verifyApprovalLink,
} from '../../payments/confirm.js';
import {
  ALREADY_DONE,
  LinkIdParams as IdParams,
  linkRefusal,
  linkRefusalBody,
  TokenQuery,
} from '../../payments/link-endpoints.js';
import { RESULT_OUTCOMES } from '../../payments/result-ref.js';

const TAGS = ['approvals'];
const A = '/api/bill-approval/approvals';
type LinkRoute = { Params: { id: string }; Querystring: { token?: string; action?: string } };

const LinkUser = z.object({ name: z.string(), email: z.string(), role: z.string() });
const TokenVerification = named(
  'TokenVerification',
  z.object({
    approval: z
      .union([Approval, LinkStepDoneApproval])
      .describe('In full while the link can act; its id and status only once the link’s step is done'),
    user: LinkUser.nullable().describe('The link’s recipient; null once the link’s step is done'),
    statusInfo: TokenStatusInfo,
    link: LinkAnswer,
  }),
);
const LinkResult = named(
  'LinkResult',
  z.object({
    approvalId: z.string(),
    action: z.enum(LINK_ACTIONS),
    outcome: z
      .enum(RESULT_OUTCOMES)
      .describe('success: the step was done; no-action: it was done already; failure: refused'),
    error: z.string().nullable().describe('The refusal’s text (failure only)'),
    expiresAt: z.string(),
  }),
);
const ResultQuery = z.object({
  ref: z.string().describe('The result reference of the confirmation’s redirect (or its JSON answer)'),
});

/** A public route's documentation, its refusals in the links' envelope. */
function linkDoc(doc: Parameters<typeof routeDoc>[0]): FastifySchema {
  const schema = routeDoc({ ...doc, auth: false, errors: [403, 404, 409] });
  const response = schema.response as Record<string, unknown>;
  for (const code of linkRefusal.statuses)
    response[code] = {
      description: linkRefusal.description,
      content: { 'application/json': { schema: linkRefusal.envelope } },
    };
  return schema;
}

function refuse(reply: FastifyReply, err: LinkRefusal) {
  return reply.status(err.status).send(linkRefusalBody(err));
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
const usd = (cents: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);

const STEP: Record<LinkAction, { title: string; button: string; done: string; result: string }> = {
  'bank-uploaded': {
    title: 'Confirm bank upload',
    button: 'Confirm: the file is uploaded to the bank',
    done: ALREADY_DONE['bank-uploaded'],
    result: 'bank-upload',
  },
  'payment-completed': {
    title: 'Confirm payment completed',
    button: 'Confirm: the payment is completed',
    done: ALREADY_DONE['payment-completed'],
    result: 'payment-completed',
  },
};

/** A standalone page: minimal CSS, no script, nothing loaded from elsewhere. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><title>${escapeHtml(title)} · Billflow</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f5f6f8;color:#1f2933;margin:0;padding:24px}
main{max-width:520px;margin:40px auto;background:#fff;border:1px solid #e1e4e8;border-radius:8px;padding:28px}
h1{font-size:1.35rem;margin:0 0 12px}p{line-height:1.5}dl{display:grid;grid-template-columns:auto 1fr;gap:6px 16px;margin:18px 0}
dt{color:#52606d}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
button{background:#1d4ed8;color:#fff;border:0;border-radius:6px;padding:12px 18px;font-size:1rem;cursor:pointer;width:100%}
.note{color:#52606d;font-size:.9rem}.bad{color:#b42318}footer{margin-top:20px;color:#7b8794;font-size:.8rem}
</style></head><body><main>${body}<footer>Billflow · confirmation by e-mail link, no sign-in needed</footer></main></body></html>`;
}

function refusalPage(err: LinkRefusal): string {
  const status = err.code === 'VALIDATION_FAILED';
  const paid = status && err.message.includes('PAYMENT_COMPLETED');
  const title = paid ? 'Payment Already Completed' : status ? 'Status Update Not Available' : 'Access Denied';
  const lead = paid
    ? 'Payment Processing Complete: no further action is needed.'
    : status
      ? 'This approval is no longer available for status updates.'
      : 'Unable to verify your access to this approval.';
  const more = status
    ? ''
    : '<p class="note">The access token may be invalid, expired, or you may not have permission to update this approval.</p>';
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(lead)}</p><p class="bad">${escapeHtml(err.message)}</p>${more}`,
  );
}

const resultUrl = (q: {
  action?: LinkAction;
  approvalId: string;
  success: boolean;
  error?: string;
  noAction?: boolean;
  ref: string | null;
}) => {
  const p = new URLSearchParams();
  if (q.action) p.set('action', STEP[q.action].result);
  p.set('approvalId', q.approvalId);
  p.set('success', String(q.success));
  if (q.error) p.set('error', q.error);
  if (q.noAction) p.set('noAction', 'true');
  if (q.ref) p.set('ref', q.ref);
  return `/direct-action-result?${p.toString()}`;
};

export function approvalLinkRoutes(server: FastifyInstance, { app }: RestDeps) {
  server.get<{ Querystring: { ref?: string } }>(
    '/api/bill-approval/direct-action-result',
    {
      schema: routeDoc({
        summary:
          'The outcome an e-mail link’s confirmation signed (its redirect’s `ref`): what /direct-action-result may state (no sign-in)',
        description:
          'Refused (403) when the reference is not one this Billflow signed, was altered, or is older than 15 minutes: the page then states no outcome.',
        tags: TAGS,
        auth: false,
        querystring: ResultQuery,
        data: LinkResult,
        errors: [400, 403],
      }),
    },
    async (req, reply) => ok(reply, await readLinkResult(app, { ref: req.query.ref })),
  );

  server.get<LinkRoute>(
    `${A}/:id/verify-token`,
    {
      schema: linkDoc({
        summary:
          'What an e-mail link may do: the approval, the link’s recipient and the status info (no sign-in; the token is the credential)',
        tags: TAGS,
        params: IdParams,
        querystring: TokenQuery,
        data: TokenVerification,
      }),
    },
    async (req, reply) => {
      try {
        return ok(
          reply,
          await verifyApprovalLink(app, {
            id: req.params.id,
            token: req.query.token,
            action: req.query.action,
          }),
        );
      } catch (err) {
        if (err instanceof LinkRefusal) return refuse(reply, err);
        throw err;
      }
    },
  );

  // The page a mail's link opens, and its button. Its own scope: the button's form body (empty,
  // urlencoded) is accepted here only, and read by no one (the token and action are in the address).
  server.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_req, _body, done) => done(null, null),
    );
    const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });
    const pageDoc = (summary: string, answers: Record<number, unknown>): FastifySchema => {
      const { response } = routeDoc({ summary, tags: TAGS, auth: false }) as {
        response: Record<number, unknown>;
      };
      return {
        summary,
        tags: TAGS,
        security: [],
        params: IdParams,
        querystring: TokenQuery,
        response: { ...answers, 500: response[500], 503: response[503] },
      };
    };

    scope.get<LinkRoute>(
      `${A}/:id/confirm-link`,
      {
        schema: pageDoc(
          'The public confirmation page an e-mail link opens (HTML, no script): shows the step and one button; changes nothing',
          {
            200: html(
              'The step, the approval’s company, file and amount, and the button (or No Action Needed)',
            ),
            400: html('Missing parameters or an unknown action'),
            403: html('Access Denied: the link cannot act (its text says why)'),
            404: html('No such approval'),
            409: html('Status Update Not Available (or Payment Already Completed)'),
          },
        ),
      },
      async (req, reply) => {
        reply.header('content-type', 'text/html; charset=utf-8').header('x-robots-tag', 'noindex');
        try {
          const link = await openLink(app, {
            id: req.params.id,
            token: req.query.token,
            action: req.query.action,
          });
          const standing = stepStanding(link);
          const facts = await linkPageFacts(app, link);
          const step = STEP[link.action];
          const rows = [
            ['Approval', `#${link.approvalId.slice(0, 8)}`],
            ['Company', facts.companyName],
            ...(facts.fileName ? [['NACHA file', facts.fileName]] : []),
            ...(facts.totalCents !== null ? [['Amount', usd(facts.totalCents)]] : []),
            ...(facts.effectiveDate ? [['Effective date', facts.effectiveDate]] : []),
          ];
          const dl = `<dl>${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
          if (standing === 'done')
            return reply.send(
              page(
                'No Action Needed',
                `<h1>No Action Needed</h1><p>This bill is already in the requested status.</p><p>${escapeHtml(step.done)}.</p>${dl}`,
              ),
            );
          const action = `${A}/${encodeURIComponent(link.approvalId)}/confirm-link?${new URLSearchParams({
            action: link.action,
            token: req.query.token as string,
          }).toString()}`;
          return reply.send(
            page(
              step.title,
              `<h1>${escapeHtml(step.title)}</h1>${dl}<p class="note">Nothing changes until you press the button. The link works once, until ${escapeHtml(link.expiresAt.slice(0, 16).replace('T', ' '))} UTC.</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit">${escapeHtml(step.button)}</button></form>`,
            ),
          );
        } catch (err) {
          if (err instanceof LinkRefusal) return reply.status(err.status).send(refusalPage(err));
          throw err;
        }
      },
    );

    scope.post<LinkRoute>(
      `${A}/:id/confirm-link`,
      {
        schema: pageDoc(
          'The confirmation page’s button: runs the step, then 303 to /direct-action-result (action, approvalId, success, error, noAction)',
          {
            303: {
              description:
                'To /direct-action-result?action=bank-upload|payment-completed&approvalId&success=true|false[&error][&noAction=true][&ref]: `ref` is the outcome, signed',
              headers: { location: { schema: { type: 'string' } } },
              content: { 'text/plain': { schema: z.string().max(0).describe('Empty: the Location header') } },
            },
          },
        ),
      },
      async (req, reply) => {
        const approvalId = String(req.params.id);
        let action: LinkAction | undefined;
        try {
          action = parseAction(req.query.action);
          if (!action) throw new LinkRefusal(400, 'BAD_REQUEST', INVALID_ACTION);
          const r = await confirmByLink(app, { id: approvalId, token: req.query.token, action });
          return reply.redirect(
            resultUrl({
              action,
              approvalId: r.approvalId,
              success: true,
              noAction: r.noAction,
              ref: r.resultRef,
            }),
            303,
          );
        } catch (err) {
          if (!(err instanceof LinkRefusal)) throw err;
          const error =
            err.message === INVALID_ACTION && !req.query.action ? MISSING_PARAMETERS : err.message;
          const ref = await refusalResultRef(app, { id: approvalId, action, error });
          return reply.redirect(resultUrl({ action, approvalId, success: false, error, ref }), 303);
        }
      },
    );
  });
}
