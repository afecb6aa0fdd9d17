// Every module of the product, and the registries derived from them. Adding an aggregate: write
// services/modules/<name>.ts and add it to `modules` below (recipe: docs/ARCHITECTURE.md). Loading
// this file registers the modules' events and permissions; every entry point imports it (main.ts
// through the projector, gateway and worker registries; tools and tests directly).
//
// Nothing a module imports may import this file back: the registries below are computed while it
// loads (a test checks the import graph: services/modules/modules.unit.test.ts).

import type { AnyProjection } from '../../projections/projection.js';
import { registerEvents } from '../../schema/shared/events.js';
import type { JobHandler, ProcessManager } from '../../workers/process-manager.js';
import { registerPermissions } from '../auth/permissions.js';
import { approvalModule } from './approval.js';
import { companyModule } from './company.js';
import { dashboardModule } from './dashboard.js';
import { mailModule } from './mail.js';
import { managerModule } from './manager.js';
import type { Module } from './module.js';
import { operationsModule } from './operations.js';
import { paymentModule } from './payment.js';
import { userModule } from './user.js';
import { vendorModule } from './vendor.js';

export const modules = [
  userModule,
  managerModule,
  companyModule,
  vendorModule,
  approvalModule,
  paymentModule,
  dashboardModule,
  operationsModule,
  mailModule,
] as const;

for (const m of modules as readonly Module[]) {
  if (m.events) registerEvents(m.events, m.forgettingEvents);
  if (m.permissions) registerPermissions(m.permissions);
}

function unique<T>(items: T[], nameOf: (item: T) => string, what: string): T[] {
  const seen = new Set<string>();
  for (const item of items) {
    const name = nameOf(item);
    if (seen.has(name)) throw new Error(`Two modules declare the ${what} ${name}`);
    seen.add(name);
  }
  return items;
}

const all = modules as readonly Module[];

/** Every read model the projector runs. Order does not matter: each has its own checkpoint. */
export const projections: AnyProjection[] = unique(
  all.flatMap((m) => m.projections ?? []),
  (p) => p.name,
  'projection',
);

/** Every process manager the projector runs (each checkpointed as `pm:<name>`). */
export const processManagers: ProcessManager[] = unique(
  all.flatMap((m) => m.processManagers ?? []),
  (p) => p.name,
  'process manager',
);

/** Job handlers per queue and job name; the worker role consumes these queues. */
export const jobHandlers: Record<string, Record<string, JobHandler>> = Object.fromEntries(
  unique(
    all.flatMap((m) => Object.entries(m.jobHandlers ?? {})),
    ([queue]) => queue,
    'queue',
  ),
);

/** The modules' repeating jobs, each on a queue of its own module. */
export const schedules = unique(
  all.flatMap((m) => m.schedules ?? []),
  (s) => `${s.queue}/${s.name}`,
  'schedule',
);

/** What the modules' commands need beside the log, created at start-up (services/main.ts). */
export const storageSetups = all.flatMap((m) => (m.storage ? [m.storage] : []));

/** Every REST route group, in module order. */
export const routeGroups = all.flatMap((m) => m.routes ?? []);

/**
 * Every declared command: its REST route and GraphQL mutation are made from it. No two share a name,
 * a mutation or a method and path.
 */
export const commandEndpoints = unique(
  unique(
    unique(
      all.flatMap((m) => m.endpoints ?? []),
      (e) => e.name,
      'command',
    ),
    (e) => e.graphql?.name ?? `(REST only) ${e.name}`,
    'mutation',
  ),
  (e) => `${e.rest.method} ${e.rest.path}`,
  'route',
);

/** The GraphQL input objects the declarations name. */
export const graphqlInputs = unique(
  all.flatMap((m) => m.graphqlInputs ?? []),
  (i) => i.name,
  'GraphQL input',
);

/** Per-gateway start-up hooks of the modules. */
export const gatewayHooks = all.flatMap((m) => (m.gateway ? [m.gateway] : []));

/** Every command input contract, by module and command name (the input-rules test walks these). */
export const commandContracts = all.flatMap((m) =>
  Object.entries(m.commands ?? {}).map(([name, schema]) => ({ module: m.name, name, schema })),
);
