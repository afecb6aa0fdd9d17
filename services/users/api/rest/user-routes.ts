// /api/user/* reads. Thin: parse the path and query, call the application function. The commands
// are declared in services/users/endpoints.ts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { OverviewStats, User, UserStatistics } from '../../../../schema/users/answers.js';
import { PageInput } from '../../../../schema/users/commands.js';
import { IdParams as IdParamsSchema, routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { getProfile, getUser, listUsers, overviewStats, userStatistics } from '../../users.js';

type IdParams = { Params: { id: string } };
/** The users list's `data`: the page with its figures (the other lists send the rows alone). */
const UserPage = z.object({
  data: z.array(User),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  totalPages: z.number().int(),
});

export function userRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    '/api/user/users',
    {
      schema: routeDoc({
        summary: 'List users (paged, newest first)',
        description:
          'Unlike the other lists, `data` holds the page itself (its users in `data.data`, with its figures), as it always has; `meta.pagination` repeats the figures.',
        tags: ['users'],
        querystring: PageInput,
        data: UserPage,
        paginated: true,
      }),
    },
    async (req, reply) => {
      const page = await listUsers(app, await actorOf(req), req.query);
      return ok(reply, page, {
        pagination: { total: page.total, page: page.page, limit: page.limit, totalPages: page.totalPages },
      });
    },
  );
  server.get<IdParams>(
    '/api/user/users/:id',
    {
      schema: routeDoc({
        summary: 'One user',
        tags: ['users'],
        params: IdParamsSchema,
        data: User,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getUser(app, await actorOf(req), req.params.id)),
  );
  server.get(
    '/api/user/profile',
    { schema: routeDoc({ summary: 'Own profile', tags: ['profile'], data: User }) },
    async (req, reply) => ok(reply, await getProfile(app, await actorOf(req))),
  );
  server.get<{ Querystring: { userId?: string } }>(
    '/api/user/statistics',
    {
      schema: routeDoc({
        summary: 'Sign-in figures (own, or any user for users.read)',
        tags: ['profile'],
        querystring: z.object({ userId: z.string().regex(/^\d+$/).optional() }),
        data: UserStatistics,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await userStatistics(app, await actorOf(req), req.query ?? {})),
  );
  server.get(
    '/api/user/overview-stats',
    { schema: routeDoc({ summary: 'User counts by role and state', tags: ['users'], data: OverviewStats }) },
    async (req, reply) => ok(reply, await overviewStats(app, await actorOf(req))),
  );
}
