// The one permission table behind both REST and GraphQL. Screens hide what a role may not do; this
// refuses it. Spec 1 §6 and spec 2 §6 are the source; where they are silent the narrowest role wins.
import type { Role } from '../../schema/events/user.js';
import { AppError } from '../app/errors.js';
import type { RequestContext } from '../app/request-context.js';

export const ROLE_LEVEL: Record<Role, number> = { GUEST: 0, USER: 1, MODERATOR: 2, ADMIN: 3 };

const ALL: Role[] = ['ADMIN', 'MODERATOR', 'USER', 'GUEST'];
const ADMIN: Role[] = ['ADMIN'];

export const permissions = {
  'auth.register': ADMIN,
  'users.read': ADMIN,
  'users.write': ADMIN,
  'profile.read': ALL,
  'profile.write': ALL,
  'password.changeOwn': ALL,
  'dashboard.read': ADMIN,
  'health.read': ADMIN,
  'operations.read': ADMIN,
  'operations.write': ADMIN,
  'activity.read': ADMIN,
} satisfies Record<string, Role[]>;

export type Permission = keyof typeof permissions;

export interface Actor {
  id: number;
  role: Role;
  email: string;
  /** The HTTP request this actor acts through, when there is one (its commands carry it). */
  request?: RequestContext;
  /** The session the caller's access token belongs to (sign-out and password changes end it). */
  sessionId?: string;
}

/** Metadata for the commands an actor sends: who acts, and through which request. */
export function commandContext(actor: Actor | null): { userId: string | null; request?: RequestContext } {
  return { userId: actor ? String(actor.id) : null, request: actor?.request };
}

export function can(actor: Actor | null, permission: Permission): boolean {
  return actor !== null && (permissions[permission] as Role[]).includes(actor.role);
}

/** Throws 401 without a caller and 403 when the caller's role may not do this. */
export function authorize(actor: Actor | null, permission: Permission): asserts actor is Actor {
  if (!actor) throw new AppError('UNAUTHENTICATED', 'Authentication required');
  if (!can(actor, permission))
    throw new AppError('FORBIDDEN', 'You do not have permission to perform this action');
}
