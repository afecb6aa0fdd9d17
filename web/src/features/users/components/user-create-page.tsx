import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation } from '../../../lib/use-graphql';
import { RegisterUser, USER_MESSAGES } from '../api/users';
import { EMPTY_USER_FORM, UserForm } from './user-form';

export function UserCreatePage() {
  useDocumentTitle('New user');
  const navigate = useNavigate();
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const register = useGqlMutation(RegisterUser, 'Registration failed');
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Create User"
        description="Add a new user account"
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to="/users">
              <ArrowLeft aria-hidden="true" />
              Back to Users
            </Link>
          </Button>
        }
      />
      <UserForm
        mode="create"
        initial={EMPTY_USER_FORM}
        submitLabel="Create User"
        busyLabel="Creating..."
        serverErrors={serverErrors}
        onCancel={() => navigate('/users')}
        onSubmit={async (values) => {
          setServerErrors({});
          try {
            const { register: user } = await register({
              input: {
                email: values.email.trim(),
                password: values.password,
                firstName: values.firstName.trim() || undefined,
                lastName: values.lastName.trim() || undefined,
                role: values.role,
                isActive: values.isActive,
              },
            });
            toast.success(USER_MESSAGES.created);
            navigate(`/users/${user.id}`);
          } catch (err) {
            if (err instanceof ApiError) setServerErrors(err.fieldErrors);
            toast.error(err instanceof Error ? err.message : 'Registration failed');
          }
        }}
      />
    </div>
  );
}
