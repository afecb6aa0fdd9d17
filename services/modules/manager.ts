// Managers: contact records an ADMIN keeps, each linked to at most one user account.
// Every company is assigned one.
import type pg from 'pg';
import { managersProjection } from '../../projections/managers/managers.js';
import * as managerCommands from '../../schema/managers/commands.js';
import { managerEvents } from '../../schema/managers/events.js';
import { ADMIN_ONLY } from '../auth/permissions.js';
import '../managers/api/graphql/manager.js';
import { managerRoutes } from '../managers/api/rest/manager-routes.js';
import { managerEndpoints, managerInputs } from '../managers/endpoints.js';
import { MANAGER_IDS_SEQUENCE } from '../managers/managers.js';
import { defineModule } from './module.js';

// The managers screens are ADMIN's; the server holds the API to the same.
const permissions = {
  'managers.read': ADMIN_ONLY,
  'managers.write': ADMIN_ONLY,
};

type ManagerPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends ManagerPermissions {}
}

export const managerModule = defineModule({
  name: 'manager',
  folder: 'managers',
  events: managerEvents,
  commands: managerCommands,
  permissions,
  projections: [managersProjection],
  endpoints: managerEndpoints,
  graphqlInputs: managerInputs,
  routes: [managerRoutes],
  storage: async (pool: pg.Pool) => {
    await pool.query(`CREATE SEQUENCE IF NOT EXISTS ${MANAGER_IDS_SEQUENCE}`);
  },
});
