// Forgetting a vendor (ADMIN) cannot be undone: it asks first, and says what is lost.
import { useNavigate } from 'react-router-dom';
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
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
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Forget Vendor"
      description={`Erase ${vendor.name}'s contact and bank details for good? They can no longer be read by anyone, the vendor leaves every list, and a sync from QuickBooks will not bring it back. This cannot be undone.`}
      actionLabel="Forget Vendor"
      busyLabel="Forgetting..."
      run={() => forgetVendor(vendor.id)}
      successMessage="Vendor forgotten"
      onDone={() => navigate('/vendors')}
      errorTitle="Failed to forget vendor"
    />
  );
}
