// /api/dashboard/stats, and a company's activity, under the
// company's path but read from this module's activity feed.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ActivityItem, DashboardStats } from '../../../../schema/dashboard/answers.js';
import { CompanyActivityInput } from '../../../../schema/dashboard/commands.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { companyActivity } from '../../activity.js';
import { dashboardStats } from '../../dashboard.js';

export function dashboardRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    '/api/dashboard/stats',
    {
      schema: routeDoc({
        summary: 'Dashboard figures and recent activity',
        tags: ['dashboard'],
        data: DashboardStats,
      }),
    },
    async (req, reply) => ok(reply, await dashboardStats(app, await actorOf(req))),
  );
  server.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/api/company/companies/:id/activity',
    {
      schema: routeDoc({
        summary: "A company's recent activity, newest first",
        description:
          'Approvals created, approved, rejected, expired or deleted, and the company created, (de)activated or connected to QuickBooks. MODERATOR and USER read the companies of their staff scope only (another answers 404, as an unknown id) and the kinds their role reads elsewhere (a USER not the QuickBooks connection).',
        tags: ['companies'],
        params: z.object({ id: z.string().regex(/^\d+$/).describe('Company id') }),
        querystring: CompanyActivityInput,
        data: z.array(ActivityItem),
        errors: [400, 404],
      }),
    },
    async (req, reply) => ok(reply, await companyActivity(app, await actorOf(req), req.params.id, req.query)),
  );
}
