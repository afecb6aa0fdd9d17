// Health: a public liveness probe and the detailed view for the dashboard (ADMIN).
import type { FastifyInstance } from 'fastify';
import { detailedHealth } from '../../app/health.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

export function healthRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get('/api/health', async (_req, reply) => ok(reply, { status: 'ok' }));
  server.get('/api/health/detailed', async (req, reply) =>
    ok(reply, await detailedHealth(app, await actorOf(req))),
  );
}
