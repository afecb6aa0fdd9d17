// The REST adapter's contract for GET /api/openapi.json (services/gateway/openapi.ts): what each
// route answers, in the spec's envelope. Bodies and queries reuse the command inputs of
// schema/<module>/commands.ts, the same zod schemas the application functions validate with.
// Answers are written once in schema/<module>/answers.ts (named ones become OpenAPI components).
// These schemas document; they do not validate or shape answers (openapi.ts keeps Fastify from
// using them), so the application's own 400s and envelope stay as they are.
import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { apiSchemas, named, Pagination } from '../../../schema/shared/answers.js';
import { Role } from '../../../schema/users/events.js';

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

export const User = named(
  'User',
  z.object({
    id: z.number().int(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role: Role,
    isActive: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);

export const Manager = named(
  'Manager',
  z.object({
    id: z.number().int(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    title: z.string().nullable(),
    status: z.enum(['ACTIVE', 'INACTIVE', 'SUSPENDED']),
    isActive: z.boolean(),
    userId: z.number().int().nullable(),
    user: z
      .object({
        id: z.number().int(),
        firstName: z.string().nullable(),
        lastName: z.string().nullable(),
        email: z.string(),
        role: Role,
      })
      .nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);

const Assignee = z
  .object({
    id: z.number().int(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    email: z.string(),
  })
  .nullable();

export const Company = named(
  'Company',
  z.object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    website: z.string().nullable(),
    address: z.string().nullable(),
    description: z.string().nullable(),
    industry: z.string().nullable(),
    status: z.enum(['ACTIVE', 'INACTIVE', 'SUSPENDED']),
    isActive: z.boolean(),
    qbRealmId: z.string().nullable(),
    qbConnectionStatus: z.enum(['connected', 'disconnected', 'error']).nullable(),
    qbLastRefresh: z.iso.datetime().nullable(),
    qbPaymentAccountReference: z.string().nullable(),
    managerId: z.number().int().nullable(),
    processorId: z.number().int().nullable(),
    approverId: z.number().int().nullable(),
    accountantId: z.number().int().nullable(),
    manager: Assignee,
    processor: Assignee,
    approver: Assignee,
    accountant: Assignee,
    nachaConfigured: z.boolean(),
    bankRoutingNumber: z.string().optional(),
    bankAccountNumber: z.string().optional().describe('Masked: only the last four characters show'),
    bankAccountType: z.enum(['checking', 'savings']).optional(),
    bankName: z.string().optional(),
    originatorStatusCode: z.string().optional(),
    companyTaxId: z.string().optional(),
    achCompanyId: z.string().nullable().optional(),
    immediateDestinationName: z.string().optional(),
    immediateOriginName: z.string().optional(),
    companyEntryDescription: z.string().optional(),
    companyDiscretionaryData: z.string().nullable().optional(),
    balancedFile: z.boolean().optional(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);

/** What MODERATOR and USER read of a company (spec 1 §2, §6: companies are ADMIN's). */
export const CompanyReference = named(
  'CompanyReference',
  z.object({
    id: z.number().int(),
    name: z.string(),
    qbConnectionStatus: z
      .enum(['connected', 'disconnected', 'error'])
      .nullable()
      .optional()
      .describe('MODERATOR only: the vendors page syncs a connected company'),
  }),
);

/** A company read: the whole company for ADMIN, its reference for MODERATOR and USER. */
export const CompanyRead = z
  .union([Company, CompanyReference])
  .describe(
    'ADMIN: the whole company. MODERATOR and USER: id and name (a MODERATOR also qbConnectionStatus).',
  );

export const Tokens = named('Tokens', z.object({ accessToken: z.string(), refreshToken: z.string() }));

export const UserPage = z.object({
  data: z.array(User),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  totalPages: z.number().int(),
});

export const UserStatistics = z.object({
  totalLogins: z.number().int(),
  lastLogin: z.iso.datetime().nullable(),
  companiesManaged: z.number().int(),
  approvalsCreated: z.number().int(),
});

export const OverviewStats = z.object({
  totalUsers: z.number().int(),
  activeUsers: z.number().int(),
  newUsersThisMonth: z.number().int(),
  usersByRole: z.record(Role, z.number().int()),
});

const connection = z.enum(['connected', 'disconnected']);
export const Readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  degraded: z.boolean().describe('Ready, but running without Redis'),
  database: connection,
  redis: connection,
});

const Usage = z.object({ used: z.number(), total: z.number(), percentage: z.number() });
const LogHolder = z
  .object({ pid: z.number().int(), ageSeconds: z.number(), query: z.string(), state: z.string() })
  .describe('The open transaction that holds the event log back');
export const SystemHealth = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  uptime: z.number(),
  version: z.string(),
  timestamp: z.iso.datetime(),
  database: z.object({ status: connection, responseTime: z.number().nullable() }),
  redis: z.object({ status: connection, responseTime: z.number().nullable() }),
  api: z.object({ status: z.literal('operational'), responseTime: z.number() }),
  memory: Usage,
  disk: Usage,
  parkedEvents: z.number().int().nullable(),
  logHolder: LogHolder.nullable(),
});

const ParkedEvent = z.object({
  eventId: z.string(),
  eventType: z.string(),
  position: z.string(),
  streamId: z.string(),
  error: z.string(),
  attempts: z.number().int(),
  parkedAt: z.iso.datetime(),
  retryRequested: z.boolean(),
});
export const OperationsOverview = z.object({
  generatedAt: z.iso.datetime(),
  redis: z.enum(['up', 'down']),
  queues: z.array(
    z
      .object({
        name: z.string(),
        available: z.boolean(),
        counts: z.record(z.string(), z.number()).nullable(),
      })
      .loose(),
  ),
  consumers: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['projection', 'process-manager']),
      checkpoint: z.string().nullable(),
      lagSeconds: z.number().nullable(),
      updatedAt: z.iso.datetime().nullable(),
      parked: z.array(ParkedEvent).describe('Parked and not dismissed'),
      dismissed: z
        .array(
          ParkedEvent.omit({ retryRequested: true }).extend({
            dismissedAt: z.iso.datetime(),
            dismissedBy: z.object({ id: z.number().int(), name: z.string() }).nullable(),
            reason: z.string(),
          }),
        )
        .describe('Set aside by an ADMIN, on record; newest first'),
    }),
  ),
  logHolder: LogHolder.nullable().optional(),
});

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
