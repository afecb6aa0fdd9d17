import { Navigate, useLocation } from 'react-router-dom';
import { useSession } from '../../../lib/auth';
import { resolveReturnPath } from '../utils/return-path';
import { LoginScreen } from './login-screen';

export function LoginPage() {
  const { isAuthenticated, isLoading, user } = useSession();
  const location = useLocation();

  // After success (or when already signed in): returnUrl, else where they came from, else /dashboard,
  // replacing the /login history entry.
  if (isAuthenticated && user && !isLoading) {
    return <Navigate to={resolveReturnPath(location.search, location.state)} replace />;
  }

  return <LoginScreen />;
}
