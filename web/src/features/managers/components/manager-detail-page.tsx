// /managers/{id}: header, contact, user association, system information.
import { ArrowLeft, MoreHorizontal, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../../../components/ui/dropdown-menu';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useManagerChanged } from '../../../hooks/use-manager-changed';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { MANAGER_MESSAGES, ManagerQuery, UnlinkManagerUser } from '../api/managers';
import { formatLong, managerInitials, managerName } from '../utils/manager-rules';
import { DeleteManagerDialog } from './delete-manager-dialog';
import { ManagerAvatar, ManagerStatusBadge } from './manager-badges';

export function ManagerDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const valid = /^\d+$/.test(id);
  const manager = useGqlQuery(
    ManagerQuery,
    { id: valid ? Number(id) : 0 },
    { pause: !valid, fallback: 'Manager not found' },
  );
  const unlinkUser = useGqlMutation(UnlinkManagerUser, 'Failed to unlink user');
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  useManagerChanged(valid ? Number(id) : null, !valid);
  const m = manager.data?.manager;
  useDocumentTitle(m ? managerName(m) : 'Manager');

  async function unlink() {
    if (!m) return;
    setBusy(true);
    try {
      await unlinkUser({ id: m.id });
      toast.success(MANAGER_MESSAGES.unlinked);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    } finally {
      setBusy(false);
    }
  }

  const title = (
    <PageHeader
      title="Manager Details"
      actions={
        <Button variant="outline" size="sm" asChild>
          <Link to="/managers">
            <ArrowLeft aria-hidden="true" />
            Back to Managers
          </Link>
        </Button>
      }
    />
  );
  if (!valid || (manager.error && !m))
    return (
      <div className="grid grid-cols-1 gap-6">
        {title}
        <div role="alert" className="flex flex-col items-center gap-3 py-12 text-center">
          <p className="text-sm text-destructive">
            Error loading manager: {(valid && manager.error?.message) || 'Manager not found'}
          </p>
          <div className="flex gap-2">
            {valid ? (
              <Button variant="outline" size="sm" onClick={manager.reload}>
                <RefreshCw aria-hidden="true" />
                Retry
              </Button>
            ) : null}
          </div>
        </div>
      </div>
    );
  if (!m)
    return (
      <div className="grid grid-cols-1 gap-6">
        {title}
        <LoadingState text="Loading manager..." />
      </div>
    );
  const linkedName = m.user
    ? [m.user.firstName, m.user.lastName].filter(Boolean).join(' ') || m.user.email
    : null;

  return (
    <div className="grid grid-cols-1 gap-6">
      {title}
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="flex items-center gap-4">
          <ManagerAvatar initials={managerInitials(m)} large />
          <div className="grid gap-1">
            <h2 className="text-2xl font-semibold tracking-tight">{managerName(m)}</h2>
            {m.title ? <p className="text-sm text-muted-foreground">{m.title}</p> : null}
            <p className="text-sm text-muted-foreground">{m.email}</p>
            <div className="flex gap-2">
              <ManagerStatusBadge status={m.status} />
              <Badge variant={m.isActive ? 'secondary' : 'outline'}>
                {m.isActive ? 'Active' : 'Inactive'}
              </Badge>
            </div>
          </div>
        </div>
        <div className="flex gap-2">
          <Button variant="outline" onClick={manager.reload} disabled={manager.loading}>
            <RefreshCw aria-hidden="true" />
            Refresh
          </Button>
          <DropdownMenu>
            <DropdownMenuTrigger asChild>
              <Button variant="outline" aria-label="Actions">
                <MoreHorizontal aria-hidden="true" />
                Actions
              </Button>
            </DropdownMenuTrigger>
            <DropdownMenuContent align="end">
              <DropdownMenuItem onSelect={() => navigate(`/managers/${m.id}/edit`)}>
                Edit Manager
              </DropdownMenuItem>
              {m.user ? (
                <DropdownMenuItem onSelect={unlink} disabled={busy}>
                  Unlink User
                </DropdownMenuItem>
              ) : (
                <DropdownMenuItem onSelect={() => navigate(`/managers/${m.id}/edit`)}>
                  Link User
                </DropdownMenuItem>
              )}
              <DropdownMenuSeparator />
              <DropdownMenuItem variant="destructive" onSelect={() => setDeleting(true)}>
                Delete Manager
              </DropdownMenuItem>
            </DropdownMenuContent>
          </DropdownMenu>
        </div>
      </div>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle as="h2">Contact Information</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="grid gap-3 text-sm">
              <div>
                <dt className="text-muted-foreground">Email</dt>
                <dd>{m.email}</dd>
              </div>
              {m.phone ? (
                <div>
                  <dt className="text-muted-foreground">Phone</dt>
                  <dd>{m.phone}</dd>
                </div>
              ) : null}
              {m.title ? (
                <div>
                  <dt className="text-muted-foreground">Title</dt>
                  <dd>{m.title}</dd>
                </div>
              ) : null}
            </dl>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle as="h2">User Association</CardTitle>
          </CardHeader>
          <CardContent className="grid gap-3 text-sm">
            {m.user ? (
              <>
                <p role="status" className="rounded-md border border-blue-200 bg-blue-50 p-3 text-blue-900">
                  This manager is linked to a user account and can access the system.
                </p>
                <dl className="grid gap-1">
                  <dt className="sr-only">Name</dt>
                  <dd className="font-medium">{linkedName}</dd>
                  <dt className="sr-only">Email</dt>
                  <dd>{m.user.email}</dd>
                  <dt className="sr-only">Role</dt>
                  <dd>
                    <Badge variant="outline">{m.user.role}</Badge>
                  </dd>
                </dl>
                <Button variant="outline" onClick={unlink} disabled={busy} className="w-fit">
                  Unlink User Account
                </Button>
              </>
            ) : (
              <>
                <p
                  role="status"
                  className="rounded-md border border-amber-200 bg-amber-50 p-3 text-amber-900"
                >
                  This manager is not linked to any user account and cannot access the system.
                </p>
                <Button variant="outline" asChild className="w-fit">
                  <Link to={`/managers/${m.id}/edit`}>Link User Account</Link>
                </Button>
              </>
            )}
          </CardContent>
        </Card>
        <Card className="lg:col-span-2">
          <CardHeader>
            <CardTitle as="h2">System Information</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="grid gap-3 text-sm sm:grid-cols-3">
              <div>
                <dt className="text-muted-foreground">Manager ID</dt>
                <dd>{m.id}</dd>
              </div>
              <div>
                <dt className="text-muted-foreground">Created</dt>
                <dd>{formatLong(m.createdAt)}</dd>
              </div>
              <div>
                <dt className="text-muted-foreground">Last Updated</dt>
                <dd>{formatLong(m.updatedAt)}</dd>
              </div>
            </dl>
          </CardContent>
        </Card>
      </div>
      <DeleteManagerDialog
        manager={m}
        open={deleting}
        onOpenChange={setDeleting}
        onDeleted={() => navigate('/managers')}
      />
    </div>
  );
}
