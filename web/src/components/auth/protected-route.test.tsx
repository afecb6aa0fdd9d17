import { act, cleanup, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionStore } from '../../lib/session-store';
import { sampleUser } from '../../testing/fetch-mock';
import type { Role } from '../../types/api';
import { LandingRedirect } from './landing-redirect';
import { ProtectedRoute } from './protected-route';

function Where() {
  const location = useLocation();
  const from = (location.state as { from?: { pathname: string } } | null)?.from?.pathname;
  return (
    <p>
      at {location.pathname}
      {from ? ` from ${from}` : ''}
    </p>
  );
}

function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      { path: '/login', element: <Where /> },
      {
        path: '/',
        element: <ProtectedRoute />,
        children: [
          { index: true, element: <LandingRedirect /> },
          {
            element: <ProtectedRoute requiredRole="ADMIN" />,
            children: [{ path: 'dashboard', element: <Where /> }],
          },
          {
            element: <ProtectedRoute allowedRoles={['ADMIN', 'MODERATOR']} />,
            children: [{ path: 'vendors', element: <Where /> }],
          },
          {
            element: <ProtectedRoute allowedRoles={['ADMIN', 'MODERATOR', 'USER']} />,
            children: [{ path: 'approvals', element: <Where /> }],
          },
          { path: '*', element: <LandingRedirect /> },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  render(<RouterProvider router={router} />);
  return router;
}

const signIn = (role: Role) => sessionStore.setUser({ ...sampleUser, role });

beforeEach(() => {
  localStorage.clear();
  sessionStore.clear();
});
afterEach(cleanup);

describe('route guard', () => {
  it('shows "Loading..." while the session resolves', () => {
    sessionStore.startLoading();
    renderAt('/dashboard');
    expect(screen.getByRole('status').textContent).toContain('Loading...');
    act(() => signIn('ADMIN'));
    expect(screen.getByText('at /dashboard')).toBeTruthy();
  });

  it('sends a visitor without a session to /login, remembering the origin', () => {
    renderAt('/vendors');
    expect(screen.getByText('at /login from /vendors')).toBeTruthy();
  });

  it('lets an allowed role in, by level or by list', () => {
    signIn('MODERATOR');
    renderAt('/vendors');
    expect(screen.getByText('at /vendors')).toBeTruthy();
  });

  it('sends an insufficient role to /dashboard (or, when that is closed too, to the landing page)', () => {
    signIn('ADMIN');
    const router = renderAt('/dashboard');
    expect(router.state.location.pathname).toBe('/dashboard');
    cleanup();
    signIn('USER');
    renderAt('/vendors');
    expect(screen.getByText('at /approvals')).toBeTruthy();
  });

  it('shows a notice instead of looping for a GUEST', () => {
    signIn('GUEST');
    const router = renderAt('/dashboard');
    expect(router.state.location.pathname).toBe('/approvals');
    expect(screen.getByRole('heading', { name: 'Access restricted' })).toBeTruthy();
  });

  it.each([
    ['ADMIN', '/dashboard'],
    ['MODERATOR', '/approvals'],
    ['USER', '/approvals'],
  ] as const)('lands %s on %s from / and from unknown paths', (role, target) => {
    signIn(role);
    renderAt('/');
    expect(screen.getByText(`at ${target}`)).toBeTruthy();
    cleanup();
    renderAt('/no/such/page');
    expect(screen.getByText(`at ${target}`)).toBeTruthy();
  });
});
