// /api/manager/* reads. Thin: parse the path and query, call the application function. The
// commands are declared in services/managers/endpoints.ts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Manager } from '../../../../schema/managers/answers.js';
import { ManagerPageInput, ManagerSearchInput } from '../../../../schema/managers/commands.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { getManager, listManagers, searchManagers } from '../../managers.js';

type IdParams = { Params: { id: string } };
const ManagerIdParams = z.object({ id: z.string().regex(/^\d+$/).describe('Manager id') });
const TAGS = ['managers'];

export function managerRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    '/api/manager/managers',
    {
      schema: routeDoc({
        summary: 'List managers (paged, newest first; ADMIN)',
        tags: TAGS,
        querystring: ManagerPageInput,
        data: z.array(Manager),
        paginated: true,
      }),
    },
    async (req, reply) => {
      const page = await listManagers(app, await actorOf(req), req.query);
      return ok(reply, page.data, {
        pagination: { total: page.total, page: page.page, limit: page.limit, totalPages: page.totalPages },
      });
    },
  );
  // Before /:id, so that "search" is not taken for an id.
  server.get(
    '/api/manager/managers/search',
    {
      schema: routeDoc({
        summary: 'Managers whose name or e-mail contains q (at most 20; ADMIN)',
        tags: TAGS,
        querystring: ManagerSearchInput,
        data: z.array(Manager),
      }),
    },
    async (req, reply) => ok(reply, await searchManagers(app, await actorOf(req), req.query)),
  );
  server.get<IdParams>(
    '/api/manager/managers/:id',
    {
      schema: routeDoc({
        summary: 'One manager with its linked user (ADMIN)',
        tags: TAGS,
        params: ManagerIdParams,
        data: Manager,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getManager(app, await actorOf(req), req.params.id)),
  );
}
