// Clearing bank details asks first: the vendor can no longer be paid by ACH until they are entered again.
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
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
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Clear Banking Information"
      description={`Remove the bank details of ${vendor.name}? Bills to this vendor cannot be paid by ACH until new details are entered. The change is kept in the vendor's history.`}
      actionLabel="Clear Banking"
      busyLabel="Clearing..."
      run={() => clearVendorBanking(vendor.id)}
      successMessage="Banking information cleared"
      onDone={onCleared}
      errorTitle="Failed to clear banking information"
    />
  );
}
