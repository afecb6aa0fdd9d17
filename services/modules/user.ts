// The user aggregate: accounts, sign-in and sessions, roles, profiles, forgetting.

import { usersProjection } from '../../projections/users/users.js';
import * as userCommands from '../../schema/users/commands.js';
import { userEvents } from '../../schema/users/events.js';
import { USERS_QUEUE, usersJobHandlers, usersProcessManager } from '../../workers/users/reactions.js';
import { ADMIN_ONLY, ALL_ROLES } from '../auth/permissions.js';
import { prefetchUserChanges } from '../users/api/graphql/user.js';
import '../users/api/graphql/auth.js';
import { authRoutes } from '../users/api/rest/auth-routes.js';
import { userRoutes } from '../users/api/rest/user-routes.js';
import { userEndpoints, userInputs } from '../users/endpoints.js';
import { sessionEndpoints } from '../users/session-endpoints.js';
import { defineModule } from './module.js';

const permissions = {
  'auth.register': ADMIN_ONLY,
  'users.read': ADMIN_ONLY,
  'users.write': ADMIN_ONLY,
  'profile.read': ALL_ROLES,
  'profile.write': ALL_ROLES,
  'password.changeOwn': ALL_ROLES,
};

type UserPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends UserPermissions {}
}

export const userModule = defineModule({
  name: 'user',
  folder: 'users',
  events: userEvents,
  forgettingEvents: ['UserForgotten'],
  commands: userCommands,
  permissions,
  projections: [usersProjection],
  processManagers: [usersProcessManager],
  jobHandlers: { [USERS_QUEUE]: usersJobHandlers },
  endpoints: [...sessionEndpoints, ...userEndpoints],
  graphqlInputs: userInputs,
  routes: [authRoutes, userRoutes],
  gateway: prefetchUserChanges,
});
