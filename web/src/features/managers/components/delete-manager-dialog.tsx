// Delete asks first (issue 10: the spec's list deleted without confirmation; a finance team expects one).
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
import type { Manager } from '../../../types/api';
import { deleteManager } from '../api/managers';
import { managerName } from '../utils/manager-rules';

export function DeleteManagerDialog({
  manager,
  open,
  onOpenChange,
  onDeleted,
}: {
  manager: Manager | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onDeleted?: (manager: Manager) => void;
}) {
  const [busy, setBusy] = useState(false);
  if (!manager) return null;
  return (
    <AlertDialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete Manager</AlertDialogTitle>
          <AlertDialogDescription>
            Are you sure you want to delete {managerName(manager)}? Their user account stays; the manager is
            removed from lists and its history is kept.
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
                const res = await deleteManager(manager.id);
                toast.success(res.message ?? 'Manager deleted successfully');
                onOpenChange(false);
                onDeleted?.(manager);
              } catch (err) {
                toast.error(err instanceof Error ? err.message : 'An error occurred');
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? 'Deleting...' : 'Delete Manager'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
