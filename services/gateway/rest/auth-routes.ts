// /api/auth/* and PUT /api/user/password.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AuthAnswer, RefreshAnswer, User } from '../../../schema/users/answers.js';
import {
  ChangeOwnPasswordInput,
  LoginInput,
  LogoutInput,
  RefreshInput,
  RegisterUserInput,
} from '../../../schema/users/commands.js';
import { changeOwnPassword, login, logout, me, refresh, registerUser } from '../../users/auth.js';
import { routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

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

  server.post(
    '/api/auth/register',
    {
      schema: routeDoc({
        summary: 'Create a user (ADMIN)',
        tags: ['auth'],
        body: RegisterUserInput,
        status: 201,
        data: User,
        errors: [409, 422],
      }),
    },
    async (req, reply) => {
      const user = await registerUser(app, await actorOf(req), req.body);
      return ok(reply, user, { status: 201, message: 'User created successfully' });
    },
  );

  server.get(
    '/api/auth/me',
    { schema: routeDoc({ summary: 'The signed-in user', tags: ['auth'], data: User }) },
    async (req, reply) => ok(reply, await me(app, await actorOf(req))),
  );

  server.put(
    '/api/user/password',
    {
      schema: routeDoc({
        summary: 'Change own password (needs the current one)',
        tags: ['profile'],
        body: ChangeOwnPasswordInput,
        data: z.null(),
        errors: [422, 429],
      }),
    },
    async (req, reply) => {
      await changeOwnPassword(app, await actorOf(req), req.body);
      return ok(reply, null, { message: 'Password changed successfully' });
    },
  );
}
