// The sign-in screen itself, without the router: the app paints it on a signed-out load of /login
// before react-router and the route table have loaded (app/index.tsx); LoginPage wraps it in routes.
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from '../../../components/ui/card';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { LoginForm } from './login-form';

export function LoginScreen() {
  useDocumentTitle('Sign in');
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
