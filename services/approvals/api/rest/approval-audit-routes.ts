// The approvals' audit calls: an approval as it stood after any event of its stream (time
// travel), and its audit bundle as a file. Thin, like approval-routes.ts: parse the path and query,
// call the application function.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApprovalAsOf, ApprovalAsOfInput } from '../../../../schema/approvals/as-of-answers.js';
import { attachment } from '../../../gateway/rest/attachment.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { approvalAsOf } from '../../as-of.js';
import { downloadAuditBundle } from '../../audit-bundle.js';

const TAGS = ['approvals'];
const A = '/api/bill-approval/approvals';

export function approvalAuditRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get<{ Params: { id: string }; Querystring: { position?: string; at?: string } }>(
    `${A}/:id/as-of`,
    {
      schema: routeDoc({
        summary: 'The approval as it stood after one event of its stream (time travel); ADMIN, MODERATOR',
        description:
          'By `position` (the last event at or before that log position) or by `at` (the last event at or before that time), not both; neither: now. Answers the detail’s shape with the step shown and every step of the stream to scrub through. Names come from today’s read models; personal fields whose subject was forgotten are listed in `erased` and shown empty. A point before the approval existed is refused (400).',
        tags: TAGS,
        params: z.object({ id: z.string().max(64).describe('Approval id (UUID)') }),
        querystring: ApprovalAsOfInput,
        data: ApprovalAsOf,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await approvalAsOf(app, await actorOf(req), req.params.id, req.query)),
  );
  server.get<{ Params: { id: string } }>(
    `${A}/:id/audit-bundle`,
    {
      schema: routeDoc({
        summary: 'The approval’s audit bundle as a JSON file; ADMIN, MODERATOR (each export recorded)',
        description:
          'What `npm run audit -- export` writes: the events as stored (personal fields sealed), each with its Merkle audit path to a published anchor, those anchors, and the opened view. `node tools/audit-verifier.mjs <bundle> <published anchors file>` checks it. The export is appended to the approval’s stream first (ApprovalAuditExported, by the caller), so its history shows it and the bundle covers it.',
        tags: TAGS,
        params: z.object({ id: z.string().max(64).describe('Approval id (UUID)') }),
        file: { contentType: 'application/json', description: 'audit-<id>.json (an attachment)' },
        errors: [404, 409],
      }),
    },
    async (req, reply) => {
      const { fileName, bundle } = await downloadAuditBundle(app, await actorOf(req), req.params.id);
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', attachment(fileName))
        .header('cache-control', 'no-store')
        .send(`${JSON.stringify(bundle, null, 2)}\n`);
    },
  );
}
