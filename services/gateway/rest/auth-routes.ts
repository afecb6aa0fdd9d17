// /api/auth/* and PUT /api/user/password (spec 1 §7 Auth).
import type { FastifyInstance } from 'fastify';
import { changeOwnPassword, login, logout, me, refresh, registerUser } from '../../app/auth.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

export function authRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.post('/api/auth/login', async (req, reply) => {
    const result = await login(app, req.body, { ip: req.ip ?? null });
    return ok(reply, result, { message: 'Login successful' });
  });

  server.post('/api/auth/refresh', async (req, reply) => ok(reply, await refresh(app, req.body)));

  server.post('/api/auth/logout', async (req, reply) => {
    await logout(app, await actorOf(req), req.body ?? {});
    return ok(reply, null, { message: 'Logged out' });
  });

  server.post('/api/auth/register', async (req, reply) => {
    const user = await registerUser(app, await actorOf(req), req.body);
    return ok(reply, user, { status: 201, message: 'User created successfully' });
  });

  server.get('/api/auth/me', async (req, reply) => ok(reply, await me(app, await actorOf(req))));

  server.put('/api/user/password', async (req, reply) => {
    await changeOwnPassword(app, await actorOf(req), req.body);
    return ok(reply, null, { message: 'Password changed successfully' });
  });
}
