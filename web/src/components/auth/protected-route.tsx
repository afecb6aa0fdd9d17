// The route guard: 'Loading...' while the session resolves, /login (remembering where
// the user was going) without a session, /dashboard when the role is insufficient.
import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { useSession } from '../../lib/auth';
import { type AccessRule, deniedRedirectFor, hasAccess } from '../../lib/authorization';
import type { Role } from '../../types/api';
import { LoadingState } from '../ui/spinner';
import { AccessDenied } from './access-denied';

export type ProtectedRouteProps = { children?: ReactNode } & (
  | { requiredRole?: Role; allowedRoles?: undefined }
  | { allowedRoles: readonly Role[]; requiredRole?: undefined }
);

export function ruleOf(props: Pick<ProtectedRouteProps, 'requiredRole' | 'allowedRoles'>): AccessRule | null {
  if (props.allowedRoles) return { allowedRoles: props.allowedRoles };
  if (props.requiredRole) return { requiredRole: props.requiredRole };
  return null;
}

export function FullPageLoading() {
  return <LoadingState className="min-h-dvh" />;
}

export function ProtectedRoute(props: ProtectedRouteProps) {
  const { isLoading, isAuthenticated, user } = useSession();
  const location = useLocation();

  if (isLoading) return <FullPageLoading />;
  if (!isAuthenticated || !user) return <Navigate to="/login" replace state={{ from: location }} />;

  if (!hasAccess(user.role, ruleOf(props))) {
    const target = deniedRedirectFor(user.role, location.pathname);
    if (target) return <Navigate to={target} replace />;
    return <AccessDenied />;
  }
  return <>{props.children ?? <Outlet />}</>;
}
