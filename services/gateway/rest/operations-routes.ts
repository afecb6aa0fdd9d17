// The operations page's calls (ADMIN): the overview, retries of failed jobs and parked events, and
// the dismissal of a parked event.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  closeOperationsQueues,
  dismissParkedEvent,
  operationsOverview,
  retryFailedJob,
  retryParkedEvent,
} from '../../operations/operations.js';
import { operationsFeed } from '../operations-feed.js';
import { OperationsOverview, routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

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

  server.post<{ Params: { queue: string; jobId: string } }>(
    '/api/operations/queues/:queue/jobs/:jobId/retry',
    {
      schema: routeDoc({
        summary: 'Run a failed job again (ADMIN)',
        tags: ['operations'],
        params: z.object({ queue: z.string(), jobId: z.string() }),
        data: z.object({ queue: z.string(), jobId: z.string() }),
        errors: [404, 409],
      }),
    },
    async (req, reply) => {
      const data = await retryFailedJob(app, await actorOf(req), req.params.queue, req.params.jobId);
      operationsFeed(app).refresh();
      return ok(reply, data, { message: 'Job queued for another run' });
    },
  );

  server.post<{ Params: { consumer: string; eventId: string } }>(
    '/api/operations/parked/:consumer/:eventId/retry',
    {
      schema: routeDoc({
        summary: 'Apply a parked event again (ADMIN)',
        tags: ['operations'],
        params: z.object({ consumer: z.string(), eventId: z.uuid() }),
        data: z.object({ consumer: z.string(), eventId: z.uuid() }),
        errors: [404],
      }),
    },
    async (req, reply) => {
      const data = await retryParkedEvent(app, await actorOf(req), req.params.consumer, req.params.eventId);
      operationsFeed(app).refresh();
      return ok(reply, data, { message: 'Retry requested: the consumer applies the event again shortly' });
    },
  );

  server.post<{ Params: { consumer: string; eventId: string }; Body: unknown }>(
    '/api/operations/parked/:consumer/:eventId/dismiss',
    {
      schema: routeDoc({
        summary: 'Set a parked event aside, with a reason (ADMIN); it stays listed on record',
        tags: ['operations'],
        params: z.object({ consumer: z.string(), eventId: z.uuid() }),
        body: z.object({ reason: z.string().describe('Why it is set aside (required, at most 500)') }),
        data: z.object({ consumer: z.string(), eventId: z.uuid(), reason: z.string() }),
        errors: [404, 409],
      }),
    },
    async (req, reply) => {
      const data = await dismissParkedEvent(
        app,
        await actorOf(req),
        req.params.consumer,
        req.params.eventId,
        req.body,
      );
      operationsFeed(app).refresh();
      return ok(reply, data, {
        message: 'Parked event dismissed: it is kept on record and no longer counted',
      });
    },
  );
}
