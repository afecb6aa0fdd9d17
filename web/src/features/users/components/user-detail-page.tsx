import { ArrowLeft, KeyRound, Pencil, Power, PowerOff, Shield, Trash2 } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useUserChanged } from '../../../hooks/use-user-changed';
import { useSession } from '../../../lib/auth';
import { useGqlQuery } from '../../../lib/use-graphql';
import { type User, UserQuery, UserStatisticsQuery, useSetUserActive } from '../api/users';
import {
  formatDate,
  formatDateTime,
  fullName,
  loginFrequency,
  systemUsage,
  ZERO_USER_STATISTICS,
} from '../utils/user-rules';
import { ChangePasswordDialog } from './change-password-dialog';
import { ChangeRoleDialog } from './change-role-dialog';
import { DeleteUserDialog } from './delete-user-dialog';
import { RoleBadge, StatusBadge } from './role-badge';
import { UserLoadError } from './user-load-error';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid min-w-0 gap-1">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      {/* Long e-mail addresses wrap inside the card instead of running out of it. */}
      <dd
        className="text-sm font-medium [overflow-wrap:anywhere]"
        data-testid={`field-${label.toLowerCase().replace(/\s+/g, '-')}`}
      >
        {children}
      </dd>
    </div>
  );
}

export function UserDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  // The literal 'undefined' (a link built from a missing id) is an error, not a call.
  const invalidId = id === 'undefined';
  const numericId = /^\d+$/.test(id) ? Number(id) : null;
  // A path that is no number cannot name a user (the REST route answered the same).
  const readable = !invalidId && numericId !== null;
  const remote = useGqlQuery(
    UserQuery,
    { id: numericId ?? 0 },
    { pause: !readable, fallback: 'Failed to fetch user' },
  );
  const stats = useGqlQuery(UserStatisticsQuery, { userId: numericId ?? 0 }, { pause: !readable });
  const setUserActive = useSetUserActive();
  const [deleted, setDeleted] = useState(false);
  const [dialog, setDialog] = useState<'role' | 'password' | 'delete' | null>(null);
  const [toggling, setToggling] = useState(false);
  const user = deleted ? undefined : remote.data?.user;
  useDocumentTitle(user ? fullName(user) || user.email : 'User');
  const session = useSession();

  // Another session changed this user: the cache re-reads it; a deletion ends the page.
  useUserChanged(
    numericId,
    (change) => {
      if (change.id === numericId && !change.user) setDeleted(true);
    },
    !readable,
  );

  const errorMessage =
    invalidId || deleted
      ? 'User not found'
      : !readable
        ? 'User not found'
        : remote.error && !remote.data
          ? remote.error.message
          : null;

  async function toggleActive(u: User) {
    setToggling(true);
    try {
      toast.success(await setUserActive(u.id, !u.isActive));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    } finally {
      setToggling(false);
    }
  }

  // Zero figures when the statistics cannot be read.
  const s = stats.data?.userStatistics ?? (stats.error ? ZERO_USER_STATISTICS : undefined);
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="User Details"
        description={user ? fullName(user) || user.email : undefined}
        actions={
          <>
            <Button variant="outline" size="sm" asChild>
              <Link to="/users">
                <ArrowLeft aria-hidden="true" />
                Back to Users
              </Link>
            </Button>
            {user ? (
              <Button size="sm" asChild>
                <Link to={`/users/${user.id}/edit`}>
                  <Pencil aria-hidden="true" />
                  Edit User
                </Link>
              </Button>
            ) : null}
          </>
        }
      />
      {errorMessage !== null ? (
        <UserLoadError
          message={errorMessage}
          onRetry={!readable || deleted || remote.error?.status === 404 ? undefined : remote.reload}
        />
      ) : !user ? (
        <LoadingState text="Loading user..." />
      ) : (
        <>
          <div className="grid gap-6 lg:grid-cols-2">
            <Card>
              <CardHeader>
                <CardTitle as="h2">User Information</CardTitle>
                <CardDescription>Account details</CardDescription>
              </CardHeader>
              <CardContent>
                <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2">
                  <Field label="Name">{fullName(user) || 'N/A'}</Field>
                  <Field label="Email">{user.email}</Field>
                  <Field label="Role">
                    <RoleBadge role={user.role} />
                  </Field>
                  <Field label="Status">
                    <StatusBadge active={user.isActive} />
                  </Field>
                  <Field label="Created">{formatDate(user.createdAt)}</Field>
                  <Field label="Last Updated">{formatDate(user.updatedAt)}</Field>
                  <Field label="User ID">{user.id}</Field>
                </dl>
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle as="h2">Statistics</CardTitle>
                <CardDescription>Activity of this user</CardDescription>
              </CardHeader>
              <CardContent>
                {!s ? (
                  <LoadingState text="Loading statistics..." />
                ) : (
                  <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2">
                    <Field label="Total Logins">{s.totalLogins}</Field>
                    <Field label="Last Login">{s.lastLogin ? formatDateTime(s.lastLogin) : 'Never'}</Field>
                    <Field label="Companies Managed">{s.companiesManaged}</Field>
                    <Field label="Approvals Created">{s.approvalsCreated}</Field>
                    <Field label="Login Frequency">
                      <Badge variant="secondary">{loginFrequency(s.totalLogins)}</Badge>
                    </Field>
                    <Field label="System Usage">
                      <Badge variant="secondary">{systemUsage(s)}</Badge>
                    </Field>
                  </dl>
                )}
              </CardContent>
            </Card>
          </div>
          <Card>
            <CardHeader>
              <CardTitle as="h2">Actions</CardTitle>
            </CardHeader>
            <CardContent className="flex flex-wrap gap-2">
              <Button variant="outline" onClick={() => setDialog('role')}>
                <Shield aria-hidden="true" />
                Change Role
              </Button>
              <Button variant="outline" onClick={() => setDialog('password')}>
                <KeyRound aria-hidden="true" />
                Change Password
              </Button>
              <Button variant="outline" disabled={toggling} onClick={() => toggleActive(user)}>
                {user.isActive ? <PowerOff aria-hidden="true" /> : <Power aria-hidden="true" />}
                {user.isActive ? 'Deactivate' : 'Activate'}
              </Button>
              <Button variant="destructive" onClick={() => setDialog('delete')}>
                <Trash2 aria-hidden="true" />
                Delete User
              </Button>
            </CardContent>
          </Card>
          <ChangeRoleDialog
            user={user}
            open={dialog === 'role'}
            onOpenChange={(open) => setDialog(open ? 'role' : null)}
          />
          <ChangePasswordDialog
            user={user}
            own={session.user?.id === user.id}
            open={dialog === 'password'}
            onOpenChange={(open) => setDialog(open ? 'password' : null)}
          />
          <DeleteUserDialog
            user={user}
            open={dialog === 'delete'}
            onOpenChange={(open) => setDialog(open ? 'delete' : null)}
            onDeleted={() => navigate('/users')}
          />
        </>
      )}
    </div>
  );
}
