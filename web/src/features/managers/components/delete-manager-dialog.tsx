// Delete asks first: a finance team expects a confirmation before a manager is gone.
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { useGqlMutation } from '../../../lib/use-graphql';
import { DeleteManager, MANAGER_MESSAGES, type Manager } from '../api/managers';
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
  const remove = useGqlMutation(DeleteManager, 'Failed to delete manager');
  if (!manager) return null;
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Delete Manager"
      description={`Are you sure you want to delete ${managerName(manager)}? Their user account stays; the manager is removed from lists and its history is kept.`}
      actionLabel="Delete Manager"
      busyLabel="Deleting..."
      run={async () => {
        await remove({ id: manager.id });
        return {};
      }}
      successMessage={MANAGER_MESSAGES.deleted}
      onDone={() => onDeleted?.(manager)}
    />
  );
}
