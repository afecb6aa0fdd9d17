import { ChevronRight } from 'lucide-react';
import { Link, useLocation, useMatches } from 'react-router-dom';
import { cn } from '../../lib/utils';

/** What a route tells the shell (its `handle`). */
export interface ScreenHandle {
  /** The screen draws the spec's own breadcrumb (/users: Dashboard > Users): the header draws none. */
  ownBreadcrumb?: boolean;
}

export interface Crumb {
  label: string;
  to: string;
}

const LABELS: Record<string, string> = {
  dashboard: 'Dashboard',
  companies: 'Companies',
  users: 'Users',
  managers: 'Managers',
  vendors: 'Vendors',
  approvals: 'Approvals',
  operations: 'Operations',
  'bank-files': 'Bank Files',
  new: 'New',
  edit: 'Edit',
  nacha: 'NACHA',
  confirm: 'Confirm',
  'edit-banking': 'Edit Banking',
  'direct-action-result': 'Action Result',
};

function labelOf(segment: string): string {
  const decoded = (() => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  })();
  if (LABELS[decoded]) return LABELS[decoded];
  if (/^[0-9a-f-]{8,}$/i.test(decoded) || /^\d+$/.test(decoded))
    return decoded.length > 12 ? `${decoded.slice(0, 8)}…` : decoded;
  return decoded
    .split('-')
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}

/** Home (/dashboard), then one crumb per path segment. */
export function buildBreadcrumbs(pathname: string): Crumb[] {
  const segments = pathname.split('/').filter(Boolean);
  const crumbs: Crumb[] = [{ label: 'Home', to: '/dashboard' }];
  segments.forEach((segment, i) => {
    crumbs.push({ label: labelOf(segment), to: `/${segments.slice(0, i + 1).join('/')}` });
  });
  return crumbs;
}

export function Breadcrumbs({ className }: { className?: string }) {
  const { pathname } = useLocation();
  const matches = useMatches();
  if (matches.some((m) => (m.handle as ScreenHandle | undefined)?.ownBreadcrumb)) return null;
  const crumbs = buildBreadcrumbs(pathname);
  return (
    <nav aria-label="Breadcrumb" className={cn('min-w-0', className)}>
      <ol className="flex min-w-0 items-center gap-1.5 text-sm text-muted-foreground">
        {crumbs.map((crumb, i) => {
          const last = i === crumbs.length - 1;
          return (
            <li key={crumb.to} className="flex min-w-0 items-center gap-1.5">
              {i > 0 ? <ChevronRight className="size-3.5 shrink-0" aria-hidden="true" /> : null}
              {last ? (
                <span aria-current="page" className="truncate font-medium text-foreground">
                  {crumb.label}
                </span>
              ) : (
                <Link to={crumb.to} className="truncate transition-colors hover:text-foreground">
                  {crumb.label}
                </Link>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
