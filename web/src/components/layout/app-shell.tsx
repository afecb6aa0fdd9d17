// The application shell: collapsible side navigation (16rem, or 4rem icon-only), a drawer
// with an overlay on small screens, a header with breadcrumbs, the signed-in user and sign-out.
import * as DialogPrimitive from '@radix-ui/react-dialog';
import { LogOut, Menu, PanelLeftClose, PanelLeftOpen, X } from 'lucide-react';
import { Suspense, useState } from 'react';
import { Outlet, useNavigate, useNavigation } from 'react-router-dom';
import { useLiveSessionUser } from '../../hooks/use-live-session-user';
import { displayName, logout, useSession } from '../../lib/auth';
import { GraphQLProvider } from '../../lib/graphql-provider';
import { cn } from '../../lib/utils';
import type { User } from '../../types/api';
import { Badge } from '../ui/badge';
import { Button } from '../ui/button';
import { LoadingState } from '../ui/spinner';
import { Tooltip, TooltipContent, TooltipProvider, TooltipTrigger } from '../ui/tooltip';
import { Breadcrumbs } from './breadcrumbs';
import { SidebarBrand, SidebarNav } from './sidebar-nav';

export const SIDEBAR_WIDTH = '16rem';
export const SIDEBAR_WIDTH_COLLAPSED = '4rem';

function initials(user: User) {
  const first = user.firstName?.trim()?.[0];
  const last = user.lastName?.trim()?.[0];
  return (first && last ? `${first}${last}` : user.email[0]).toUpperCase();
}

function UserSummary({ user }: { user: User }) {
  return (
    <div className="flex min-w-0 items-center gap-2 sm:gap-3" data-testid="current-user">
      <span
        aria-hidden="true"
        className="hidden size-8 shrink-0 items-center justify-center rounded-full bg-secondary text-xs font-semibold text-secondary-foreground sm:flex"
      >
        {initials(user)}
      </span>
      <span
        className="max-w-[9rem] truncate text-sm font-medium sm:max-w-[16rem]"
        data-testid="current-user-name"
      >
        {displayName(user)}
      </span>
      <Badge variant="secondary" className="text-[0.7rem] tracking-wide" data-testid="current-user-role">
        {user.role}
      </Badge>
    </div>
  );
}

function SignOutButton() {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="ghost"
      size="sm"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        await logout();
        navigate('/login', { replace: true });
      }}
    >
      <LogOut aria-hidden="true" />
      <span className="sr-only sm:not-sr-only">{busy ? 'Signing out...' : 'Sign out'}</span>
    </Button>
  );
}

