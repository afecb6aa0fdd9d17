import {
  Building2,
  ClipboardCheck,
  FileStack,
  Gauge,
  LayoutDashboard,
  type LucideIcon,
  Store,
  UserCog,
  Users,
} from 'lucide-react';
import { Link, useLocation } from 'react-router-dom';
import { isPathActive, visibleNavEntries } from '../../lib/authorization';
import { cn } from '../../lib/utils';
import type { Role } from '../../types/api';
import { Tooltip, TooltipContent, TooltipTrigger } from '../ui/tooltip';

const ICONS: Record<string, LucideIcon> = {
  '/dashboard': LayoutDashboard,
  '/companies': Building2,
  '/vendors': Store,
  '/users': Users,
  '/managers': UserCog,
  '/approvals': ClipboardCheck,
  '/bank-files': FileStack,
  '/operations': Gauge,
};

export function SidebarBrand({ collapsed = false }: { collapsed?: boolean }) {
  return (
    <Link
      to="/"
      className={cn(
        'flex h-14 shrink-0 items-center gap-2.5 border-b border-sidebar-border px-4 outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50',
        collapsed && 'justify-center px-0',
      )}
    >
      <span
        aria-hidden="true"
        className="flex size-8 shrink-0 items-center justify-center rounded-lg bg-primary text-sm font-bold text-primary-foreground"
      >
        B
      </span>
      <span className={cn('truncate text-base font-semibold tracking-tight', collapsed && 'sr-only')}>
        Billflow
      </span>
    </Link>
  );
}

/** The navigation entries the role may see; icon-only with tooltips to the right when collapsed. */
export function SidebarNav({
  role,
  collapsed = false,
  onNavigate,
}: {
  role: Role | null | undefined;
  collapsed?: boolean;
  onNavigate?: () => void;
}) {
  const { pathname } = useLocation();
  const entries = visibleNavEntries(role);
  return (
    <nav aria-label="Main navigation" className="flex-1 overflow-y-auto p-2">
      <ul className="grid gap-1">
        {entries.map((entry) => {
          const Icon = ICONS[entry.to] ?? LayoutDashboard;
          const active = isPathActive(pathname, entry.to);
          const link = (
            <Link
              to={entry.to}
              onClick={onNavigate}
              aria-current={active ? 'page' : undefined}
              aria-label={collapsed ? entry.label : undefined}
              data-active={active || undefined}
              className={cn(
                'flex h-9 items-center gap-3 rounded-md px-3 text-sm font-medium text-sidebar-foreground/80 transition-colors outline-none hover:bg-sidebar-accent hover:text-sidebar-accent-foreground focus-visible:ring-[3px] focus-visible:ring-ring/50',
                active && 'bg-sidebar-accent text-sidebar-accent-foreground',
                collapsed && 'justify-center px-0',
              )}
            >
              <Icon
                className={cn('size-4 shrink-0', active ? 'text-foreground' : 'text-muted-foreground')}
                aria-hidden="true"
              />
              {collapsed ? null : <span className="truncate">{entry.label}</span>}
            </Link>
          );
          return (
            <li key={entry.to}>
              {collapsed ? (
                <Tooltip>
                  <TooltipTrigger asChild>{link}</TooltipTrigger>
                  <TooltipContent side="right">{entry.label}</TooltipContent>
                </Tooltip>
              ) : (
                link
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
