// The route table. The table and react-router are the router chunk (see
// app/index.tsx: a signed-out /login paints without it); the shell and every screen load as their
// own chunks.
import { type ComponentType, lazy, Suspense } from 'react';
import { createBrowserRouter, type Params, type RouteObject, useParams } from 'react-router-dom';
import { LandingRedirect } from '../components/auth/landing-redirect';
import { FullPageLoading, ProtectedRoute } from '../components/auth/protected-route';
import type { ScreenHandle } from '../components/layout/breadcrumbs';
import { LoginPage } from '../features/auth/components/login-page';
import { useDocumentTitle } from '../hooks/use-document-title';
import { setSessionExpiredHandler } from '../lib/api-client';
import { ACCESS } from '../lib/authorization';
import { RouteError } from './route-error';

const AppShell = lazy(() => import('../components/layout/app-shell'));

/** A route whose screen loads on demand. */
function screen<M>(
  path: string,
  load: () => Promise<M>,
  pick: (module: M) => ComponentType,
  handle: ScreenHandle = {},
): RouteObject {
  return { path, handle, lazy: async () => ({ Component: pick(await load()) }) };
}

/**
 * A screen named here rather than by its page (each other page names itself with useDocumentTitle):
 * the e-mail link's confirmation and the action results.
 */
function titled(Page: ComponentType, title: (params: Params) => string): ComponentType {
  return function TitledScreen() {
    useDocumentTitle(title(useParams()));
    return <Page />;
  };
}

export const routes: RouteObject[] = [
  {
    ErrorBoundary: RouteError,
    HydrateFallback: FullPageLoading,
    children: [
      { path: '/login', element: <LoginPage /> },
      screen(
        '/direct-action-result',
        () => import('../features/approvals/components/direct-action-result-page'),
        (m) => titled(m.DirectActionResultPage, () => 'Action result'),
      ),
      // The links a vendor's contact gets about a change of its bank details (public, no shell).
      screen(
        '/vendor-banking/not-me',
        () => import('../features/vendors/components/not-me-page'),
        (m) => titled(m.NotMePage, () => 'A change of your bank details'),
      ),
      screen(
        '/vendor-banking/micro-deposits',
        () => import('../features/vendors/components/micro-deposits-page'),
        (m) => titled(m.MicroDepositsPage, () => 'Confirm your new bank account'),
      ),
      {
        path: '/',
        element: (
          <ProtectedRoute>
            <Suspense fallback={<FullPageLoading />}>
              <AppShell />
            </Suspense>
          </ProtectedRoute>
        ),
        children: [
          { index: true, element: <LandingRedirect /> },
          {
            element: <ProtectedRoute requiredRole={ACCESS.admin.requiredRole} />,
            children: [
              screen(
                'dashboard',
                () => import('../features/dashboard/components/dashboard-page'),
                (m) => m.DashboardPage,
              ),
              screen(
                'companies',
                () => import('../features/companies/components/companies-page'),
                (m) => m.CompaniesPage,
              ),
              screen(
                'companies/new',
                () => import('../features/companies/components/company-create-page'),
                (m) => m.CompanyCreatePage,
              ),
              screen(
                'companies/:id',
                () => import('../features/companies/components/company-detail-page'),
                (m) => m.CompanyDetailPage,
              ),
              screen(
                'companies/:id/edit',
                () => import('../features/companies/components/company-edit-page'),
                (m) => m.CompanyEditPage,
              ),
              screen(
                'companies/:id/nacha',
                () => import('../features/companies/components/company-nacha-page'),
                (m) => m.CompanyNachaPage,
              ),
              screen(
                'users',
                () => import('../features/users/components/users-page'),
                (m) => m.UsersPage,
                { ownBreadcrumb: true },
              ),
              screen(
                'users/new',
                () => import('../features/users/components/user-create-page'),
                (m) => m.UserCreatePage,
              ),
              screen(
                'users/:id',
                () => import('../features/users/components/user-detail-page'),
                (m) => m.UserDetailPage,
              ),
              screen(
                'users/:id/edit',
                () => import('../features/users/components/user-edit-page'),
                (m) => m.UserEditPage,
              ),
              screen(
                'operations',
                () => import('../features/operations/components/operations-page'),
                (m) => m.OperationsPage,
              ),
              screen(
                'managers',
                () => import('../features/managers/components/managers-page'),
                (m) => m.ManagersPage,
              ),
              screen(
                'managers/new',
                () => import('../features/managers/components/manager-create-page'),
                (m) => m.ManagerCreatePage,
              ),
              screen(
                'managers/:id',
                () => import('../features/managers/components/manager-detail-page'),
                (m) => m.ManagerDetailPage,
              ),
              screen(
                'managers/:id/edit',
                () => import('../features/managers/components/manager-edit-page'),
                (m) => m.ManagerEditPage,
              ),
            ],
          },
          {
            element: <ProtectedRoute allowedRoles={ACCESS.vendors.allowedRoles} />,
            children: [
              screen(
                'vendors',
                () => import('../features/vendors/components/vendors-page'),
                (m) => m.VendorsPage,
              ),
              screen(
                'vendors/:id',
                () => import('../features/vendors/components/vendor-detail-page'),
                (m) => m.VendorDetailPage,
              ),
              screen(
                'bills',
                () => import('../features/approvals/components/bills-page'),
                (m) => m.BillsPage,
              ),
              screen(
                'bank-files',
                () => import('../features/payments/components/bank-files-page'),
                (m) => m.BankFilesPage,
              ),
              screen(
                'vendors/:id/edit-banking',
                () => import('../features/vendors/components/vendor-edit-banking-page'),
                (m) => m.VendorEditBankingPage,
              ),
            ],
          },
          {
            element: <ProtectedRoute allowedRoles={ACCESS.approvals.allowedRoles} />,
            children: [
              screen(
                'approvals',
                () => import('../features/approvals/components/approvals-page'),
                (m) => m.ApprovalsPage,
              ),
              screen(
                'approvals/direct-action-result',
                () => import('../features/approvals/components/direct-action-result-page'),
                (m) => titled(m.InLayoutDirectActionResultPage, () => 'Action result'),
              ),
              screen(
                'approvals/:id',
                () => import('../features/approvals/components/approval-detail-page'),
                (m) => m.ApprovalDetailPage,
              ),
              screen(
                'approvals/:id/confirm',
                () => import('../features/approvals/components/approval-confirm-page'),
                (m) => titled(m.ApprovalConfirmPage, (p) => `Confirm approval ${(p.id ?? '').slice(0, 8)}`),
              ),
            ],
          },
          // Unknown paths land through the same role-based redirect.
          { path: '*', element: <LandingRedirect /> },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  const router = createBrowserRouter(routes);
  // A refused token refresh: the session is gone; go to /login unless already there.
  setSessionExpiredHandler(() => {
    const { location } = router.state;
    if (location.pathname !== '/login')
      void router.navigate('/login', { replace: true, state: { from: location } });
  });
  return router;
}
