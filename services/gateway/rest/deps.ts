import type { FastifyRequest } from 'fastify';
import type { AppServices } from '../../app/context.js';
import type { Actor } from '../../auth/permissions.js';
import type { ResponseCache } from '../response-cache.js';

export interface RestDeps {
  app: AppServices;
  /** The caller of this request (resolved once per request and cached on it). */
  actorOf(request: FastifyRequest): Promise<Actor | null>;
  /** Answers kept while their read models stand still (lists staff keep open). */
  responses: ResponseCache;
}
