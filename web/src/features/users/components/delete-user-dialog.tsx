import { useState } from 'react';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from '../../../components/ui/alert-dialog';
import { toast } from '../../../components/ui/use-toast';
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
  const [busy, setBusy] = useState(false);
  if (!user) return null;
  return (
    <AlertDialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete User</AlertDialogTitle>
          <AlertDialogDescription>
            Are you sure you want to delete {userLabel(user)}? This action cannot be undone.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={busy}>Cancel</AlertDialogCancel>
          <AlertDialogAction
            variant="destructive"
            disabled={busy}
            onClick={async (event) => {
              event.preventDefault();
              setBusy(true);
              try {
                const res = await deleteUser(user.id);
                toast.success(res.message ?? 'User deleted successfully');
                onOpenChange(false);
                onDeleted?.(user);
              } catch (err) {
                toast.error(err instanceof Error ? err.message : 'Failed to delete user');
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? 'Deleting...' : 'Delete User'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
