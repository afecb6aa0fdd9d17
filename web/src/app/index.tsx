import { lazy, Suspense, useEffect, useState } from 'react';
import { Button } from '../components/ui/button';
import { LoadingState } from '../components/ui/spinner';
import { useToasts } from '../components/ui/use-toast';
import { LoginScreen } from '../features/auth/components/login-screen';
import { useSession } from '../lib/auth';
import { sessionStore } from '../lib/session-store';
import type { AppRouter } from './routing';

// The toast renderer (Radix) stays out of the first bundle: it loads when the browser is idle, or
// at the latest with the first toast.
const loadToaster = () => import('../components/ui/toaster');
const Toaster = lazy(loadToaster);

function whenIdle(run: () => void): () => void {
  if (window.requestIdleCallback) {
    const handle = window.requestIdleCallback(run, { timeout: 2000 });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = window.setTimeout(run, 1500);
  return () => window.clearTimeout(handle);
}

function LazyToaster() {
  const toasts = useToasts();
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    if (toasts.length > 0) setWanted(true);
  }, [toasts.length]);
  useEffect(
    () =>
      whenIdle(() => {
        void loadToaster().then(() => setWanted(true));
      }),
    [],
  );
  if (!wanted && toasts.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}

// react-router and the route table (with the shell and every screen behind it) are a chunk of their
// own: a signed-out visit to /login paints and runs the sign-in form without them, which keeps the
// JS of /login small. Every other page load starts fetching the chunk at once.
let routerModule: Promise<typeof import('./routing')> | null = null;
const loadRouter = () => {
  routerModule ??= import('./routing').catch((err: unknown) => {
    routerModule = null; // a later attempt may succeed (e.g. the network came back)
    throw err;
  });
  return routerModule;
};
const startsAtLogin = window.location.pathname === '/login';
if (!startsAtLogin) void loadRouter().catch(() => {});

/** Shown when the router chunk cannot load (offline, or the chunk vanished after a deploy). */
function LoadError() {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-4 px-4 text-center">
      <h1 className="text-xl font-semibold tracking-tight">Something went wrong</h1>
      <p className="max-w-md text-sm text-muted-foreground">The application could not be loaded.</p>
      <Button onClick={() => window.location.reload()}>Reload page</Button>
    </main>
  );
}

interface Loaded {
  router: AppRouter;
  AppRoutes: typeof import('./routing')['AppRoutes'];
}

function Screens() {
  const { isAuthenticated } = useSession();
  // Signed out on /login: the sign-in screen alone until a session exists (then LoginPage, inside
  // the router, sends the user on exactly as before). Decided once, at the first render.
  const [signInFirst] = useState(() => startsAtLogin && !sessionStore.getState().isAuthenticated);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [failed, setFailed] = useState(false);
  const routerNeeded = !signInFirst || isAuthenticated;

  useEffect(() => {
    if (loaded) return;
    // Not needed yet: fetch it while the user types, so that signing in does not wait for it.
    if (!routerNeeded) return whenIdle(() => void loadRouter().catch(() => {}));
    let live = true;
    loadRouter().then(
      (m) => live && setLoaded({ router: m.createAppRouter(), AppRoutes: m.AppRoutes }),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [loaded, routerNeeded]);

  if (loaded) return <loaded.AppRoutes router={loaded.router} />;
  if (failed) return <LoadError />;
  // The sign-in screen stays up while the router arrives after a successful sign-in.
  if (signInFirst) return <LoginScreen />;
  return <LoadingState className="min-h-dvh" />;
}

export function App() {
  return (
    <>
      <Screens />
      <LazyToaster />
    </>
  );
}
