// /managers/{id}/edit: the same form; linking a user is done here.
import { ArrowLeft, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { MANAGER_MESSAGES, ManagerQuery, UpdateManager, UserChoicesQuery } from '../api/managers';
import { formValuesOf, managerName, toManagerPayload, USER_PICKER_LIMIT } from '../utils/manager-rules';
import { ManagerForm } from './manager-form';

export function ManagerEditPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const valid = /^\d+$/.test(id);
  const manager = useGqlQuery(
    ManagerQuery,
    { id: valid ? Number(id) : 0 },
    { pause: !valid, fallback: 'Manager not found' },
  );
  const users = useGqlQuery(
    UserChoicesQuery,
    { limit: USER_PICKER_LIMIT },
    { fallback: 'Failed to fetch users' },
  );
  const update = useGqlMutation(UpdateManager, 'Failed to update manager');
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const m = manager.data?.manager;
  useDocumentTitle(m ? `Edit ${managerName(m)}` : 'Edit manager');
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Edit Manager"
        description={m ? `Update information for ${managerName(m)}` : undefined}
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to={valid ? `/managers/${id}` : '/managers'}>
              <ArrowLeft aria-hidden="true" />
              Back
            </Link>
          </Button>
        }
      />
      {!valid || (manager.error && !m) ? (
        <div role="alert" className="flex flex-col items-center gap-3 py-12 text-center">
          <p className="text-sm text-destructive">
            Error loading manager:{' '}
            {valid ? manager.error?.message || 'Manager not found' : 'Manager not found'}
          </p>
          {valid ? (
            <Button variant="outline" size="sm" onClick={manager.reload}>
              <RefreshCw aria-hidden="true" />
              Retry
            </Button>
          ) : null}
        </div>
      ) : !m || (users.loading && !users.data) ? (
        <LoadingState text="Loading manager..." />
      ) : (
        <ManagerForm
          key={m.id}
          heading={`Update information for ${managerName(m)}`}
          initial={formValuesOf(m)}
          users={users.data?.users.data ?? []}
          submitLabel="Update Manager"
          busyLabel="Saving..."
          serverErrors={serverErrors}
          onCancel={() => navigate(`/managers/${m.id}`)}
          onSubmit={async (values) => {
            setServerErrors({});
            try {
              await update({ id: m.id, input: toManagerPayload(values) });
              toast.success(MANAGER_MESSAGES.updated);
              navigate(`/managers/${m.id}`);
            } catch (err) {
              if (err instanceof ApiError) setServerErrors(err.fieldErrors);
              toast.error(err instanceof Error ? err.message : 'An error occurred');
            }
          }}
        />
      )}
    </div>
  );
}
