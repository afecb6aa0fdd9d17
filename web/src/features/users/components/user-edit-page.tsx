import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useSession } from '../../../lib/auth';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { UpdateUser, USER_MESSAGES, UserQuery } from '../api/users';
import { UserForm } from './user-form';
import { UserLoadError } from './user-load-error';

export function UserEditPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const numericId = /^\d+$/.test(id) ? Number(id) : null;
  // The literal 'undefined' (a link built from a missing id), or any other non-number: not found.
  const invalidId = numericId === null;
  const remote = useGqlQuery(
    UserQuery,
    { id: numericId ?? 0 },
    { pause: invalidId, fallback: 'Failed to fetch user' },
  );
  const update = useGqlMutation(UpdateUser, 'Failed to update user');
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const user = remote.data?.user;
  useDocumentTitle(
    user ? `Edit ${[user.firstName, user.lastName].filter(Boolean).join(' ') || user.email}` : 'Edit user',
  );
  const session = useSession();

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Edit User"
        description={user ? user.email : 'Update the user account'}
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to={invalidId ? '/users' : `/users/${id}`}>
              <ArrowLeft aria-hidden="true" />
              Back
            </Link>
          </Button>
        }
      />
      {invalidId || (remote.error && !user) ? (
        <UserLoadError
          message={invalidId ? 'User not found' : (remote.error?.message ?? 'User not found')}
          onRetry={invalidId ? undefined : remote.reload}
        />
      ) : !user ? (
        <LoadingState text="Loading user..." />
      ) : (
        <UserForm
          key={user.id}
          mode="edit"
          ownAccount={session.user?.id === user.id}
          initial={{
            email: user.email,
            password: '',
            currentPassword: '',
            firstName: user.firstName ?? '',
            lastName: user.lastName ?? '',
            role: user.role,
            isActive: user.isActive,
          }}
          submitLabel="Save Changes"
          busyLabel="Saving..."
          serverErrors={serverErrors}
          onCancel={() => navigate(`/users/${user.id}`)}
          onSubmit={async (values) => {
            setServerErrors({});
            try {
              const input = {
                email: values.email.trim(),
                firstName: values.firstName.trim() || null,
                lastName: values.lastName.trim() || null,
                role: values.role,
                isActive: values.isActive,
              };
              // One's own new address needs the current password (the form asks for it then).
              await update({
                id: user.id,
                input: values.currentPassword ? { ...input, currentPassword: values.currentPassword } : input,
              });
              toast.success(USER_MESSAGES.updated);
              navigate(`/users/${user.id}`);
            } catch (err) {
              if (err instanceof ApiError) setServerErrors(err.fieldErrors);
              toast.error(err instanceof Error ? err.message : 'Failed to update user');
            }
          }}
        />
      )}
    </div>
  );
}
