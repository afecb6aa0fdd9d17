// The spec's envelope: { success, data, error, message, meta: { pagination } }.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, toAppError } from '../../shared/errors.js';

export interface Pagination {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export function ok(
  reply: FastifyReply,
  data: unknown,
  options: { status?: number; message?: string; pagination?: Pagination } = {},
) {
  return reply.status(options.status ?? 200).send({
    success: true,
    data,
    ...(options.message ? { message: options.message } : {}),
    ...(options.pagination ? { meta: { pagination: options.pagination } } : {}),
  });
}

export function failureBody(error: AppError) {
  return {
    success: false,
    error: error.message,
    message: error.message,
    code: error.code,
    ...(error.fieldErrors.length ? { errors: error.fieldErrors } : {}),
  };
}

/** Fastify error handler: every failure, ours or Fastify's (bad JSON, too large), in the envelope. */
export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply) {
  const fastifyStatus = (err as { statusCode?: number }).statusCode;
  let appError = toAppError(err);
  if (appError.code === 'INTERNAL' && fastifyStatus && fastifyStatus >= 400 && fastifyStatus < 500) {
    // Fastify's own client errors (malformed JSON, wrong content type, body too large).
    const message =
      fastifyStatus === 413
        ? 'Request body is too large'
        : (err as { code?: string }).code === 'FST_ERR_BAD_URL'
          ? 'Malformed URL'
          : 'Malformed request body';
    return reply.status(fastifyStatus).send({ success: false, error: message, message, code: 'VALIDATION' });
  }
  if (appError.code === 'INTERNAL') {
    request.log.error({ err }, 'unhandled error');
    appError = toAppError(new Error('internal'));
  }
  // A database outage is temporary: tell clients and load balancers when to try again.
  if (appError.code === 'UNAVAILABLE') reply.header('retry-after', '5');
  return reply.status(appError.status).send(failureBody(appError));
}

/** The bearer token of a request, if any. */
export function bearerOf(request: FastifyRequest): string | null {
  const h = request.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h);
  return m ? m[1].trim() : null;
}
