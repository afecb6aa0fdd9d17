// Error messages. Every failed call becomes an ApiError whose message was built by
// buildErrorMessage: errors, message, error.message, error, then the caller's fallback.
import type { ApiEnvelope } from '../types/api';

export const DEFAULT_ERROR_MESSAGE = 'An error occurred';

export type ApiErrorKind = 'http' | 'network' | 'timeout';

export class ApiError extends Error {
  /** HTTP status, or null when no response arrived (network failure or time-out). */
  readonly status: number | null;
  readonly body: ApiEnvelope | null;
  readonly kind: ApiErrorKind;

  constructor(
    message: string,
    options: { status?: number | null; body?: ApiEnvelope | null; kind?: ApiErrorKind } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = options.status ?? null;
    this.body = options.body ?? null;
    this.kind = options.kind ?? (this.status === null ? 'network' : 'http');
  }

  /** No response at all: the server could not be reached or did not answer in time. */
  get isNoResponse() {
    return this.status === null;
  }

  /** Per-field validation messages of a 400 answer, by field name. */
  get fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.body?.errors ?? []) {
      if (typeof e === 'object' && e && 'field' in e && !(e.field in out)) out[e.field] = e.message;
    }
    return out;
  }
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** First match wins: errors, message, error.message, error, then the fallback. */
export function buildErrorMessage(body: unknown, fallback: string = DEFAULT_ERROR_MESSAGE): string {
  if (!body || typeof body !== 'object') return fallback;
  const b = body as Record<string, unknown>;
  if (Array.isArray(b.errors) && b.errors.length > 0) {
    const parts = b.errors
      .map((e) =>
        typeof e === 'string' ? e : e && typeof e === 'object' ? (e as { message?: unknown }).message : null,
      )
      .filter(nonEmpty);
    if (parts.length > 0) return parts.join(', ');
  }
  if (nonEmpty(b.message)) return b.message;
  if (b.error && typeof b.error === 'object' && nonEmpty((b.error as { message?: unknown }).message)) {
    return (b.error as { message: string }).message;
  }
  if (nonEmpty(b.error)) return b.error;
  return fallback;
}

/** The message to show for any thrown value. */
export function errorMessageOf(error: unknown, fallback: string = DEFAULT_ERROR_MESSAGE): string {
  if (error instanceof Error && nonEmpty(error.message)) return error.message;
  if (nonEmpty(error)) return error;
  return fallback;
}

export const LOGIN_MESSAGES = {
  invalidCredentials: 'Invalid email or password. Please check your credentials and try again.',
  noResponse: 'Unable to connect to the server. Please check your internet connection and try again.',
  serverError: 'Server error occurred. Please try again later.',
  tooManyAttempts: 'Too many login attempts. Please wait a few minutes before trying again.',
  fallback: 'Login failed. Please try again.',
  /** A 2xx answer without success or tokens. */
  unsuccessful: 'Login failed',
} as const;

/** The sign-in screen's message for a failed attempt. */
export function loginErrorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.isNoResponse) return LOGIN_MESSAGES.noResponse;
    if (error.status === 401) return LOGIN_MESSAGES.invalidCredentials;
    if (error.status === 429) return LOGIN_MESSAGES.tooManyAttempts;
    if (error.status !== null && error.status >= 500) return LOGIN_MESSAGES.serverError;
    // An answer without success (but no failure status) gives 'Login failed'.
    if (error.status !== null && error.status < 300)
      return buildErrorMessage(error.body, LOGIN_MESSAGES.unsuccessful);
    const server = error.body ? buildErrorMessage(error.body, '') : '';
    return server || LOGIN_MESSAGES.fallback;
  }
  return errorMessageOf(error, LOGIN_MESSAGES.fallback);
}
