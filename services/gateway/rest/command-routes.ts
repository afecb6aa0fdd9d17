// The REST route of each declared command (services/app/endpoints.ts): the spec's method and path,
// documented for /api/openapi.json, the permission checked first, the answer in the envelope.
// Idempotency-Key and the error envelope are the server's hooks, the same for every route.
import type { FastifyInstance } from 'fastify';
import type { AnyEndpoint } from '../../app/endpoints.js';
import { authorize } from '../../auth/permissions.js';
import { routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

export function commandRoutes(endpoints: readonly AnyEndpoint[]) {
  return (server: FastifyInstance, { app, actorOf }: RestDeps) => {
    for (const endpoint of endpoints) {
      const { rest } = endpoint;
      const schema = routeDoc({ ...rest.doc, status: rest.status });
      const { refusal } = rest;
      if (refusal) {
        const response = schema.response as Record<string, unknown>;
        for (const code of refusal.statuses)
          response[code] = {
            description: refusal.description,
            content: { 'application/json': { schema: refusal.envelope } },
          };
      }
      server.route<{ Params: Record<string, string> }>({
        method: rest.method,
        url: rest.path,
        schema,
        handler: async (req, reply) => {
          try {
            const actor = await actorOf(req);
            if (endpoint.permission !== 'public') authorize(actor, endpoint.permission);
            const input = rest.input({ params: req.params ?? {}, body: req.body, query: req.query });
            const result = await endpoint.run(app, actor, input, {
              ip: req.ip ?? null,
              origin: `${req.protocol}://${req.host}`,
            });
            const data = rest.answer ? rest.answer(result, actor) : result;
            const message = typeof rest.message === 'function' ? rest.message(result) : rest.message;
            return ok(reply, data, { status: rest.status, message });
          } catch (err) {
            const refused = refusal?.answer(err);
            if (refused) return reply.status(refused.status).send(refused.body);
            throw err;
          }
        },
      });
    }
  };
}
