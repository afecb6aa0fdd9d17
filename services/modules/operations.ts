// Health and the operations page: queues,
// consumers of the log, parked events. Reads the core's own state: no aggregate, no read model.
import { ADMIN_ONLY } from '../auth/permissions.js';
import '../operations/api/graphql/operations.js';
import '../operations/api/graphql/health.js';
import { operationsFeed } from '../operations/api/operations-feed.js';
import { auditRoutes } from '../operations/api/rest/audit-routes.js';
import { healthRoutes } from '../operations/api/rest/health-routes.js';
import { operationsRoutes } from '../operations/api/rest/operations-routes.js';
import { operationsEndpoints } from '../operations/endpoints.js';
import { defineModule } from './module.js';

const permissions = {
  'health.read': ADMIN_ONLY,
  'operations.read': ADMIN_ONLY,
  'operations.write': ADMIN_ONLY,
};

type OperationsPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends OperationsPermissions {}
}

export const operationsModule = defineModule({
  name: 'operations',
  folder: 'operations',
  permissions,
  // A retry or dismissal changes the overview: live subscribers see it at once, not at the next tick.
  endpoints: operationsEndpoints((app) => operationsFeed(app).refresh()),
  routes: [healthRoutes, operationsRoutes, auditRoutes],
});
