import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import type { User } from '../../../types/api';
import { deleteUser } from '../api/delete-user';
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
  if (!user) return null;
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Delete User"
      description={`Are you sure you want to delete ${userLabel(user)}? This action cannot be undone.`}
      actionLabel="Delete User"
      busyLabel="Deleting..."
      run={() => deleteUser(user.id)}
      successMessage="User deleted successfully"
      onDone={() => onDeleted?.(user)}
      errorFallback="Failed to delete user"
    />
  );
}
