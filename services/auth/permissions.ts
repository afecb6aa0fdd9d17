// The one permission table behind both REST and GraphQL, filled by the modules (each declares its
// own entries). Screens hide what a role may not do; this refuses it. Where the product's role
// rules are silent, the narrowest role wins.
import type { Role } from '../../schema/users/events.js';
import { AppError } from '../shared/errors.js';
import type { RequestContext } from '../shared/request-context.js';

export const ROLE_LEVEL: Record<Role, number> = { GUEST: 0, USER: 1, MODERATOR: 2, ADMIN: 3 };

/** Every role: for what anyone signed in may do. */
export const ALL_ROLES: readonly Role[] = ['ADMIN', 'MODERATOR', 'USER', 'GUEST'];
export const ADMIN_ONLY: readonly Role[] = ['ADMIN'];

/**
 * Permission → roles, one entry per permission a module declares (services/modules/<name>.ts). Each
 * module adds its names to this interface (declaration merging), so `authorize(actor, 'users.raed')`
 * does not compile; the roles themselves are registered when the module loads.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the modules' declaration merging
export interface PermissionTable {}

export type Permission = keyof PermissionTable & string;

const table = new Map<string, readonly Role[]>();

/** Adds a module's permissions. A name declared by two modules is a bug, said at load. */
export function registerPermissions(entries: Record<string, readonly Role[]>): void {
  for (const [name, roles] of Object.entries(entries)) {
    const known = table.get(name);
    if (known && known !== roles) throw new Error(`Permission ${name} is declared twice`);
    table.set(name, roles);
  }
}

/** The registered table, for docs and tests. */
export function permissionTable(): ReadonlyMap<string, readonly Role[]> {
  return table;
}

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
  const roles = table.get(permission);
  // Unregistered means its module is not loaded: a wiring bug, never a silent "no".
  if (!roles)
    throw new Error(`Unknown permission ${permission} (is its module in services/modules/index.ts?)`);
  return actor !== null && roles.includes(actor.role);
}

/** Throws 401 without a caller and 403 when the caller's role may not do this. */
export function authorize(actor: Actor | null, permission: Permission): asserts actor is Actor {
  if (!actor) throw new AppError('UNAUTHENTICATED', 'Authentication required');
  if (!can(actor, permission))
    throw new AppError('FORBIDDEN', 'You do not have permission to perform this action');
}
