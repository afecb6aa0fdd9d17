// Forgetting a vendor (ADMIN) cannot be undone: it asks first, and says what is lost.
import { useNavigate } from 'react-router-dom';
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { useGqlMutation } from '../../../lib/use-graphql';
import { ForgetVendor, VENDOR_MESSAGES, type Vendor } from '../api/vendors';

export function ForgetVendorDialog({
  vendor,
  open,
  onOpenChange,
}: {
  vendor: Pick<Vendor, 'id' | 'name'>;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const navigate = useNavigate();
  const forget = useGqlMutation(ForgetVendor, 'Failed to forget vendor');
  return (
    <ConfirmActionDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Forget Vendor"
      description={`Erase ${vendor.name}'s contact and bank details for good? They can no longer be read by anyone, the vendor leaves every list, and a sync from QuickBooks will not bring it back. This cannot be undone.`}
      actionLabel="Forget Vendor"
      busyLabel="Forgetting..."
      run={async () => {
        await forget({ id: vendor.id });
        return {};
      }}
      successMessage={VENDOR_MESSAGES.forgotten}
      onDone={() => navigate('/vendors')}
      errorTitle="Failed to forget vendor"
    />
  );
}
