// Errors the application functions raise; each transport turns the code into its status and envelope.
import { ZodError } from 'zod';
import { MAX_ROW_ID } from '../../schema/shared/ids.js';
import { DomainError } from './domain-errors.js';
import { WrongExpectedVersionError } from './version-conflict.js';

export type AppErrorCode =
  | 'VALIDATION'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  /** An Idempotency-Key reused for a different request (services/gateway/idempotency.ts). */
  | 'IDEMPOTENCY_MISMATCH'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

export interface FieldError {
  field: string;
  message: string;
}

export const STATUS: Record<AppErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_MISMATCH: 422,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

export class AppError extends Error {
  constructor(
    public readonly code: AppErrorCode,
    message: string,
    public readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'AppError';
  }
  get status() {
    return STATUS[this.code];
  }
}

export const DATABASE_UNAVAILABLE =
  'Service temporarily unavailable: the database cannot be reached. Please try again shortly.';

// Socket errors, and Postgres's own 'connection exception' (08…) and shutdown (57P01–57P03) codes.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
]);
// What pg says when a connection dies, or the pool cannot get one in connectionTimeoutMillis.
const CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly)/;

/** True when the error means the database (or its network) cannot be reached right now. */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isConnectionError(x, depth + 1))) return true;
  return isConnectionError(e.cause, depth + 1);
}

/** Normalises anything thrown below the transports. Unknown errors become a bare INTERNAL. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) {
    const fieldErrors = err.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
    return new AppError('VALIDATION', fieldErrors[0]?.message ?? 'Invalid input', fieldErrors);
  }
  if (err instanceof DomainError) {
    return new AppError(err.code === 'VALIDATION' ? 'VALIDATION' : err.code, err.message);
  }
  if (err instanceof WrongExpectedVersionError) {
    return new AppError(
      'CONFLICT',
      'The record was changed by someone else at the same time. Please try again.',
    );
  }
  if (isConnectionError(err)) return new AppError('UNAVAILABLE', DATABASE_UNAVAILABLE);
  return new AppError('INTERNAL', 'Internal server error');
}

/** An id from a path or a body (digits, or a number) that can name a row; else NOT_FOUND, `notFound`. */
export function parseRowId(id: unknown, notFound: string): number {
  const n = typeof id === 'number' ? id : /^\d{1,10}$/.test(String(id)) ? Number(id) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0 || n > MAX_ROW_ID) throw new AppError('NOT_FOUND', notFound);
  return n;
}

/** Validates input with a zod schema, throwing a VALIDATION AppError with every field's message. */
export function parseInput<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: ZodError } },
  input: unknown,
): T {
  const r = schema.safeParse(input ?? {});
  if (!r.success) throw toAppError(r.error);
  return r.data;
}
