// /managers/new (spec 2 §2 Create manager).
import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { ApiError } from '../../../lib/errors';
import { useRemote } from '../../../lib/use-remote';
import { createManager, getUserChoices } from '../api/managers';
import { EMPTY_MANAGER_FORM, toManagerPayload } from '../utils/manager-rules';
import { ManagerForm } from './manager-form';

export function ManagerCreatePage() {
  const navigate = useNavigate();
  const users = useRemote((signal) => getUserChoices(signal), []);
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
          users={users.data ?? []}
          submitLabel="Create Manager"
          busyLabel="Creating..."
          serverErrors={serverErrors}
          onCancel={() => navigate('/managers')}
          onSubmit={async (values) => {
            setServerErrors({});
            try {
              const { manager, message } = await createManager(toManagerPayload(values));
              toast.success(message ?? 'Manager created successfully');
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
