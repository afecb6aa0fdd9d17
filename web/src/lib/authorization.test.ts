import { describe, expect, it } from 'vitest';
import {
  deniedRedirectFor,
  hasAccess,
  isPathActive,
  landingPathFor,
  ROLE_LEVELS,
  visibleNavEntries,
} from './authorization';

describe('hasAccess', () => {
  it('compares a required role by level (GUEST 0, USER 1, MODERATOR 2, ADMIN 3)', () => {
    expect(ROLE_LEVELS).toEqual({ GUEST: 0, USER: 1, MODERATOR: 2, ADMIN: 3 });
    expect(hasAccess('ADMIN', { requiredRole: 'MODERATOR' })).toBe(true);
    expect(hasAccess('MODERATOR', { requiredRole: 'MODERATOR' })).toBe(true);
    expect(hasAccess('USER', { requiredRole: 'MODERATOR' })).toBe(false);
    expect(hasAccess('GUEST', { requiredRole: 'GUEST' })).toBe(true);
  });
  it('checks membership for an explicit list', () => {
    expect(hasAccess('MODERATOR', { allowedRoles: ['ADMIN', 'MODERATOR'] })).toBe(true);
    expect(hasAccess('USER', { allowedRoles: ['ADMIN', 'MODERATOR'] })).toBe(false);
    // A list is not a hierarchy: ADMIN is refused when not listed.
    expect(hasAccess('ADMIN', { allowedRoles: ['USER'] })).toBe(false);
  });
  it('refuses a missing or unknown role and allows anything without a rule', () => {
    expect(hasAccess(null, { requiredRole: 'GUEST' })).toBe(false);
    expect(hasAccess('ROOT' as never, { allowedRoles: ['ADMIN'] })).toBe(false);
    expect(hasAccess('GUEST', null)).toBe(true);
  });
});

describe('landing and denied redirects', () => {
  it('lands ADMIN on /dashboard, the other roles on /approvals, no role on /login', () => {
    expect(landingPathFor('ADMIN')).toBe('/dashboard');
    expect(landingPathFor('MODERATOR')).toBe('/approvals');
    expect(landingPathFor('USER')).toBe('/approvals');
    expect(landingPathFor('GUEST')).toBe('/approvals');
    expect(landingPathFor(null)).toBe('/login');
    expect(landingPathFor(undefined)).toBe('/login');
  });
  it('sends an insufficient role to /dashboard, or to its landing page when the dashboard is closed too', () => {
    expect(deniedRedirectFor('ADMIN', '/somewhere')).toBe('/dashboard');
    expect(deniedRedirectFor('MODERATOR', '/users')).toBe('/approvals');
    expect(deniedRedirectFor('USER', '/vendors')).toBe('/approvals');
    expect(deniedRedirectFor('USER', '/dashboard')).toBe('/approvals');
  });
  it('never loops: a GUEST goes to /approvals, and stays there (with a notice)', () => {
    expect(deniedRedirectFor('GUEST', '/dashboard')).toBe('/approvals');
    expect(deniedRedirectFor('GUEST', '/users')).toBe('/approvals');
    expect(deniedRedirectFor('GUEST', '/approvals')).toBeNull();
  });
});

describe('navigation', () => {
  const labels = (role: Parameters<typeof visibleNavEntries>[0]) =>
    visibleNavEntries(role).map((e) => e.label);
  it('shows each role its entries', () => {
    expect(labels('ADMIN')).toEqual([
      'Dashboard',
      'Companies',
      'Vendors',
      'Users',
      'Managers',
      'Approvals',
      'Bank files',
      'Operations',
    ]);
    expect(labels('MODERATOR')).toEqual(['Vendors', 'Approvals', 'Bank files']);
    expect(labels('USER')).toEqual(['Approvals']);
    expect(labels('GUEST')).toEqual([]);
    expect(labels(null)).toEqual([]);
  });
  it('highlights the route itself and its sub-paths only', () => {
    expect(isPathActive('/companies', '/companies')).toBe(true);
    expect(isPathActive('/companies/12/edit', '/companies')).toBe(true);
    expect(isPathActive('/companies-archive', '/companies')).toBe(false);
    expect(isPathActive('/users', '/companies')).toBe(false);
  });
});
