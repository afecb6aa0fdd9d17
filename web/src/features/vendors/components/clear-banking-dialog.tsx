// Clearing bank details asks first: the vendor can no longer be paid by ACH until they are entered again.
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { useGqlMutation } from '../../../lib/use-graphql';
import { ClearVendorBanking, VENDOR_MESSAGES, type Vendor } from '../api/vendors';

export function ClearBankingDialog({
  vendor,
  open,
  onOpenChange,
}: {
  vendor: Pick<Vendor, 'id' | 'name'>;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  // The vendor and its history are re-read through the cache.
  const clear = useGqlMutation(ClearVendorBanking, 'Failed to clear banking information');
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Clear Banking Information"
      description={`Remove the bank details of ${vendor.name}? Bills to this vendor cannot be paid by ACH until new details are entered. The change is kept in the vendor's history.`}
      actionLabel="Clear Banking"
      busyLabel="Clearing..."
      run={async () => {
        await clear({ id: vendor.id });
        return {};
      }}
      successMessage={VENDOR_MESSAGES.bankingCleared}
      errorTitle="Failed to clear banking information"
    />
  );
}
