// A command declared once: its name, permission, staff-scope rule, input contract, use case, and how
// each transport reaches it (the spec's REST method and path, the GraphQL mutation's name and
// arguments). The gateway makes the REST route, the GraphQL mutation and the OpenAPI entry from it;
// idempotency and error mapping are the gateway's, the same for every declaration. A module lists
// its declarations in services/<module>/endpoints.ts (decision 0037).
//
// Transport-neutral on purpose: zod and type names only, so a module's declarations sit on the
// module's floor and the gateway above reads them (imports run downhill).
import type { z } from 'zod';
import type { Actor, Permission } from '../auth/permissions.js';
import type { AppServices } from './context.js';

/**
 * A GraphQL type as the printed schema writes it: `String!`, `[String!]!`, `Int`, `Approval!`. Named
 * types are looked up on the schema builder by name, so the object, enum or input type must exist.
 */
export type GraphQLTypeName = string;

/** A GraphQL argument or input field: its type, or its type and description. */
export type GraphQLArg = GraphQLTypeName | { type: GraphQLTypeName; description?: string };

/** What a REST request gives a declaration to build its input from. */
export interface RestRequest {
  params: Record<string, string>;
  body: unknown;
  query: unknown;
}

/** Where the call came from, for the few commands that record or need it (sign-in, OAuth connect). */
export interface Caller {
  /** The client's address as the gateway trusts it. */
  ip: string | null;
  /** The address the request came to (`http://host:port`). */
  origin: string | null;
}

export interface CommandEndpoint<Input = unknown, Result = unknown> {
  /** The command, as the domain names it (ApproveApproval). */
  name: string;
  /**
   * Checked first, by the gateway, for either transport (the use case checks it again). 'public':
   * no caller needed (signing in, a refresh); the use case is the whole check.
   */
  permission: Permission | 'public';
  /** Which records the caller may touch beyond the permission, in words; the use case holds to it. */
  scope: string;
  /**
   * false: an Idempotency-Key never replays this command's answer (a credential exchange, whose
   * answer is fresh tokens). Every other command's retry with the same key gets the first answer.
   */
  replayed?: false;
  /** The use case: validates its input with the command's zod contract and appends the events. */
  run(app: AppServices, actor: Actor | null, input: Input, caller: Caller): Promise<Result>;
  rest: {
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    /** As the spec gives it, with Fastify's `:param` segments. */
    path: string;
    input(request: RestRequest): Input;
    /** The envelope's data (default: the result as it is). */
    answer?(result: Result, actor: Actor | null): unknown;
    /** The success status (default 200) and the envelope's message (fixed, or the result's). */
    status?: number;
    message?: string | ((result: Result) => string);
    /** What /api/openapi.json says: the path's parameters, the body (the zod command schema), the data. */
    doc: {
      summary: string;
      description?: string;
      tags: string[];
      params?: z.ZodType;
      querystring?: z.ZodType;
      body?: z.ZodType;
      data: z.ZodType;
      /** Error statuses besides those every route can answer. */
      errors?: number[];
      /** Public routes document no bearer token (false), or one used when given ('optional'). */
      auth?: false | 'optional';
    };
    /** Refusals this route answers in an envelope of its own (the e-mail links' refusals). */
    refusal?: RestRefusal;
  };
  /** None: a REST-only command (the spec's path, no GraphQL twin yet). */
  graphql?: {
    /** The mutation's field name (approveApproval). */
    name: string;
    args: Record<string, GraphQLArg>;
    returns: GraphQLTypeName;
    input(args: Record<string, unknown>): Input;
    /** The field's value (default: the result as it is). */
    answer?(result: Result): unknown;
    description?: string;
  };
}

/** Most commands act on one record: the path's `:id` and the body, as their routes give them. */
export interface WithId {
  id: unknown;
  body: unknown;
}
export const byId = (r: Pick<RestRequest, 'params' | 'body'>): WithId => ({ id: r.params.id, body: r.body });

/**
 * Refusals a route answers in an envelope the spec gives it rather than the usual one: which errors,
 * their body, and how the OpenAPI document shows them.
 */
export interface RestRefusal {
  /** The status and body for an error of this kind; null for any other (the usual envelope). */
  answer(err: unknown): { status: number; body: unknown } | null;
  /** The envelope's zod schema, documented for these statuses. */
  envelope: z.ZodType;
  statuses: number[];
  description: string;
}

/**
 * A GraphQL input object a module's mutations take, declared beside them: its fields in the order
 * they print. The gateway builds it before the mutations that name it.
 */
export interface GraphQLInputDeclaration {
  name: string;
  fields: Record<string, GraphQLArg>;
  description?: string;
}

/** Declares a command's endpoints (typed by its use case; the registry holds them as `AnyEndpoint`). */
export function declareCommand<Input, Result>(endpoint: CommandEndpoint<Input, Result>): AnyEndpoint {
  return endpoint as unknown as AnyEndpoint;
}

export type AnyEndpoint = CommandEndpoint<any, any>;

/** GraphQL drops nothing itself: optional inputs sent as null become absent, so zod defaults apply. */
export function withoutNulls<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(input).filter(([, v]) => v !== null && v !== undefined),
  ) as Partial<T>;
}
