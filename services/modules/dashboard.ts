// The dashboard: figures and the activity feed, read from every aggregate's
// events. A read-side module: no aggregate of its own.
import { activityProjection } from '../../projections/dashboard/activity.js';
import { ADMIN_ONLY } from '../auth/permissions.js';
import '../dashboard/api/graphql/dashboard.js';
import { dashboardRoutes } from '../dashboard/api/rest/dashboard-routes.js';
import { defineModule } from './module.js';

const permissions = {
  'dashboard.read': ADMIN_ONLY,
  // Staff read the lines of their own companies (services/dashboard/activity.ts): the dashboard
  // stays ADMIN's, a company's activity and the live feed are read by role and staff scope.
  'activity.read': ['ADMIN', 'MODERATOR', 'USER'] as const,
};

type DashboardPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends DashboardPermissions {}
}

export const dashboardModule = defineModule({
  name: 'dashboard',
  folder: 'dashboard',
  permissions,
  projections: [activityProjection],
  routes: [dashboardRoutes],
});
