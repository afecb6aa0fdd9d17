// /users: overview figures, the table with selection, row actions, paging and
// live updates through the cache.
import { ChevronRight, Plus } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { BatchActivationBar } from '../../../components/ui/batch-activation-bar';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { type Column, DataList } from '../../../components/ui/data-list';
import { useClampPage } from '../../../components/ui/list-filters';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useLive } from '../../../hooks/use-live';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { UsersChanged } from '../../../hooks/use-user-changed';
import { useSession } from '../../../lib/auth';
import { useGqlQuery } from '../../../lib/use-graphql';
import { type User, UserOverviewStatsQuery, UsersQuery, useSetUserActive } from '../api/users';
import { DEFAULT_OVERVIEW_STATS, formatDate, fullName, USERS_PAGE_SIZE } from '../utils/user-rules';
import { ChangePasswordDialog } from './change-password-dialog';
import { ChangeRoleDialog } from './change-role-dialog';
import { DeleteUserDialog } from './delete-user-dialog';
import { RoleBadge, StatusBadge } from './role-badge';
import { UsersOverview } from './users-overview';

type DialogState = { kind: 'role' | 'password' | 'delete'; user: User } | null;

const COLUMNS: Column<User>[] = [
  {
    id: 'name',
    header: 'Name',
    cell: (u) => (
      <Link to={`/users/${u.id}`} className="font-medium hover:underline">
        {fullName(u) || 'N/A'}
      </Link>
    ),
  },
  { id: 'email', header: 'Email', cell: (u) => u.email },
  { id: 'role', header: 'Role', cell: (u) => <RoleBadge role={u.role} /> },
  { id: 'status', header: 'Status', cell: (u) => <StatusBadge active={u.isActive} /> },
  { id: 'created', header: 'Created', cell: (u) => formatDate(u.createdAt) },
];

export function UsersPage() {
  useDocumentTitle('Users');
  const navigate = useNavigate();
  const { user: me } = useSession();
  const [page, setPage] = useState(1);
  const list = useGqlQuery(
    UsersQuery,
    { page, limit: USERS_PAGE_SIZE },
    { fallback: 'Failed to fetch users' },
  );
  const stats = useGqlQuery(UserOverviewStatsQuery, {});
  const setUserActive = useSetUserActive();
  const selection = useRowSelection<number>();
  const { selected, clear: clearSelection } = selection;
  const [dialog, setDialog] = useState<DialogState>(null);

  // Changes from any session (or gateway) re-read the page and the overview through the cache.
  useLive(UsersChanged, { id: null });

  const data = list.data?.users;
  const rows = data?.data ?? [];
  // A page left empty (e.g. after deletions) steps back.
  useClampPage(page, data && data.data.length === 0 ? data.totalPages : undefined, setPage);
  // The spec's sample figures when the overview cannot be read.
  const overview = stats.data?.userOverviewStats ?? (stats.error ? DEFAULT_OVERVIEW_STATS : undefined);

  async function toggleActive(u: User) {
    try {
      toast.success(await setUserActive(u.id, !u.isActive));
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
      <UsersOverview stats={overview} />

      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          <BatchActivationBar
            selected={rows.filter((u) => selected.has(u.id))}
            noun="users"
            setActive={(u, active) => setUserActive(u.id, active)}
            describe={(u) => u.email}
            onClear={() => clearSelection()}
            onFinished={() => clearSelection()}
          />

          <DataList
            rows={data?.data}
            error={list.error}
            onRetry={list.reload}
            errorTitle={(e) => `Error loading users: ${e.message}`}
            loadingText="Loading users..."
            empty={{
              title: 'No users found',
              action: (
                <Button variant="outline" size="sm" asChild>
                  <Link to="/users/new">Create a user</Link>
                </Button>
              ),
            }}
            columns={COLUMNS}
            rowKey={(u) => u.id}
            rowTestId={(u) => `user-row-${u.id}`}
            selection={{
              ...selection,
              label: (id) => `Select ${rows.find((u) => u.id === id)?.email ?? id}`,
              allLabel: 'Select all users on this page',
            }}
            actionsLabel={(u) => `Actions for ${u.email}`}
            rowActions={(u) => [
              { label: 'View Details', onSelect: () => navigate(`/users/${u.id}`) },
              { label: 'Edit User', onSelect: () => navigate(`/users/${u.id}/edit`) },
              { label: 'Change Role', onSelect: () => setDialog({ kind: 'role', user: u }) },
              { label: 'Change Password', onSelect: () => setDialog({ kind: 'password', user: u }) },
              {
                label: u.isActive ? 'Deactivate' : 'Activate',
                disabled: u.id === me?.id,
                onSelect: () => void toggleActive(u),
              },
              {
                label: 'Delete User',
                destructive: true,
                separated: true,
                disabled: u.id === me?.id,
                onSelect: () => setDialog({ kind: 'delete', user: u }),
              },
            ]}
            // The page the rows came from, not the one asked for: while the next page loads the
            // footer must still describe the rows on screen.
            paging={{
              info: data,
              noun: 'users',
              onPageChange: (p) => {
                clearSelection();
                setPage(p);
              },
            }}
          />
        </CardContent>
      </Card>

      <ChangeRoleDialog
        user={dialog?.kind === 'role' ? dialog.user : null}
        open={dialog?.kind === 'role'}
        onOpenChange={(open) => !open && setDialog(null)}
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
      />
    </div>
  );
}
