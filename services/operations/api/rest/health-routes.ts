// Health: a public liveness probe, a public readiness probe for load balancers, and the detailed
// view for the dashboard (ADMIN).
import type { FastifyInstance } from 'fastify';
import { Liveness, Readiness, SystemHealth } from '../../../../schema/operations/answers.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { DATABASE_UNAVAILABLE } from '../../../shared/errors.js';
import { detailedHealth, readiness } from '../../health.js';

export function healthRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    '/api/health',
    {
      schema: routeDoc({
        summary: 'Liveness',
        tags: ['health'],
        auth: false,
        data: Liveness,
      }),
    },
    async (_req, reply) => ok(reply, { status: 'ok' }),
  );
  // 200 while Postgres answers (Redis down only degrades the service); 503 otherwise.
  server.get(
    '/api/health/ready',
    {
      schema: routeDoc({
        summary: 'Readiness for load balancers (503 while Postgres is away)',
        tags: ['health'],
        auth: false,
        data: Readiness,
      }),
    },
    async (_req, reply) => {
      const ready = await readiness(app);
      if (ready.status === 'ready') return ok(reply, ready);
      return reply.status(503).header('retry-after', '5').send({
        success: false,
        error: DATABASE_UNAVAILABLE,
        message: DATABASE_UNAVAILABLE,
        code: 'UNAVAILABLE',
        data: ready,
      });
    },
  );
  server.get(
    '/api/health/detailed',
    { schema: routeDoc({ summary: 'Detailed health (ADMIN)', tags: ['health'], data: SystemHealth }) },
    async (req, reply) => ok(reply, await detailedHealth(app, await actorOf(req))),
  );
}
