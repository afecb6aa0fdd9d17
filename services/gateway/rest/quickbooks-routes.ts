// The QuickBooks connection's calls (qb-credentials, qb-oauth, qb-token-status,
// refresh-qb-token; /api/quickbooks/{companyId}/company-info). The OAuth callback is public: its
// one-time state is the authentication, and it answers the popup with a page, not JSON.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { QbAuthUrl, QbCompanyInfo, QbCredentials, QbTokenStatus } from '../../../schema/companies/answers.js';
import {
  QbCredentialsInput,
  QbOAuthCallbackInput,
  QbOAuthStartInput,
} from '../../../schema/companies/quickbooks-commands.js';
import { quickbooksCompanyInfo } from '../../companies/quickbooks-company-info.js';
import { getQbCredentials, putQbCredentials } from '../../companies/quickbooks-credentials.js';
import { deleteQbCredentials } from '../../companies/quickbooks-disconnect.js';
import { completeQbOAuth, startQbOAuth } from '../../companies/quickbooks-oauth.js';
import { refreshQbToken } from '../../companies/quickbooks-refresh.js';
import { qbTokenStatus } from '../../companies/quickbooks-token-status.js';
import { ErrorEnvelope, routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

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
  server.put<IdParams>(
    `${BASE}/:id/qb-credentials`,
    {
      schema: routeDoc({
        summary: 'Save the QuickBooks app credentials, sealed with the company’s key (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        body: QbCredentialsInput,
        data: QbCredentials,
        errors: [404, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await putQbCredentials(app, await actorOf(req), req.params.id, req.body), {
        message: 'QuickBooks credentials have been saved successfully',
      }),
  );
  server.delete<IdParams>(
    `${BASE}/:id/qb-credentials`,
    {
      schema: routeDoc({
        summary: 'Remove the QuickBooks credentials and tokens (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        data: z.null(),
        errors: [404, 422],
      }),
    },
    async (req, reply) => {
      await deleteQbCredentials(app, await actorOf(req), req.params.id);
      return ok(reply, null, { message: 'QuickBooks credentials removed' });
    },
  );
  server.post<IdParams>(
    `${BASE}/:id/qb-oauth/start`,
    {
      schema: routeDoc({
        summary: 'Save the credentials and start the OAuth flow: the URL to open in the popup (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        body: QbOAuthStartInput,
        data: QbAuthUrl,
        errors: [404, 422],
      }),
    },
    async (req, reply) =>
      ok(
        reply,
        await startQbOAuth(app, await actorOf(req), req.params.id, req.body, {
          // With no PUBLIC_URL, the callback must come back to the host this request came to.
          origin: `${req.protocol}://${req.host}`,
        }),
      ),
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
  server.post<IdParams>(
    `${BASE}/:id/refresh-qb-token`,
    {
      schema: routeDoc({
        summary: 'Refresh the QuickBooks tokens now (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        data: QbTokenStatus,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await refreshQbToken(app, await actorOf(req), req.params.id), {
        message: 'QuickBooks token refreshed successfully',
      }),
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
