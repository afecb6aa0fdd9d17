// The spec's envelope: { success, data, error, message, meta: { pagination } }.
import type { IncomingMessage } from 'node:http';
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

/**
 * How much of a refused (too large) body is read and thrown away before the 413 is sent, and for how
 * long. A client such as Node's fetch sends the whole body before it reads the answer: a socket
 * closed while it still writes gives it EPIPE or a reset, never the 413. A body beyond this is cut
 * off as before (the answer is sent and the connection closed).
 */
export const REFUSED_BODY_DRAIN = { bytes: 8 * 1024 * 1024, ms: 10_000 };

/**
 * Reads the rest of a request's body and discards it, within REFUSED_BODY_DRAIN: resolves when the
 * body has ended, the client has gone, or a bound is reached (then the connection is closed after
 * the answer, as Fastify asks with `Connection: close`).
 */
export function drainRefusedBody(raw: IncomingMessage, bound = REFUSED_BODY_DRAIN): Promise<void> {
  const declared = Number(raw.headers['content-length']);
  if (raw.readableEnded || raw.destroyed || declared > bound.bytes) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', done);
      raw.off('error', done);
      raw.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > bound.bytes) {
        raw.pause();
        done();
      }
    };
    const timer = setTimeout(done, bound.ms);
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('error', done);
    raw.once('close', done);
    raw.resume();
  });
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
    const body = { success: false, error: message, message, code: 'VALIDATION' };
    // A body refused for its size is refused before it is read: read the rest first, so that the
    // client, done sending, reads the answer.
    if (fastifyStatus === 413)
      return drainRefusedBody(request.raw).then(() => {
        reply.status(413).send(body);
      });
    return reply.status(fastifyStatus).send(body);
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
