import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { useGqlMutation } from '../../../lib/use-graphql';
import { DeleteUser, USER_MESSAGES, type User } from '../api/users';
import { fullName } from '../utils/user-rules';

function userLabel(user: User) {
  const name = fullName(user);
  return name ? `${name} (${user.email})` : user.email;
}

export function DeleteUserDialog({
  user,
  open,
  onOpenChange,
  onDeleted,
}: {
  user: User | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onDeleted?: (user: User) => void;
}) {
  const remove = useGqlMutation(DeleteUser, 'Failed to delete user');
  if (!user) return null;
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Delete User"
      description={`Are you sure you want to delete ${userLabel(user)}? This action cannot be undone.`}
      actionLabel="Delete User"
      busyLabel="Deleting..."
      run={async () => {
        await remove({ id: user.id });
        return {};
      }}
      successMessage={USER_MESSAGES.deleted}
      onDone={() => onDeleted?.(user)}
      errorFallback="Failed to delete user"
    />
  );
}
