// The approvals' audit calls (issue 40): an approval as it stood after any event of its stream (time
// travel). Thin, like approval-routes.ts: parse the path and query, call the application function.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApprovalAsOf, ApprovalAsOfInput } from '../../../schema/approvals/as-of-answers.js';
import { approvalAsOf } from '../../approvals/as-of.js';
import { routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

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
}
