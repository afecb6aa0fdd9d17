// Errors the application functions raise; each transport turns the code into its status and envelope.
import { ZodError } from 'zod';
import { DomainError } from '../domain/errors.js';
import { WrongExpectedVersionError } from '../eventstore/port.js';

export type AppErrorCode =
  | 'VALIDATION'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
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
  RATE_LIMITED: 429,
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
  return new AppError('INTERNAL', 'Internal server error');
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