function ShellFrame({ user }: { user: User }) {
  const [collapsed, setCollapsed] = useState(false);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const navigation = useNavigation();
  useLiveSessionUser(user);

  const collapseLabel = collapsed ? 'Expand sidebar' : 'Collapse sidebar';

  return (
    <div className="flex h-dvh overflow-hidden bg-muted/40">
      <a
        href="#main-content"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-[60] focus:rounded-md focus:bg-background focus:px-3 focus:py-2 focus:text-sm focus:shadow"
      >
        Skip to main content
      </a>

      {/* Medium and larger screens: static, collapsible to icons. */}
      <aside
        aria-label="Sidebar"
        data-testid="sidebar"
        data-collapsed={collapsed}
        style={{ width: collapsed ? SIDEBAR_WIDTH_COLLAPSED : SIDEBAR_WIDTH }}
        className="hidden shrink-0 flex-col border-r border-sidebar-border bg-sidebar text-sidebar-foreground transition-[width] duration-200 ease-in-out md:flex"
      >
        <SidebarBrand collapsed={collapsed} />
        <SidebarNav role={user.role} collapsed={collapsed} />
        <div className={cn('border-t border-sidebar-border p-2', collapsed && 'flex justify-center')}>
          <Tooltip>
            <TooltipTrigger asChild>
              <Button
                variant="ghost"
                size={collapsed ? 'icon' : 'sm'}
                className={cn(!collapsed && 'w-full justify-start gap-3 px-3 text-muted-foreground')}
                aria-label={collapseLabel}
                aria-expanded={!collapsed}
                onClick={() => setCollapsed((c) => !c)}
              >
                {collapsed ? <PanelLeftOpen aria-hidden="true" /> : <PanelLeftClose aria-hidden="true" />}
                {collapsed ? null : <span>Collapse</span>}
              </Button>
            </TooltipTrigger>
            {collapsed ? <TooltipContent side="right">{collapseLabel}</TooltipContent> : null}
          </Tooltip>
        </div>
      </aside>

      {/* Small screens: a drawer over an overlay; closes on an entry or an overlay click. */}
      <DialogPrimitive.Root open={drawerOpen} onOpenChange={setDrawerOpen}>
        <DialogPrimitive.Portal>
          <DialogPrimitive.Overlay
            data-testid="drawer-overlay"
            className="fixed inset-0 z-40 bg-black/50 data-[state=open]:animate-[fade-in_150ms_ease-out] md:hidden"
          />
          <DialogPrimitive.Content
            aria-describedby={undefined}
            data-testid="mobile-drawer"
            style={{ width: SIDEBAR_WIDTH }}
            className="fixed inset-y-0 left-0 z-50 flex flex-col border-r border-sidebar-border bg-sidebar text-sidebar-foreground shadow-xl outline-none data-[state=open]:animate-[slide-in-left_200ms_ease-out] md:hidden"
          >
            <DialogPrimitive.Title className="sr-only">Navigation</DialogPrimitive.Title>
            <SidebarBrand />
            <SidebarNav role={user.role} onNavigate={() => setDrawerOpen(false)} />
            <DialogPrimitive.Close asChild>
              <Button
                variant="ghost"
                size="icon"
                className="absolute top-2.5 right-2"
                aria-label="Close navigation"
              >
                <X aria-hidden="true" />
              </Button>
            </DialogPrimitive.Close>
          </DialogPrimitive.Content>
        </DialogPrimitive.Portal>
      </DialogPrimitive.Root>

      <div className="flex min-w-0 flex-1 flex-col">
        <header className="relative flex h-14 shrink-0 items-center gap-3 border-b bg-background px-4 md:px-6">
          <Button
            variant="ghost"
            size="icon"
            className="-ml-2 md:hidden"
            aria-label="Open navigation"
            aria-expanded={drawerOpen}
            onClick={() => setDrawerOpen(true)}
          >
            <Menu aria-hidden="true" />
          </Button>
          <Breadcrumbs className="hidden flex-1 sm:block" />
          <div className="ml-auto flex items-center gap-2 sm:gap-3">
            <UserSummary user={user} />
            <span className="h-6 w-px bg-border" aria-hidden="true" />
            <SignOutButton />
          </div>
          {navigation.state === 'loading' ? (
            <div
              role="progressbar"
              aria-label="Loading page"
              className="absolute inset-x-0 bottom-0 h-0.5 animate-pulse bg-primary/60"
            />
          ) : null}
        </header>
        <main id="main-content" tabIndex={-1} className="flex-1 overflow-y-auto outline-none">
          <div className="mx-auto w-full max-w-7xl p-4 md:p-6 lg:p-8">
            <Suspense fallback={<LoadingState />}>
              <Outlet />
            </Suspense>
          </div>
        </main>
      </div>
    </div>
  );
}

/** The protected layout: the shell around the child routes, with the GraphQL client of the session. */
export default function AppShell() {
  const { user } = useSession();
  if (!user) return null;
  return (
    <GraphQLProvider sessionKey={user.id}>
      <TooltipProvider delayDuration={0}>
        <ShellFrame user={user} />
      </TooltipProvider>
    </GraphQLProvider>
  );
}
