// /vendors/{id}/edit-banking (spec 2 §2, §5 Vendor banking): routing and account number, account
// type, bank name. The form starts empty: the stored numbers are never sent to the browser for editing.
import { ArrowLeft, RefreshCw } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { LoadingState } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { ApiError } from '../../../lib/errors';
import { useRemote } from '../../../lib/use-remote';
import type { Vendor } from '../../../types/api';
import { getVendor, updateVendorBanking } from '../api/vendors';
import { type BankingErrors, type BankingValues, validateBanking } from '../utils/vendor-rules';
import { isNotFound, VendorNotFound } from './vendor-not-found';

function BankingForm({ vendor }: { vendor: Vendor }) {
  const navigate = useNavigate();
  const [values, setValues] = useState<BankingValues>({
    routingNumber: '',
    accountNumber: '',
    accountType: vendor.accountType ?? 'checking',
    bankName: vendor.bankName ?? '',
  });
  const [errors, setErrors] = useState<BankingErrors>({});
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<BankingValues>) => {
    setValues((v) => ({ ...v, ...patch }));
    setErrors((e) => {
      const next = { ...e };
      for (const k of Object.keys(patch)) delete next[k as keyof BankingValues];
      return next;
    });
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateBanking(values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const res = await updateVendorBanking(vendor.id, {
        ...values,
        routingNumber: values.routingNumber.trim(),
        accountNumber: values.accountNumber.trim(),
      });
      toast.success(res.message ?? 'Banking information updated successfully');
      navigate(`/vendors/${vendor.id}`);
    } catch (err) {
      if (err instanceof ApiError) setErrors(err.fieldErrors as BankingErrors);
      toast.error(
        err instanceof Error ? err.message : 'An error occurred',
        'Failed to update banking information',
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card className="max-w-2xl">
      <CardHeader>
        <CardTitle as="h2">{vendor.name}</CardTitle>
        <CardDescription>
          {vendor.hasBankingInfo
            ? `Now on file: ${vendor.bankName ? `${vendor.bankName}, ` : ''}routing ${vendor.routingNumber}, account ${vendor.accountNumber}. Enter the full numbers to replace them.`
            : 'No bank details on file yet.'}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form className="grid gap-4" onSubmit={submit} noValidate>
          <TextField
            id="routingNumber"
            label="Routing Number"
            inputMode="numeric"
            autoComplete="off"
            maxLength={9}
            placeholder="9 digits"
            value={values.routingNumber}
            error={errors.routingNumber}
            onChange={(e) => set({ routingNumber: e.target.value })}
          />
          <TextField
            id="accountNumber"
            label="Account Number"
            autoComplete="off"
            maxLength={34}
            placeholder="5 to 17 characters"
            value={values.accountNumber}
            error={errors.accountNumber}
            onChange={(e) => set({ accountNumber: e.target.value })}
          />
          <div className="grid gap-2">
            <Label htmlFor="accountType">Account Type</Label>
            <Select
              value={values.accountType}
              onValueChange={(v) => set({ accountType: v as BankingValues['accountType'] })}
            >
              <SelectTrigger id="accountType" aria-label="Account Type">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value="checking">Checking</SelectItem>
                <SelectItem value="savings">Savings</SelectItem>
              </SelectContent>
            </Select>
            {errors.accountType ? <p className="text-sm text-destructive">{errors.accountType}</p> : null}
          </div>
          <TextField
            id="bankName"
            label="Bank Name (optional)"
            maxLength={100}
            value={values.bankName}
            error={errors.bankName}
            onChange={(e) => set({ bankName: e.target.value })}
          />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={busy}>
              {busy ? 'Saving...' : 'Save Banking Information'}
            </Button>
            <Button type="button" variant="outline" onClick={() => navigate(`/vendors/${vendor.id}`)}>
              Cancel
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

export function VendorEditBankingPage() {
  const { id = '' } = useParams();
  const valid = /^\d+$/.test(id);
  const vendor = useRemote((signal) => getVendor(id, false, signal), [id], { enabled: valid });
  const v = vendor.data;
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Edit Banking Information"
        description={v ? `Bank details used to pay ${v.name} by ACH` : undefined}
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to={valid ? `/vendors/${id}` : '/vendors'}>
              <ArrowLeft aria-hidden="true" />
              Back
            </Link>
          </Button>
        }
      />
      {isNotFound(vendor.error, valid) ? (
        <VendorNotFound />
      ) : vendor.error && !v ? (
        <div role="alert" className="flex flex-col items-center gap-3 py-12 text-center">
          <p className="text-sm text-destructive">Error loading vendor: {vendor.error.message}</p>
          <Button variant="outline" size="sm" onClick={vendor.reload}>
            <RefreshCw aria-hidden="true" />
            Retry
          </Button>
        </div>
      ) : !v ? (
        <LoadingState text="Loading vendor..." />
      ) : (
        <BankingForm key={v.id} vendor={v} />
      )}
    </div>
  );
}
