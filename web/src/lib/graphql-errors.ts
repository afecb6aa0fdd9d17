// A failed GraphQL call as the same ApiError a REST call gives (errors.ts), so screens show the same
// texts: the server's message (services/gateway/graphql/errors.ts puts the application error's
// message, code, HTTP status and field errors on the GraphQL error), the field messages joined as
// the REST envelope's `errors` were, and the time-out / no-answer texts of authFetch.
//
// Usage: `throw toApiError(result.error, 'Failed to fetch managers')` — or let use-graphql.ts do it.
import type { CombinedError } from 'urql';
import type { ApiEnvelope, FieldError } from '../types/api';
import { ApiError, buildErrorMessage } from './errors';

/** What Yoga answers for an error it masked (anything not an application error). */
const MASKED = 'Unexpected error.';
/** The REST envelope's text for the same case (services/app/errors.ts). */
const INTERNAL = 'Internal server error';

interface ErrorExtensions {
  code?: string;
  http?: { status?: number };
  fieldErrors?: FieldError[];
}

export function toApiError(error: CombinedError, fallback?: string): ApiError {
  const network = error.networkError;
  if (network) {
    // authFetch's own failures (time-out, refused refresh) are ApiErrors already.
    if (network instanceof ApiError) return network;
    const status = (error.response as Response | undefined)?.status ?? null;
    if (status !== null && status >= 400) {
      return new ApiError(buildErrorMessage(null, fallback), { status });
    }
    return new ApiError(network.message || 'Network error', { kind: 'network' });
  }
  const first = error.graphQLErrors[0];
  const ext = (first?.extensions ?? {}) as ErrorExtensions;
  const masked = !ext.code && (first?.message === MASKED || !first?.message);
  const message = masked ? INTERNAL : (first?.message ?? '');
  const body: ApiEnvelope & { code?: string } = {
    success: false,
    error: message,
    message,
    code: ext.code ?? 'INTERNAL',
    ...(ext.fieldErrors?.length ? { errors: ext.fieldErrors } : {}),
  };
  const status = ext.http?.status ?? (masked ? 500 : statusOfCode(ext.code));
  return new ApiError(buildErrorMessage(body, fallback), { status, body });
}

const STATUS_BY_CODE: Record<string, number> = {
  VALIDATION: 400,
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_MISMATCH: 422,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
};

function statusOfCode(code: string | undefined): number {
  return (code && STATUS_BY_CODE[code]) || 500;
}
