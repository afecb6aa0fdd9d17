import type { FastifyRequest } from 'fastify';
import type { AppServices } from '../../app/context.js';
import type { Actor } from '../../auth/permissions.js';

export interface RestDeps {
  app: AppServices;
  /** The caller of this request (resolved once per request and cached on it). */
  actorOf(request: FastifyRequest): Promise<Actor | null>;
}
