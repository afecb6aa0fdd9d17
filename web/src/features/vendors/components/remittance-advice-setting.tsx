// Whether the vendor is mailed a remittance advice (the payer, the amount, the bills and the trace)
// when a file paying it goes to the bank. On by default; ADMIN and MODERATOR turn it off or on, and
// each change is a line of the vendor's history. Others see the setting only.
import { useState } from 'react';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import { SetVendorRemittanceAdvice, VENDOR_MESSAGES, type Vendor } from '../api/vendors';

export function RemittanceAdviceSetting({
  vendor,
  mayChange,
}: {
  vendor: Pick<Vendor, 'id' | 'email' | 'remittanceAdvice'>;
  mayChange: boolean;
}) {
  const set = useGqlMutation(SetVendorRemittanceAdvice, 'Failed to change the remittance advice');
  const [busy, setBusy] = useState(false);
  const on = vendor.remittanceAdvice;
  async function change(enabled: boolean) {
    setBusy(true);
    try {
      await set({ id: vendor.id, enabled });
      toast.success(enabled ? VENDOR_MESSAGES.remittanceOn : VENDOR_MESSAGES.remittanceOff);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred', 'Failed to change the setting');
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="flex items-start gap-3">
      <Switch
        id="vendor-remittance-advice"
        checked={on}
        disabled={!mayChange || busy}
        onCheckedChange={change}
        aria-describedby="vendor-remittance-advice-hint"
      />
      <div className="grid gap-1">
        <Label htmlFor="vendor-remittance-advice">Send remittance advice</Label>
        <p id="vendor-remittance-advice-hint" className="text-sm text-muted-foreground">
          {!on
            ? 'Off: the vendor is not told when a file paying it goes to the bank.'
            : vendor.email
              ? 'When a file paying this vendor goes to the bank, its e-mail on record is told the amount, the bills paid, the account’s last four digits and the trace number.'
              : 'On, but the vendor has no e-mail on record in QuickBooks: nobody is told until it has one.'}
        </p>
      </div>
    </div>
  );
}
