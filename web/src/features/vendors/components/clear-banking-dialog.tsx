// Clearing bank details asks first: the vendor can no longer be paid by ACH until they are entered again.
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
import type { Vendor } from '../../../types/api';
import { clearVendorBanking } from '../api/vendors';

export function ClearBankingDialog({
  vendor,
  open,
  onOpenChange,
  onCleared,
}: {
  vendor: Vendor;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCleared: () => void;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <AlertDialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Clear Banking Information</AlertDialogTitle>
          <AlertDialogDescription>
            Remove the bank details of {vendor.name}? Bills to this vendor cannot be paid by ACH until new
            details are entered. The change is kept in the vendor's history.
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
                const res = await clearVendorBanking(vendor.id);
                toast.success(res.message ?? 'Banking information cleared');
                onOpenChange(false);
                onCleared();
              } catch (err) {
                toast.error(
                  err instanceof Error ? err.message : 'An error occurred',
                  'Failed to clear banking information',
                );
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? 'Clearing...' : 'Clear Banking'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
