// /managers/new.
import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { CreateManager, MANAGER_MESSAGES, UserChoicesQuery } from '../api/managers';
import { EMPTY_MANAGER_FORM, toManagerPayload, USER_PICKER_LIMIT } from '../utils/manager-rules';
import { ManagerForm } from './manager-form';

export function ManagerCreatePage() {
  useDocumentTitle('New manager');
  const navigate = useNavigate();
  const users = useGqlQuery(
    UserChoicesQuery,
    { limit: USER_PICKER_LIMIT },
    { fallback: 'Failed to fetch users' },
  );
  const create = useGqlMutation(CreateManager, 'Failed to create manager');
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Create Manager"
        description="Add a manager and, if they use Billflow, link their user account"
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to="/managers">
              <ArrowLeft aria-hidden="true" />
              Back to Managers
            </Link>
          </Button>
        }
      />
      {users.loading && !users.data ? (
        <LoadingState text="Loading users..." />
      ) : (
        <ManagerForm
          heading="Create Manager"
          initial={EMPTY_MANAGER_FORM}
          users={users.data?.users.data ?? []}
          submitLabel="Create Manager"
          busyLabel="Creating..."
          serverErrors={serverErrors}
          onCancel={() => navigate('/managers')}
          onSubmit={async (values) => {
            setServerErrors({});
            try {
              const { createManager: manager } = await create({ input: toManagerPayload(values) });
              toast.success(MANAGER_MESSAGES.created);
              navigate(`/managers/${manager.id}`);
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
