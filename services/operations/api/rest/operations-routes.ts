// The operations page's overview (ADMIN). Its commands (the retries of failed jobs and parked events,
// the dismissal of a parked event) are declared once in services/operations/endpoints.ts.
import type { FastifyInstance } from 'fastify';
import { OperationsOverview } from '../../../../schema/operations/answers.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { closeOperationsQueues, operationsOverview } from '../../operations.js';

export function operationsRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  // The queue objects are opened by this gateway's calls (REST and GraphQL): they close with it.
  server.addHook('onClose', async () => closeOperationsQueues(app));

  server.get(
    '/api/operations',
    {
      schema: routeDoc({
        summary: 'Queues, consumers and parked events (ADMIN)',
        tags: ['operations'],
        data: OperationsOverview,
      }),
    },
    async (req, reply) => ok(reply, await operationsOverview(app, await actorOf(req))),
  );
}
