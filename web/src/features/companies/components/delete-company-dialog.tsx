// Delete asks first, in the spec's words; the history (events) is kept.
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { useGqlMutation } from '../../../lib/use-graphql';
import { COMPANY_MESSAGES, type Company, DeleteCompany } from '../api/companies';

export function DeleteCompanyDialog({
  company,
  onOpenChange,
  onDeleted,
}: {
  company: Pick<Company, 'id'> | null;
  onOpenChange: (open: boolean) => void;
  onDeleted?: () => void;
}) {
  const remove = useGqlMutation(DeleteCompany, 'Failed to delete company');
  return (
    <ConfirmActionDialog
      open={company !== null}
      onOpenChange={onOpenChange}
      title="Delete Company"
      description="Are you sure you want to delete this company? This action cannot be undone and will remove all associated data."
      actionLabel="Delete Company"
      busyLabel="Deleting..."
      run={async () => {
        // Open only with a company; it may be cleared while the dialog fades out.
        if (!company) throw new Error('No company is selected');
        await remove({ id: company.id });
        return {};
      }}
      successMessage={COMPANY_MESSAGES.deleted}
      onDone={() => onDeleted?.()}
      errorFallback="Failed to delete company"
    />
  );
}
