import { lazy, Suspense, useEffect, useState } from 'react';
import { RouterProvider } from 'react-router-dom';
import { useToasts } from '../components/ui/use-toast';
import { createAppRouter } from './router';

// The toast renderer (Radix) stays out of the first bundle: it loads when the browser is idle, or
// at the latest with the first toast.
const loadToaster = () => import('../components/ui/toaster');
const Toaster = lazy(loadToaster);

function LazyToaster() {
  const toasts = useToasts();
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    if (toasts.length > 0) setWanted(true);
  }, [toasts.length]);
  useEffect(() => {
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 1500));
    idle(() => {
      void loadToaster().then(() => setWanted(true));
    });
  }, []);
  if (!wanted && toasts.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}

export function App() {
  const [router] = useState(createAppRouter);
  return (
    <>
      <RouterProvider router={router} />
      <LazyToaster />
    </>
  );
}
