// /api/bill-approval/approvals/{id}/… of the payment half staff use signed in (spec 2 §7):
// regenerate-nacha, generate-penny-test, retry-qb-sync, and the stored files' downloads.
import type { FastifyInstance } from 'fastify';
import type { RestDeps } from './deps.js';

export function approvalPaymentRoutes(_server: FastifyInstance, _deps: RestDeps) {}
