// /api/user/*. Thin: parse the path and query, call the application function.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { OverviewStats, User, UserStatistics } from '../../../schema/users/answers.js';
import {
  AdminChangePasswordInput,
  ChangeRoleInput,
  PageInput,
  UpdateUserInput,
} from '../../../schema/users/commands.js';
import {
  adminChangePassword,
  changeRole,
  deactivateUser,
  deleteUser,
  forgetUser,
  getProfile,
  getUser,
  listUsers,
  overviewStats,
  reactivateUser,
  updateProfile,
  updateUser,
  userStatistics,
} from '../../users/users.js';
import { IdParams as IdParamsSchema, routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

type IdParams = { Params: { id: string } };
// What updateProfile accepts (services/users/users.ts): names and e-mail (a new one needs the
// current password), nothing else. Keep in step with that function's pick.
const UpdateProfileInput = UpdateUserInput.pick({
  email: true,
  firstName: true,
  lastName: true,
  currentPassword: true,
}).strict();

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
  server.put<IdParams>(
    '/api/user/users/:id',
    {
      schema: routeDoc({
        summary: 'Update a user (ADMIN)',
        tags: ['users'],
        params: IdParamsSchema,
        body: UpdateUserInput,
        data: User,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await updateUser(app, await actorOf(req), req.params.id, req.body), {
        message: 'User updated successfully',
      }),
  );
  server.delete<IdParams>(
    '/api/user/users/:id',
    {
      schema: routeDoc({
        summary: 'Delete a user (ADMIN)',
        tags: ['users'],
        params: IdParamsSchema,
        data: z.null(),
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) => {
      await deleteUser(app, await actorOf(req), req.params.id);
      return ok(reply, null, { message: 'User deleted successfully' });
    },
  );
  // Erasing a deleted user's personal data (docs/OPERATIONS.md).
  server.post<IdParams>(
    '/api/user/users/:id/forget',
    {
      schema: routeDoc({
        summary: "Erase a deleted user's personal data (ADMIN)",
        tags: ['users'],
        params: IdParamsSchema,
        data: z.null(),
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) => {
      await forgetUser(app, await actorOf(req), req.params.id);
      return ok(reply, null, { message: 'Personal data erased' });
    },
  );
  server.put<IdParams>(
    '/api/user/users/:id/reactivate',
    {
      schema: routeDoc({
        summary: 'Reactivate a user (ADMIN)',
        tags: ['users'],
        params: IdParamsSchema,
        data: User,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await reactivateUser(app, await actorOf(req), req.params.id), {
        message: 'User activated successfully',
      }),
  );
  server.put<IdParams>(
    '/api/user/users/:id/deactivate',
    {
      schema: routeDoc({
        summary: 'Deactivate a user (ADMIN)',
        tags: ['users'],
        params: IdParamsSchema,
        data: User,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await deactivateUser(app, await actorOf(req), req.params.id), {
        message: 'User deactivated successfully',
      }),
  );
  server.put<IdParams>(
    '/api/user/users/:id/role',
    {
      schema: routeDoc({
        summary: "Change a user's role (ADMIN)",
        tags: ['users'],
        params: IdParamsSchema,
        body: ChangeRoleInput,
        data: User,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await changeRole(app, await actorOf(req), req.params.id, req.body), {
        message: 'Role updated successfully',
      }),
  );
  server.put<IdParams>(
    '/api/user/users/:id/change-password',
    {
      schema: routeDoc({
        summary: "Set another user's password (ADMIN)",
        tags: ['users'],
        params: IdParamsSchema,
        body: AdminChangePasswordInput,
        data: z.null(),
        errors: [404, 422],
      }),
    },
    async (req, reply) => {
      await adminChangePassword(app, await actorOf(req), req.params.id, req.body);
      return ok(reply, null, { message: 'Password changed successfully' });
    },
  );
  server.get(
    '/api/user/profile',
    { schema: routeDoc({ summary: 'Own profile', tags: ['profile'], data: User }) },
    async (req, reply) => ok(reply, await getProfile(app, await actorOf(req))),
  );
  server.put(
    '/api/user/profile',
    {
      schema: routeDoc({
        summary: 'Update own names and e-mail',
        tags: ['profile'],
        body: UpdateProfileInput,
        data: User,
        errors: [409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await updateProfile(app, await actorOf(req), req.body), {
        message: 'Profile updated successfully',
      }),
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
