// The entry of the router chunk (loaded on demand by app/index.tsx): react-router, the route table
// and the provider that renders it.
import { RouterProvider } from 'react-router-dom';
import { createAppRouter } from './router';

export type AppRouter = ReturnType<typeof createAppRouter>;

export { createAppRouter };

export function AppRoutes({ router }: { router: AppRouter }) {
  return <RouterProvider router={router} />;
}
