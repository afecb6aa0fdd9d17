// /api/auth/*: sign-in, refresh and sign-out, public or answering without a caller, so written
// here rather than declared; register and the password change are declared in
// services/users/endpoints.ts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AuthAnswer, RefreshAnswer, User } from '../../../../schema/users/answers.js';
import { LoginInput, LogoutInput, RefreshInput } from '../../../../schema/users/commands.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { login, logout, me, refresh } from '../../auth.js';

export function authRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.post(
    '/api/auth/login',
    {
      schema: routeDoc({
        summary: 'Sign in',
        tags: ['auth'],
        auth: false,
        body: LoginInput,
        data: AuthAnswer,
        errors: [401, 429],
      }),
    },
    async (req, reply) => {
      const result = await login(app, req.body, { ip: req.ip ?? null });
      return ok(reply, result, { message: 'Login successful' });
    },
  );

  server.post(
    '/api/auth/refresh',
    {
      schema: routeDoc({
        summary: 'A new token pair for a refresh token',
        tags: ['auth'],
        auth: false,
        body: RefreshInput,
        data: RefreshAnswer,
        errors: [401],
      }),
    },
    async (req, reply) => ok(reply, await refresh(app, req.body)),
  );

  server.post(
    '/api/auth/logout',
    {
      schema: routeDoc({
        summary: "Sign out (revokes the refresh token's family)",
        tags: ['auth'],
        auth: 'optional',
        body: LogoutInput,
        data: z.null(),
      }),
    },
    async (req, reply) => {
      await logout(app, await actorOf(req), req.body ?? {});
      return ok(reply, null, { message: 'Logged out' });
    },
  );

  server.get(
    '/api/auth/me',
    { schema: routeDoc({ summary: 'The signed-in user', tags: ['auth'], data: User }) },
    async (req, reply) => ok(reply, await me(app, await actorOf(req))),
  );
}
