// GET /api/auth/me. Sign-in, refresh and sign-out are declared in services/users/session-endpoints.ts,
// register and the password change in services/users/endpoints.ts.
import type { FastifyInstance } from 'fastify';
import { User } from '../../../../schema/users/answers.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { me } from '../../auth.js';

export function authRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    '/api/auth/me',
    { schema: routeDoc({ summary: 'The signed-in user', tags: ['auth'], data: User }) },
    async (req, reply) => ok(reply, await me(app, await actorOf(req))),
  );
}
