// Roles and who may go where: the route guard's rule, the landing redirect and the
// navigation's visibility all come from here.
import type { Role } from '../types/api';

export const ROLES: readonly Role[] = ['ADMIN', 'MODERATOR', 'USER', 'GUEST'];

/** Role levels for route guarding. */
export const ROLE_LEVELS: Record<Role, number> = { GUEST: 0, USER: 1, MODERATOR: 2, ADMIN: 3 };

/** A guard takes either one required role (compared by level) or an explicit list of allowed roles. */
export type AccessRule =
  | { requiredRole: Role; allowedRoles?: undefined }
  | { allowedRoles: readonly Role[]; requiredRole?: undefined };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function hasAccess(role: Role | null | undefined, rule?: AccessRule | null): boolean {
  if (!rule) return true;
  if (!isRole(role)) return false;
  if (rule.allowedRoles) return rule.allowedRoles.includes(role);
  return ROLE_LEVELS[role] >= ROLE_LEVELS[rule.requiredRole];
}

/** Access of the route groups of the route table. */
export const ACCESS = {
  admin: { requiredRole: 'ADMIN' },
  vendors: { allowedRoles: ['ADMIN', 'MODERATOR'] },
  approvals: { allowedRoles: ['ADMIN', 'MODERATOR', 'USER'] },
} as const satisfies Record<string, AccessRule>;

/** Where the landing redirect sends a role: ADMIN to the dashboard, the others to approvals. */
export function landingPathFor(role: Role | null | undefined): string {
  if (role === 'ADMIN') return '/dashboard';
  if (role === 'MODERATOR' || role === 'USER' || role === 'GUEST') return '/approvals';
  return '/login';
}

/** The access rule of a path of the route table, or null for paths any signed-in user may see. */
export function accessRuleForPath(pathname: string): AccessRule | null {
  const first = pathname.split('/').filter(Boolean)[0] ?? '';
  if (['dashboard', 'companies', 'users', 'managers', 'operations'].includes(first)) return ACCESS.admin;
  // /bills creates approvals: the roles that may (approvals.write on the server). /bank-files: the
  // roles that see what the bank sent back (payments.read).
  if (first === 'vendors' || first === 'bills' || first === 'bank-files') return ACCESS.vendors;
  if (first === 'approvals') return ACCESS.approvals;
  return null;
}

/**
 * Where a guard sends a signed-in user whose role may not see `pathname`: /dashboard (spec), or, when
 * the dashboard is closed to them too, their landing page; null when they are already there (a GUEST
 * on /approvals), so the guard shows a notice instead of redirecting in a loop.
 */
export function deniedRedirectFor(role: Role | null | undefined, pathname: string): string | null {
  if (pathname !== '/dashboard' && hasAccess(role, accessRuleForPath('/dashboard'))) return '/dashboard';
  const landing = landingPathFor(role);
  if (landing !== pathname && landing !== '/login') return landing;
  return null;
}

export interface NavEntry {
  label: string;
  to: string;
  roles: readonly Role[];
}

/** Navigation entries and who sees them. */
export const NAV_ENTRIES: readonly NavEntry[] = [
  { label: 'Dashboard', to: '/dashboard', roles: ['ADMIN'] },
  { label: 'Companies', to: '/companies', roles: ['ADMIN'] },
  { label: 'Vendors', to: '/vendors', roles: ['ADMIN', 'MODERATOR'] },
  { label: 'Users', to: '/users', roles: ['ADMIN'] },
  { label: 'Managers', to: '/managers', roles: ['ADMIN'] },
  { label: 'Approvals', to: '/approvals', roles: ['ADMIN', 'MODERATOR', 'USER'] },
  { label: 'Bank files', to: '/bank-files', roles: ['ADMIN', 'MODERATOR'] },
  { label: 'Operations', to: '/operations', roles: ['ADMIN'] },
];

export function visibleNavEntries(role: Role | null | undefined): NavEntry[] {
  if (!isRole(role)) return [];
  return NAV_ENTRIES.filter((entry) => entry.roles.includes(role));
}

/** An entry is highlighted when the path equals its route or starts with the route and a slash. */
export function isPathActive(pathname: string, route: string): boolean {
  return pathname === route || pathname.startsWith(`${route}/`);
}
