// /api/dashboard/stats (spec 1 §7 Dashboard).
import type { FastifyInstance } from 'fastify';
import { DashboardStats } from '../../../schema/dashboard/answers.js';
import { dashboardStats } from '../../dashboard/dashboard.js';
import { routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

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
}
