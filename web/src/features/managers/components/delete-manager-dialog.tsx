// Delete asks first (issue 10: the spec's list deleted without confirmation; a finance team expects one).
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
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
  if (!manager) return null;
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Delete Manager"
      description={`Are you sure you want to delete ${managerName(manager)}? Their user account stays; the manager is removed from lists and its history is kept.`}
      actionLabel="Delete Manager"
      busyLabel="Deleting..."
      run={() => deleteManager(manager.id)}
      successMessage="Manager deleted successfully"
      onDone={() => onDeleted?.(manager)}
    />
  );
}
