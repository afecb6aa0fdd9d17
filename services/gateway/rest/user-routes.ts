// /api/user/* (spec 1 §7 Users). Thin: parse the path and query, call the application function.
import type { FastifyInstance } from 'fastify';
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
} from '../../app/users.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

type IdParams = { Params: { id: string } };

export function userRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get('/api/user/users', async (req, reply) => {
    const page = await listUsers(app, await actorOf(req), req.query);
    return ok(reply, page, {
      pagination: { total: page.total, page: page.page, limit: page.limit, totalPages: page.totalPages },
    });
  });
  server.get<IdParams>('/api/user/users/:id', async (req, reply) =>
    ok(reply, await getUser(app, await actorOf(req), req.params.id)),
  );
  server.put<IdParams>('/api/user/users/:id', async (req, reply) =>
    ok(reply, await updateUser(app, await actorOf(req), req.params.id, req.body), {
      message: 'User updated successfully',
    }),
  );
  server.delete<IdParams>('/api/user/users/:id', async (req, reply) => {
    await deleteUser(app, await actorOf(req), req.params.id);
    return ok(reply, null, { message: 'User deleted successfully' });
  });
  // Not in the spec: erasing a deleted user's personal data (issue 9, docs/OPERATIONS.md).
  server.post<IdParams>('/api/user/users/:id/forget', async (req, reply) => {
    await forgetUser(app, await actorOf(req), req.params.id);
    return ok(reply, null, { message: 'Personal data erased' });
  });
  server.put<IdParams>('/api/user/users/:id/reactivate', async (req, reply) =>
    ok(reply, await reactivateUser(app, await actorOf(req), req.params.id), {
      message: 'User activated successfully',
    }),
  );
  server.put<IdParams>('/api/user/users/:id/deactivate', async (req, reply) =>
    ok(reply, await deactivateUser(app, await actorOf(req), req.params.id), {
      message: 'User deactivated successfully',
    }),
  );
  server.put<IdParams>('/api/user/users/:id/role', async (req, reply) =>
    ok(reply, await changeRole(app, await actorOf(req), req.params.id, req.body), {
      message: 'Role updated successfully',
    }),
  );
  server.put<IdParams>('/api/user/users/:id/change-password', async (req, reply) => {
    await adminChangePassword(app, await actorOf(req), req.params.id, req.body);
    return ok(reply, null, { message: 'Password changed successfully' });
  });
  server.get('/api/user/profile', async (req, reply) => ok(reply, await getProfile(app, await actorOf(req))));
  server.put('/api/user/profile', async (req, reply) =>
    ok(reply, await updateProfile(app, await actorOf(req), req.body), {
      message: 'Profile updated successfully',
    }),
  );
  server.get<{ Querystring: { userId?: string } }>('/api/user/statistics', async (req, reply) =>
    ok(reply, await userStatistics(app, await actorOf(req), req.query ?? {})),
  );
  server.get('/api/user/overview-stats', async (req, reply) =>
    ok(reply, await overviewStats(app, await actorOf(req))),
  );
}
