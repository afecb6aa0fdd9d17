// /managers: the table, selection bar, row actions, paging, live updates.
import { Plus, RefreshCw } from 'lucide-react';
import { useCallback, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { type Column, DataList } from '../../../components/ui/data-list';
import { useClampPage } from '../../../components/ui/list-filters';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useManagerChanged } from '../../../hooks/use-manager-changed';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { MANAGER_MESSAGES, type Manager, ManagersQuery, UnlinkManagerUser } from '../api/managers';
import { formatDay, MANAGERS_PAGE_SIZE, managerInitials, managerName } from '../utils/manager-rules';
import { DeleteManagerDialog } from './delete-manager-dialog';
import { ManagerAvatar, ManagerStatusBadge } from './manager-badges';

const linkedName = (m: Manager) => {
  if (!m.user) return null;
  const name = [m.user.firstName, m.user.lastName].filter(Boolean).join(' ');
  return name || m.user.email;
};

const COLUMNS: Column<Manager>[] = [
  {
    id: 'manager',
    header: 'Manager',
    cell: (m) => (
      <div className="flex items-center gap-3">
        <ManagerAvatar initials={managerInitials(m)} />
        <div className="min-w-0">
          <Link to={`/managers/${m.id}`} className="font-medium hover:underline">
            {managerName(m)}
          </Link>
          <p className="truncate text-xs text-muted-foreground">{m.email}</p>
          {m.phone ? <p className="truncate text-xs text-muted-foreground">{m.phone}</p> : null}
        </div>
      </div>
    ),
  },
  {
    id: 'title',
    header: 'Title',
    cell: (m) => m.title || <span className="text-muted-foreground">No title</span>,
  },
  { id: 'status', header: 'Status', cell: (m) => <ManagerStatusBadge status={m.status} /> },
  {
    id: 'user',
    header: 'Linked User',
    cell: (m) => linkedName(m) ?? <span className="text-muted-foreground">Not linked</span>,
  },
  { id: 'created', header: 'Created', cell: (m) => formatDay(m.createdAt) },
  { id: 'updated', header: 'Last Updated', cell: (m) => formatDay(m.updatedAt) },
];

export function ManagersPage() {
  useDocumentTitle('Managers');
  const navigate = useNavigate();
  const [page, setPage] = useState(1);
  const list = useGqlQuery(
    ManagersQuery,
    { page, limit: MANAGERS_PAGE_SIZE },
    { fallback: 'Failed to fetch managers' },
  );
  const unlinkUser = useGqlMutation(UnlinkManagerUser, 'Failed to unlink user');
  const selection = useRowSelection<number>();
  const [deleting, setDeleting] = useState<Manager | null>(null);

  // Changes from any session re-read the page (through the cache).
  useManagerChanged(null);

  const data = list.data?.managers;
  useClampPage(page, data && data.data.length === 0 ? data.totalPages : undefined, setPage);

  const unlink = useCallback(
    async (m: Manager) => {
      try {
        await unlinkUser({ id: m.id });
        toast.success(MANAGER_MESSAGES.unlinked);
      } catch (err) {
        toast.error(err instanceof Error ? err.message : 'An error occurred');
      }
    },
    [unlinkUser],
  );

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Managers"
        description="Contacts who approve bills, and the user accounts they sign in with"
        actions={
          <>
            <Button variant="outline" onClick={list.reload} disabled={list.loading}>
              <RefreshCw aria-hidden="true" />
              Refresh
            </Button>
            <Button asChild>
              <Link to="/managers/new">
                <Plus aria-hidden="true" />
                Add Manager
              </Link>
            </Button>
          </>
        }
      />
      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          {selection.selected.size > 0 ? (
            <div className="flex flex-wrap items-center gap-2 border-b px-4 py-3" data-testid="selection-bar">
              <span className="text-sm font-medium">{selection.selected.size} manager(s) selected</span>
              <Button
                size="sm"
                variant="outline"
                onClick={() => toast({ title: 'Bulk actions coming soon' })}
              >
                Bulk Actions
              </Button>
              <Button size="sm" variant="ghost" onClick={() => selection.clear()}>
                Clear Selection
              </Button>
            </div>
          ) : null}
          <DataList
            rows={data?.data}
            error={list.error}
            onRetry={list.reload}
            errorTitle={(e) => `Error loading managers: ${e.message}`}
            loadingText="Loading managers..."
            empty={{ title: 'No managers found', description: 'Create your first manager to get started' }}
            columns={COLUMNS}
            rowKey={(m) => m.id}
            rowTestId={(m) => `manager-row-${m.id}`}
            selection={{
              ...selection,
              label: (id) => `Select ${managerName(data?.data.find((m) => m.id === id) ?? {})}`,
              allLabel: 'Select all managers on this page',
            }}
            actionsLabel={(m) => `Actions for ${managerName(m)}`}
            rowActions={(m) => [
              { label: 'View Details', onSelect: () => navigate(`/managers/${m.id}`) },
              { label: 'Edit Manager', onSelect: () => navigate(`/managers/${m.id}/edit`) },
              m.user
                ? { label: 'Unlink User', onSelect: () => void unlink(m) }
                : // Linking is done in the edit form.
                  { label: 'Link User', onSelect: () => navigate(`/managers/${m.id}/edit`) },
              { label: 'Delete Manager', destructive: true, separated: true, onSelect: () => setDeleting(m) },
            ]}
            paging={{
              info: data,
              noun: 'managers',
              onPageChange: (p) => {
                selection.clear();
                setPage(p);
              },
            }}
          />
        </CardContent>
      </Card>
      <DeleteManagerDialog
        manager={deleting}
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
      />
    </div>
  );
}
