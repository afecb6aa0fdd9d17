import { Navigate, useLocation } from 'react-router-dom';
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from '../../../components/ui/card';
import { useSession } from '../../../lib/auth';
import { resolveReturnPath } from '../utils/return-path';
import { LoginForm } from './login-form';

export function LoginPage() {
  const { isAuthenticated, isLoading, user } = useSession();
  const location = useLocation();

  // After success (or when already signed in): returnUrl, else where they came from, else /dashboard,
  // replacing the /login history entry.
  if (isAuthenticated && user && !isLoading) {
    return <Navigate to={resolveReturnPath(location.search, location.state)} replace />;
  }

  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-muted/50 px-4 py-12">
      <div className="mb-8 flex items-center gap-2.5" aria-hidden="true">
        <div className="flex size-9 items-center justify-center rounded-lg bg-primary text-primary-foreground">
          <span className="text-lg font-bold">B</span>
        </div>
        <span className="text-xl font-semibold tracking-tight">Billflow</span>
      </div>
      <Card className="w-full max-w-sm gap-6 shadow-md">
        <CardHeader className="gap-2 text-center">
          <CardTitle as="h1" className="text-2xl font-semibold tracking-tight">
            Sign in to Admin Dashboard
          </CardTitle>
          <CardDescription>Enter your email and password to access the admin panel</CardDescription>
        </CardHeader>
        <CardContent>
          <LoginForm />
        </CardContent>
        <CardFooter className="justify-center border-t pt-6">
          <p className="text-center text-sm text-muted-foreground">
            Need help? Contact your system administrator.
          </p>
        </CardFooter>
      </Card>
    </main>
  );
}
