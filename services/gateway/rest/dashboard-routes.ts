// /api/dashboard/stats (spec 1 §7 Dashboard).
import type { FastifyInstance } from 'fastify';
import { dashboardStats } from '../../app/dashboard.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

export function dashboardRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get('/api/dashboard/stats', async (req, reply) =>
    ok(reply, await dashboardStats(app, await actorOf(req))),
  );
}
