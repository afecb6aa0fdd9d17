// The QuickBooks connection's reads (qb-credentials, qb-token-status;
// /api/quickbooks/{companyId}/company-info) and the OAuth callback; its commands are declared once
// in services/companies/endpoints.ts. The callback is public: its one-time state is the
// authentication, and it answers the popup with a page, not JSON.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { QbCompanyInfo, QbCredentials, QbTokenStatus } from '../../../../schema/companies/answers.js';
import { QbOAuthCallbackInput } from '../../../../schema/companies/quickbooks-commands.js';
import { ErrorEnvelope, routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { quickbooksCompanyInfo } from '../../quickbooks-company-info.js';
import { getQbCredentials } from '../../quickbooks-credentials.js';
import { completeQbOAuth } from '../../quickbooks-oauth.js';
import { qbTokenStatus } from '../../quickbooks-token-status.js';

type IdParams = { Params: { id: string } };
const CompanyIdParams = z.object({ id: z.string().regex(/^\d+$/).describe('Company id') });
const TAGS = ['quickbooks'];
const BASE = '/api/company/companies';

/** The popup's last page: tells the opener (same origin only) and closes itself. */
function callbackPage(ok: boolean, message: string, nonce: string): string {
  const payload = ok ? { type: 'QB_OAUTH_SUCCESS' } : { type: 'QB_OAUTH_ERROR', error: message };
  // JSON inside a script: '<' escaped so that no text can close the script element.
  const json = JSON.stringify(payload).replace(/</g, '\\u003c');
  const text = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>QuickBooks</title></head>
<body><p>${text}</p><p>You can close this window.</p>
<script nonce="${nonce}">
  if (window.opener) window.opener.postMessage(${json}, window.location.origin);
  setTimeout(function () { window.close(); }, 300);
</script></body></html>`;
}

export function quickbooksRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get<IdParams>(
    `${BASE}/:id/qb-credentials`,
    {
      schema: routeDoc({
        summary: 'Whether QuickBooks credentials are saved (the secret is never returned; ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        data: QbCredentials,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getQbCredentials(app, await actorOf(req), req.params.id)),
  );
  server.get(
    `${BASE}/qb-oauth/callback`,
    {
      schema: {
        summary: 'Where QuickBooks sends the user back: exchanges the code once, answers the popup',
        tags: TAGS,
        security: [],
        querystring: QbOAuthCallbackInput,
        response: {
          200: {
            description: 'A page that posts QB_OAUTH_SUCCESS or QB_OAUTH_ERROR to its opener and closes',
            content: { 'text/html': { schema: z.string() } },
          },
          500: {
            description: 'Unexpected error',
            content: { 'application/json': { schema: ErrorEnvelope } },
          },
        },
      } as FastifySchema,
    },
    async (req, reply) => {
      const callbackUrl = `${req.protocol}://${req.host}${req.url}`;
      const outcome = await completeQbOAuth(app, req.query, callbackUrl);
      const nonce = randomBytes(16).toString('base64');
      return (
        reply
          .header(
            'content-security-policy',
            `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`,
          )
          .header('cache-control', 'no-store')
          // The page must stay in its opener's browsing context group to reach window.opener.
          .header('cross-origin-opener-policy', 'unsafe-none')
          .type('text/html; charset=utf-8')
          .send(callbackPage(outcome.ok, outcome.message, nonce))
      );
    },
  );
  server.get<IdParams>(
    `${BASE}/:id/qb-token-status`,
    {
      schema: routeDoc({
        summary: 'Whether the company has QuickBooks tokens, and when the access token expires (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        data: QbTokenStatus,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await qbTokenStatus(app, await actorOf(req), req.params.id)),
  );
  server.get<{ Params: { companyId: string } }>(
    '/api/quickbooks/:companyId/company-info',
    {
      schema: routeDoc({
        summary:
          'The company’s QuickBooks CompanyInfo and active bank accounts with balances (ADMIN; cached 5 minutes)',
        tags: TAGS,
        params: z.object({ companyId: z.string().regex(/^\d+$/).describe('Company id') }),
        data: QbCompanyInfo,
        errors: [404, 409],
      }),
    },
    async (req, reply) =>
      ok(reply, await quickbooksCompanyInfo(app, await actorOf(req), req.params.companyId)),
  );
}
