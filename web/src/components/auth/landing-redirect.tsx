import { Navigate } from 'react-router-dom';
import { useSession } from '../../lib/auth';
import { landingPathFor } from '../../lib/authorization';

/** '/' and unknown paths: ADMIN to /dashboard, MODERATOR, USER and GUEST to /approvals, else /login. */
export function LandingRedirect() {
  const { user } = useSession();
  return <Navigate to={landingPathFor(user?.role)} replace />;
}
