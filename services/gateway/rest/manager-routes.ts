// /api/manager/*. Thin: parse the path and query, call the application function.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Manager } from '../../../schema/managers/answers.js';
import {
  LinkUserInput,
  ManagerInput,
  ManagerPageInput,
  ManagerSearchInput,
} from '../../../schema/managers/commands.js';
import {
  createManager,
  deleteManager,
  getManager,
  linkManagerUser,
  listManagers,
  searchManagers,
  unlinkManagerUser,
  updateManager,
} from '../../managers/managers.js';
import { routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

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
  server.post(
    '/api/manager/managers',
    {
      schema: routeDoc({
        summary: 'Create a manager, optionally linked to a user (ADMIN)',
        tags: TAGS,
        body: ManagerInput,
        status: 201,
        data: Manager,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await createManager(app, await actorOf(req), req.body), {
        status: 201,
        message: 'Manager created successfully',
      }),
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
  server.put<IdParams>(
    '/api/manager/managers/:id',
    {
      schema: routeDoc({
        summary: 'Update a manager; without userId it is unlinked (ADMIN)',
        tags: TAGS,
        params: ManagerIdParams,
        body: ManagerInput,
        data: Manager,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await updateManager(app, await actorOf(req), req.params.id, req.body), {
        message: 'Manager updated successfully',
      }),
  );
  server.delete<IdParams>(
    '/api/manager/managers/:id',
    {
      schema: routeDoc({
        summary: 'Delete a manager (its history stays; ADMIN)',
        tags: TAGS,
        params: ManagerIdParams,
        data: z.null(),
        errors: [404, 422],
      }),
    },
    async (req, reply) => {
      await deleteManager(app, await actorOf(req), req.params.id);
      return ok(reply, null, { message: 'Manager deleted successfully' });
    },
  );
  server.put<IdParams>(
    '/api/manager/managers/:id/link-user',
    {
      schema: routeDoc({
        summary: 'Link an active user to a manager (one manager per user; ADMIN)',
        tags: TAGS,
        params: ManagerIdParams,
        body: LinkUserInput,
        data: Manager,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await linkManagerUser(app, await actorOf(req), req.params.id, req.body), {
        message: 'User linked successfully',
      }),
  );
  server.put<IdParams>(
    '/api/manager/managers/:id/unlink-user',
    {
      schema: routeDoc({
        summary: "Unlink a manager's user (ADMIN)",
        tags: TAGS,
        params: ManagerIdParams,
        data: Manager,
        errors: [404, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await unlinkManagerUser(app, await actorOf(req), req.params.id), {
        message: 'User unlinked successfully',
      }),
  );
}
