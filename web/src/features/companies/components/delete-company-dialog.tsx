// Delete asks first, in the spec's words (spec 1 §2 Companies list); the history (events) is kept.
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
  const [busy, setBusy] = useState(false);
  return (
    <AlertDialog open={company !== null} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete Company</AlertDialogTitle>
          <AlertDialogDescription>
            Are you sure you want to delete this company? This action cannot be undone and will remove all
            associated data.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={busy}>Cancel</AlertDialogCancel>
          <AlertDialogAction
            variant="destructive"
            disabled={busy}
            onClick={async (event) => {
              event.preventDefault();
              if (!company) return;
              setBusy(true);
              try {
                const res = await deleteCompany(company.id);
                toast.success(res.message ?? 'Company deleted successfully');
                onOpenChange(false);
                onDeleted?.(company);
              } catch (err) {
                toast.error(err instanceof Error ? err.message : 'An error occurred');
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? 'Deleting...' : 'Delete Company'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
