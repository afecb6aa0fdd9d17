// Forgetting a vendor (ADMIN) cannot be undone: it asks first, and says what is lost.
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
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
import { forgetVendor } from '../api/vendors';

export function ForgetVendorDialog({
  vendor,
  open,
  onOpenChange,
}: {
  vendor: Vendor;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  return (
    <AlertDialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Forget Vendor</AlertDialogTitle>
          <AlertDialogDescription>
            Erase {vendor.name}'s contact and bank details for good? They can no longer be read by anyone, the
            vendor leaves every list, and a sync from QuickBooks will not bring it back. This cannot be
            undone.
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
                const res = await forgetVendor(vendor.id);
                toast.success(res.message ?? 'Vendor forgotten');
                onOpenChange(false);
                navigate('/vendors');
              } catch (err) {
                toast.error(
                  err instanceof Error ? err.message : 'An error occurred',
                  'Failed to forget vendor',
                );
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? 'Forgetting...' : 'Forget Vendor'}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
