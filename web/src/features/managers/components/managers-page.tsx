// /managers (spec 2 §2 Managers list): the table, selection bar, row actions, paging, live updates.
import { MoreHorizontal, Plus, RefreshCw } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { Checkbox } from '../../../components/ui/checkbox';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../../../components/ui/dropdown-menu';
import { EmptyState, LoadError } from '../../../components/ui/list-states';
import { PaginationFooter } from '../../../components/ui/pagination';
import { LoadingState } from '../../../components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '../../../components/ui/table';
import { toast } from '../../../components/ui/use-toast';
import { useCoalescedRefresh } from '../../../hooks/use-coalesced-refresh';
import { useLiveResync } from '../../../hooks/use-live-resync';
import { useManagerChanged } from '../../../hooks/use-manager-changed';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useRemote } from '../../../lib/use-remote';
import type { Manager } from '../../../types/api';
import { getManagers, unlinkManagerUser } from '../api/managers';
import { formatDay, managerInitials, managerName } from '../utils/manager-rules';
import { DeleteManagerDialog } from './delete-manager-dialog';
import { ManagerAvatar, ManagerStatusBadge } from './manager-badges';

const linkedName = (m: Manager) => {
  if (!m.user) return null;
  const name = [m.user.firstName, m.user.lastName].filter(Boolean).join(' ');
  return name || m.user.email;
};

export function ManagersPage() {
  const navigate = useNavigate();
  const [page, setPage] = useState(1);
  const list = useRemote((signal) => getManagers(page, signal), [page]);
  const { selected, toggle, setMany, clear: clearSelection, allOf } = useRowSelection<number>();
  const [deleting, setDeleting] = useState<Manager | null>(null);
  const refresh = list.reload;

  // Changes from any session refetch the page, coalesced.
  useManagerChanged(null, useCoalescedRefresh(refresh));
  useLiveResync(refresh);

  const data = list.data;
  const rows = data?.data ?? [];
  useEffect(() => {
    if (data && data.data.length === 0 && page > 1 && data.totalPages < page) setPage(data.totalPages);
  }, [data, page]);
  const pageIds = rows.map((m) => m.id);
  const allSelected = allOf(pageIds);

  const unlink = useCallback(
    async (m: Manager) => {
      try {
        const res = await unlinkManagerUser(m.id);
        toast.success(res.message ?? 'User unlinked successfully');
        refresh();
      } catch (err) {
        toast.error(err instanceof Error ? err.message : 'An error occurred');
      }
    },
    [refresh],
  );

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Managers"
        description="Contacts who approve bills, and the user accounts they sign in with"
        actions={
          <>
            <Button variant="outline" onClick={refresh} disabled={list.loading}>
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
          {selected.size > 0 ? (
            <div className="flex flex-wrap items-center gap-2 border-b px-4 py-3" data-testid="selection-bar">
              <span className="text-sm font-medium">{selected.size} manager(s) selected</span>
              <Button
                size="sm"
                variant="outline"
                onClick={() => toast({ title: 'Bulk actions coming soon' })}
              >
                Bulk Actions
              </Button>
              <Button size="sm" variant="ghost" onClick={() => clearSelection()}>
                Clear Selection
              </Button>
            </div>
          ) : null}
          {list.error && !data ? (
            <LoadError title={`Error loading managers: ${list.error.message}`} onRetry={list.reload} />
          ) : !data ? (
            <LoadingState text="Loading managers..." />
          ) : rows.length === 0 ? (
            <EmptyState title="No managers found" description="Create your first manager to get started" />
          ) : (
            <>
              <Table>
                <TableHeader>
                  <TableRow>
                    <TableHead className="w-10 pl-4">
                      <Checkbox
                        aria-label="Select all managers on this page"
                        checked={allSelected}
                        onChange={(e) => setMany(pageIds, e.target.checked)}
                      />
                    </TableHead>
                    <TableHead>Manager</TableHead>
                    <TableHead>Title</TableHead>
                    <TableHead>Status</TableHead>
                    <TableHead>Linked User</TableHead>
                    <TableHead>Created</TableHead>
                    <TableHead>Last Updated</TableHead>
                    <TableHead className="w-12 pr-4 text-right">
                      <span className="sr-only">Actions</span>
                    </TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((m) => (
                    <TableRow
                      key={m.id}
                      data-testid={`manager-row-${m.id}`}
                      data-state={selected.has(m.id) ? 'selected' : undefined}
                    >
                      <TableCell className="pl-4">
                        <Checkbox
                          aria-label={`Select ${managerName(m)}`}
                          checked={selected.has(m.id)}
                          onChange={(e) => toggle(m.id, e.target.checked)}
                        />
                      </TableCell>
                      <TableCell>
                        <div className="flex items-center gap-3">
                          <ManagerAvatar initials={managerInitials(m)} />
                          <div className="min-w-0">
                            <Link to={`/managers/${m.id}`} className="font-medium hover:underline">
                              {managerName(m)}
                            </Link>
                            <p className="truncate text-xs text-muted-foreground">{m.email}</p>
                            {m.phone ? (
                              <p className="truncate text-xs text-muted-foreground">{m.phone}</p>
                            ) : null}
                          </div>
                        </div>
                      </TableCell>
                      <TableCell>
                        {m.title || <span className="text-muted-foreground">No title</span>}
                      </TableCell>
                      <TableCell>
                        <ManagerStatusBadge status={m.status} />
                      </TableCell>
                      <TableCell>
                        {linkedName(m) ?? <span className="text-muted-foreground">Not linked</span>}
                      </TableCell>
                      <TableCell>{formatDay(m.createdAt)}</TableCell>
                      <TableCell>{formatDay(m.updatedAt)}</TableCell>
                      <TableCell className="pr-4 text-right">
                        <DropdownMenu>
                          <DropdownMenuTrigger asChild>
                            <Button variant="ghost" size="icon" aria-label={`Actions for ${managerName(m)}`}>
                              <MoreHorizontal aria-hidden="true" />
                            </Button>
                          </DropdownMenuTrigger>
                          <DropdownMenuContent align="end">
                            <DropdownMenuLabel>Actions</DropdownMenuLabel>
                            <DropdownMenuItem onSelect={() => navigate(`/managers/${m.id}`)}>
                              View Details
                            </DropdownMenuItem>
                            <DropdownMenuItem onSelect={() => navigate(`/managers/${m.id}/edit`)}>
                              Edit Manager
                            </DropdownMenuItem>
                            {m.user ? (
                              <DropdownMenuItem onSelect={() => unlink(m)}>Unlink User</DropdownMenuItem>
                            ) : (
                              // Linking is done in the edit form (spec 2 §4).
                              <DropdownMenuItem onSelect={() => navigate(`/managers/${m.id}/edit`)}>
                                Link User
                              </DropdownMenuItem>
                            )}
                            <DropdownMenuSeparator />
                            <DropdownMenuItem variant="destructive" onSelect={() => setDeleting(m)}>
                              Delete Manager
                            </DropdownMenuItem>
                          </DropdownMenuContent>
                        </DropdownMenu>
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
              <PaginationFooter
                className="border-t"
                noun="managers"
                pagination={{
                  page: data.page,
                  limit: data.limit,
                  total: data.total,
                  totalPages: data.totalPages,
                }}
                onPageChange={(p) => {
                  clearSelection();
                  setPage(p);
                }}
              />
            </>
          )}
        </CardContent>
      </Card>
      <DeleteManagerDialog
        manager={deleting}
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        onDeleted={refresh}
      />
    </div>
  );
}
