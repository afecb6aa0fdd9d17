// The e-mail links' calls (spec 2 §7): verify-token, bank-uploaded and payment-completed with the
// token as query, and the public confirmation step a link opens (no sign-in).
import type { FastifyInstance } from 'fastify';
import type { RestDeps } from './deps.js';

export function approvalLinkRoutes(_server: FastifyInstance, _deps: RestDeps) {}
