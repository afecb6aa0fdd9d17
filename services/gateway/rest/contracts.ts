// The REST adapter's contract for GET /api/openapi.json (services/gateway/openapi.ts): what each
// route answers, in the spec's envelope. Bodies and queries reuse the command inputs of
// schema/<module>/commands.ts, the same zod schemas the application functions validate with.
// Answers are written once in schema/<module>/answers.ts (named ones become OpenAPI components).
// These schemas document; they do not validate inputs or shape answers (openapi.ts keeps Fastify from
// using them), so the application's own 400s and envelope stay as they are. Tests hold each answer
// to its document (openapi.ts, checkedJson).
import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { apiSchemas, named, Pagination } from '../../../schema/shared/answers.js';

export const ErrorEnvelope = named(
  'ErrorEnvelope',
  z.object({
    success: z.literal(false),
    error: z.string(),
    message: z.string(),
    code: z.enum([
      'VALIDATION',
      'UNAUTHENTICATED',
      'FORBIDDEN',
      'NOT_FOUND',
      'CONFLICT',
      'IDEMPOTENCY_MISMATCH',
      'RATE_LIMITED',
      'UNAVAILABLE',
      'INTERNAL',
    ]),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
);

export const IdParams = z.object({ id: z.string().regex(/^\d+$/).describe('User id') });

/** The success envelope around a route's data. */
export function envelope<T extends z.ZodType>(data: T, options: { paginated?: boolean } = {}) {
  return z.object({
    success: z.literal(true),
    data,
    message: z.string().optional(),
    ...(options.paginated ? { meta: z.object({ pagination: Pagination }) } : {}),
  });
}

export { apiSchemas, named, Pagination };

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input (field errors in `errors`) or a malformed body',
  401: 'No valid bearer token',
  403: 'The caller may not do this',
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'Request body is too large',
  422: 'Idempotency-Key reused for a different request',
  429: 'Too many attempts; try again later',
  500: 'Unexpected error',
  503: 'Postgres cannot be reached; Retry-After says when to try again',
};

export interface RouteDoc {
  summary: string;
  tags: string[];
  /** Needs a bearer access token ('optional': used when given). Default true. */
  auth?: boolean | 'optional';
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** The success status and its data schema. */
  status?: number;
  data?: z.ZodType;
  /** A success answered as a file rather than the envelope (the CSV export). */
  file?: { contentType: string; description: string };
  /** Request body types besides JSON (the CSV upload). */
  consumes?: string[];
  paginated?: boolean;
  /** Error statuses besides those every route can answer (500, 503 and, with auth, 401/403). */
  errors?: number[];
  description?: string;
}

/** A route's `schema` option: documentation for /api/openapi.json (see openapi.ts). */
export function routeDoc(doc: RouteDoc): FastifySchema {
  const auth = doc.auth ?? true;
  const codes = new Set([...(doc.errors ?? []), 500, 503]);
  if (auth === true) {
    codes.add(401);
    codes.add(403);
  }
  if (doc.body || doc.querystring || doc.params) codes.add(400);
  const json = (description: string, schema: z.ZodType) => ({
    description,
    content: { 'application/json': { schema } },
  });
  const response: Record<string, unknown> = {
    [doc.status ?? 200]: doc.file
      ? { description: doc.file.description, content: { [doc.file.contentType]: { schema: z.string() } } }
      : json('Success', envelope(doc.data ?? z.null(), { paginated: doc.paginated })),
  };
  for (const code of [...codes].sort()) response[code] = json(ERROR_TEXT[code] ?? 'Error', ErrorEnvelope);
  return {
    summary: doc.summary,
    tags: doc.tags,
    ...(doc.description ? { description: doc.description } : {}),
    // An empty list marks a public route; 'optional' lists both.
    security: auth === true ? [{ bearerAuth: [] }] : auth === 'optional' ? [{ bearerAuth: [] }, {}] : [],
    ...(doc.params ? { params: doc.params } : {}),
    ...(doc.querystring ? { querystring: doc.querystring } : {}),
    ...(doc.body ? { body: doc.body } : {}),
    ...(doc.consumes ? { consumes: doc.consumes } : {}),
    response,
  } as FastifySchema;
}
