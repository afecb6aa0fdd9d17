// What a module is: everything one aggregate (or one read-side area, such as the dashboard) adds to
// the product, declared in one file. Its code lives in one folder per floor: schema/<module>/
// (contracts), projections/<module>/ (read models), services/<module>/ (deciders and use cases),
// workers/<module>/ (reactions and jobs). services/modules/index.ts lists the modules; every registry
// (events, permissions, read models, process managers, job handlers, GraphQL types, REST routes)
// is derived from that list, so adding an aggregate is one new module file and one line there
// (recipe: docs/ARCHITECTURE.md, "Recipe: adding a module").
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { z } from 'zod';
import type { AnyProjection } from '../../projections/projection.js';
import type { EventDefinition } from '../../schema/shared/events.js';
import type { Role } from '../../schema/users/events.js';
import type { JobHandler, ProcessManager } from '../../workers/process-manager.js';
import type { AppServices } from '../app/context.js';
import type { AnyEndpoint, GraphQLInputDeclaration } from '../app/endpoints.js';
import type { LiveBus } from '../gateway/live.js';
import type { RestDeps } from '../gateway/rest/deps.js';

export interface Module {
  /** Unique, lower case: names the module in errors and docs. */
  name: string;
  /**
   * Its folder under schema/, projections/, services/, workers/ and web/src/features/ (plural, as the
   * folders are). None: a platform service that every module may use (mail).
   */
  folder?: string;
  /** Its event types (schema/<module>/events.ts): version, zod schema, upcasters, personal fields. */
  events?: Record<string, EventDefinition>;
  /** Event types after which a subject's data key is gone (forgetting a subject). */
  forgettingEvents?: readonly string[];
  /**
   * The input contracts of its commands (schema/<module>/commands.ts), by name. REST bodies and
   * GraphQL arguments validate with these; a test holds every one to the input rules (string caps).
   */
  commands?: Record<string, z.ZodType>;
  /** Who may do what: permission → roles. The one table behind REST and GraphQL (services/auth). */
  permissions?: Record<string, readonly Role[]>;
  /**
   * Its read models (projections/<module>/): the projector runs each with its own checkpoint. Their
   * tables are typed in projections/<module>/ and composed in projections/database.ts.
   */
  projections?: readonly AnyProjection[];
  /** Its reactions to events (workers/<module>/): events → BullMQ jobs. */
  processManagers?: readonly ProcessManager[];
  /** Jobs of its queues that repeat on their own (BullMQ job schedulers, one id each). */
  schedules?: ReadonlyArray<{ queue: string; name: string; every: number }>;
  /** Job handlers of its queues: queue name → job name → handler. The worker role consumes these. */
  jobHandlers?: Record<string, Record<string, JobHandler>>;
  /**
   * Its commands, each declared once (services/<module>/endpoints.ts): the gateway makes each one's
   * REST route, GraphQL mutation and OpenAPI entry from the declaration.
   */
  endpoints?: readonly AnyEndpoint[];
  /** The GraphQL input objects its declarations name (built before the mutations). */
  graphqlInputs?: readonly GraphQLInputDeclaration[];
  /** Its other REST routes (services/<module>/api/rest/), documented in /api/openapi.json. */
  routes?: ReadonlyArray<(server: FastifyInstance, deps: RestDeps) => void>;
  /** Creates what its commands need beside the log (an id sequence), under the start-up lock. */
  storage?: (pool: pg.Pool) => Promise<void>;
  /** Runs once per gateway: e.g. read rows for live pushes as soon as their change notice arrives. */
  gateway?: (live: LiveBus, app: AppServices) => void;
}

/**
 * Declares a module. GraphQL types are not listed: each file in services/<module>/api/graphql
 * registers itself on the Pothos builder when imported, so the module file imports its type files.
 */
export function defineModule(module: Module): Module {
  return module;
}
