import { ChevronRight, MoreHorizontal, Plus } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { BatchActivationBar } from '../../../components/ui/batch-activation-bar';
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
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useUserChanged } from '../../../hooks/use-user-changed';
import { useSession } from '../../../lib/auth';
import { useRemote } from '../../../lib/use-remote';
import type { User } from '../../../types/api';
import { getOverviewStats } from '../api/get-overview-stats';
import { getUsers } from '../api/get-users';
import { setUserActive } from '../api/set-user-active';
import { formatDate, fullName, USERS_PAGE_SIZE } from '../utils/user-rules';
import { ChangePasswordDialog } from './change-password-dialog';
import { ChangeRoleDialog } from './change-role-dialog';
import { DeleteUserDialog } from './delete-user-dialog';
import { RoleBadge, StatusBadge } from './role-badge';
import { UsersOverview } from './users-overview';

type DialogState = { kind: 'role' | 'password' | 'delete'; user: User } | null;

export function UsersPage() {
  const navigate = useNavigate();
  const { user: me } = useSession();
  const [page, setPage] = useState(1);
  const list = useRemote((signal) => getUsers(page, USERS_PAGE_SIZE, signal), [page]);
  const stats = useRemote((signal) => getOverviewStats(signal), []);
  const { selected, toggle, setMany, clear: clearSelection, allOf } = useRowSelection<number>();
  const [dialog, setDialog] = useState<DialogState>(null);

  const refresh = useCallback(() => {
    list.reload();
    stats.reload();
  }, [list.reload, stats.reload]);

  // Changes from any session (or gateway) refetch the page and the overview, coalesced.
  useUserChanged(null, useCoalescedRefresh(refresh));
  useLiveResync(refresh);

  const data = list.data;
  const rows = data?.data ?? [];
  // A page left empty (e.g. after deletions) steps back.
  useEffect(() => {
    if (data && data.data.length === 0 && page > 1 && data.totalPages < page) setPage(data.totalPages);
  }, [data, page]);

  const pageIds = rows.map((u) => u.id);
  const allSelected = allOf(pageIds);

  async function toggleActive(u: User) {
    try {
      const res = await setUserActive(u.id, !u.isActive);
      toast.success(
        res.message ?? (u.isActive ? 'User deactivated successfully' : 'User activated successfully'),
      );
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    }
  }

  return (
    <div className="grid grid-cols-1 gap-6">
      <nav aria-label="Page breadcrumb" className="text-sm text-muted-foreground">
        <ol className="flex items-center gap-1.5">
          <li>
            <Link to="/dashboard" className="hover:text-foreground">
              Dashboard
            </Link>
          </li>
          <li aria-hidden="true">
            <ChevronRight className="size-3.5" />
          </li>
          <li aria-current="page" className="font-medium text-foreground">
            Users
          </li>
        </ol>
      </nav>
      <PageHeader
        title="Users"
        description="Manage users, their roles and access"
        actions={
          <Button asChild>
            <Link to="/users/new">
              <Plus aria-hidden="true" />
              Add User
            </Link>
          </Button>
        }
      />
      <UsersOverview stats={stats.data} />

      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          <BatchActivationBar
            selected={rows.filter((u) => selected.has(u.id))}
            noun="users"
            setActive={(u, active) => setUserActive(u.id, active)}
            describe={(u) => u.email}
            onClear={() => clearSelection()}
            onFinished={() => {
              clearSelection();
              refresh();
            }}
          />

          {list.error && !data ? (
            <LoadError title={`Error loading users: ${list.error.message}`} onRetry={list.reload} />
          ) : !data ? (
            <LoadingState text="Loading users..." />
          ) : rows.length === 0 ? (
            <EmptyState
              title="No users found"
              action={
                <Button variant="outline" size="sm" asChild>
                  <Link to="/users/new">Create a user</Link>
                </Button>
              }
            />
          ) : (
            <>
              <Table>
                <TableHeader>
                  <TableRow>
                    <TableHead className="w-10 pl-4">
                      <Checkbox
                        aria-label="Select all users on this page"
                        checked={allSelected}
                        onChange={(e) => setMany(pageIds, e.target.checked)}
                      />
                    </TableHead>
                    <TableHead>Name</TableHead>
                    <TableHead>Email</TableHead>
                    <TableHead>Role</TableHead>
                    <TableHead>Status</TableHead>
                    <TableHead>Created</TableHead>
                    <TableHead className="w-12 pr-4 text-right">
                      <span className="sr-only">Actions</span>
                    </TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((u) => (
                    <TableRow
                      key={u.id}
                      data-state={selected.has(u.id) ? 'selected' : undefined}
                      data-testid={`user-row-${u.id}`}
                    >
                      <TableCell className="pl-4">
                        <Checkbox
                          aria-label={`Select ${u.email}`}
                          checked={selected.has(u.id)}
                          onChange={(e) => toggle(u.id, e.target.checked)}
                        />
                      </TableCell>
                      <TableCell>
                        <Link to={`/users/${u.id}`} className="font-medium hover:underline">
                          {fullName(u) || 'N/A'}
                        </Link>
                      </TableCell>
                      <TableCell>{u.email}</TableCell>
                      <TableCell>
                        <RoleBadge role={u.role} />
                      </TableCell>
                      <TableCell>
                        <StatusBadge active={u.isActive} />
                      </TableCell>
                      <TableCell>{formatDate(u.createdAt)}</TableCell>
                      <TableCell className="pr-4 text-right">
                        <DropdownMenu>
                          <DropdownMenuTrigger asChild>
                            <Button variant="ghost" size="icon" aria-label={`Actions for ${u.email}`}>
                              <MoreHorizontal aria-hidden="true" />
                            </Button>
                          </DropdownMenuTrigger>
                          <DropdownMenuContent align="end">
                            <DropdownMenuLabel>Actions</DropdownMenuLabel>
                            <DropdownMenuItem onSelect={() => navigate(`/users/${u.id}`)}>
                              View Details
                            </DropdownMenuItem>
                            <DropdownMenuItem onSelect={() => navigate(`/users/${u.id}/edit`)}>
                              Edit User
                            </DropdownMenuItem>
                            <DropdownMenuItem onSelect={() => setDialog({ kind: 'role', user: u })}>
                              Change Role
                            </DropdownMenuItem>
                            <DropdownMenuItem onSelect={() => setDialog({ kind: 'password', user: u })}>
                              Change Password
                            </DropdownMenuItem>
                            <DropdownMenuItem disabled={u.id === me?.id} onSelect={() => toggleActive(u)}>
                              {u.isActive ? 'Deactivate' : 'Activate'}
                            </DropdownMenuItem>
                            <DropdownMenuSeparator />
                            <DropdownMenuItem
                              variant="destructive"
                              disabled={u.id === me?.id}
                              onSelect={() => setDialog({ kind: 'delete', user: u })}
                            >
                              Delete User
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
                noun="users"
                // The page the rows came from, not the one asked for: while the next page loads the
                // footer must still describe the rows on screen.
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

      <ChangeRoleDialog
        user={dialog?.kind === 'role' ? dialog.user : null}
        open={dialog?.kind === 'role'}
        onOpenChange={(open) => !open && setDialog(null)}
        onChanged={refresh}
      />
      <ChangePasswordDialog
        user={dialog?.kind === 'password' ? dialog.user : null}
        open={dialog?.kind === 'password'}
        onOpenChange={(open) => !open && setDialog(null)}
      />
      <DeleteUserDialog
        user={dialog?.kind === 'delete' ? dialog.user : null}
        open={dialog?.kind === 'delete'}
        onOpenChange={(open) => !open && setDialog(null)}
        onDeleted={refresh}
      />
    </div>
  );
}
