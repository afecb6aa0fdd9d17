// Delete asks first, in the spec's words (spec 1 §2 Companies list); the history (events) is kept.
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import type { Company } from '../../../types/api';
import { deleteCompany } from '../api/companies';

export function DeleteCompanyDialog({
  company,
  onOpenChange,
  onDeleted,
}: {
  company: Company | null;
  onOpenChange: (open: boolean) => void;
  onDeleted?: (company: Company) => void;
}) {
  return (
    <ConfirmActionDialog
      open={company !== null}
      onOpenChange={onOpenChange}
      title="Delete Company"
      description="Are you sure you want to delete this company? This action cannot be undone and will remove all associated data."
      actionLabel="Delete Company"
      busyLabel="Deleting..."
      run={() => {
        // Open only with a company; it may be cleared while the dialog fades out.
        if (!company) throw new Error('No company is selected');
        return deleteCompany(company.id);
      }}
      successMessage="Company deleted successfully"
      onDone={() => company && onDeleted?.(company)}
    />
  );
}
