// The vendor's side of a held bank detail change over REST (starting a micro-deposit check is declared
// once, in services/vendors/endpoints.ts). Thin: parse, call the use case.
//   GET  /api/vendors/{id}/banking-changes/{changeId}/micro-deposits/file  its NACHA file (recorded)
// and the public links a vendor's contact on record gets by e-mail (no sign-in; the token is the
// credential, in the query as the approvals' links carry theirs). A GET reads and changes nothing;
// only the page's press, a POST, acts (the presses are declared in services/vendors/link-endpoints.ts):
//   GET|POST /api/vendors/banking-links/not-me?token          "this was not me": freezes the change
//   GET|POST /api/vendors/banking-links/micro-deposits?token  the amounts: right ones make it live
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MicroDepositLinkView, VendorLinkChange } from '../../../../schema/vendors/answers.js';
import { attachment } from '../../../gateway/rest/attachment.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { microDepositLink, notMeLink } from '../../banking-links.js';
import { VENDOR_LINK_REFUSALS, VendorLinkTokenQuery } from '../../link-endpoints.js';
import { downloadMicroDepositFile } from '../../micro-deposits.js';

const TAGS = ['vendors'];
type ChangeRoute = { Params: { id: string; changeId: string } };
type LinkRoute = { Querystring: { token?: string } };
const ChangeParams = z.object({
  id: z.string().regex(/^\d+$/).describe('Vendor id'),
  changeId: z.string().describe('The change’s id'),
});

export function vendorVerificationRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get<ChangeRoute>(
    '/api/vendors/:id/banking-changes/:changeId/micro-deposits/file',
    {
      schema: routeDoc({
        summary:
          'The latest micro-deposit check’s NACHA file as text (ADMIN, MODERATOR; each download recorded on the vendor)',
        tags: TAGS,
        params: ChangeParams,
        file: { contentType: 'text/plain', description: 'The NACHA file (an attachment)' },
        errors: [404],
      }),
    },
    async (req, reply) => {
      const file = await downloadMicroDepositFile(
        app,
        await actorOf(req),
        req.params.id,
        req.params.changeId,
      );
      return reply
        .header('content-type', 'text/plain; charset=us-ascii')
        .header('content-disposition', attachment(file.fileName))
        .header('cache-control', 'no-store')
        .send(file.text);
    },
  );

  const linkDoc = (summary: string, data: z.ZodType) =>
    routeDoc({
      summary,
      description: VENDOR_LINK_REFUSALS,
      tags: TAGS,
      auth: false,
      querystring: VendorLinkTokenQuery,
      data,
      errors: [403, 409, 429],
    });
  const callOf = (req: { query: { token?: string }; ip: string }) => ({ token: req.query.token, ip: req.ip });

  server.get<LinkRoute>(
    '/api/vendors/banking-links/not-me',
    {
      schema: linkDoc(
        'What a "this was not me" link is about: the change (tails only), who made it, and whether the link can act; changes nothing',
        VendorLinkChange,
      ),
    },
    async (req, reply) => ok(reply, await notMeLink(app, callOf(req))),
  );
  server.get<LinkRoute>(
    '/api/vendors/banking-links/micro-deposits',
    {
      schema: linkDoc(
        'What a micro-deposit link is about: the account to confirm (tails only), the tries left, whether it can act; changes nothing',
        MicroDepositLinkView,
      ),
    },
    async (req, reply) => ok(reply, await microDepositLink(app, callOf(req))),
  );
}
