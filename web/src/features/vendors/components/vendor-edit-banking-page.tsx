// /vendors/{id}/edit-banking: routing and account number, account
// type, bank name. The form starts empty: the stored numbers are never sent to the browser for editing.
// A new account is held for a second look while the company's control is on: saving says so.
import { ArrowLeft, RefreshCw } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { FormField } from '../../../components/ui/form-field';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { LoadingState } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { UpdateVendorBanking, VENDOR_MESSAGES, type VendorDetail, VendorQuery } from '../api/vendors';
import { type BankingErrors, type BankingValues, validateBanking } from '../utils/vendor-rules';
import { isNotFound, VendorNotFound } from './vendor-not-found';

function BankingForm({ vendor }: { vendor: VendorDetail }) {
  const navigate = useNavigate();
  const updateVendorBanking = useGqlMutation(UpdateVendorBanking, 'Failed to update banking information');
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
      const saved = await updateVendorBanking({
        id: vendor.id,
        input: {
          ...values,
          routingNumber: values.routingNumber.trim(),
          accountNumber: values.accountNumber.trim(),
          bankName: values.bankName.trim() || null,
        },
      });
      // As the REST answer words it: a held change is not "updated", the old account still gets paid.
      const held = saved.updateVendorBanking.pendingBankingChange?.status === 'pending';
      toast.success(held ? VENDOR_MESSAGES.bankingHeld : VENDOR_MESSAGES.bankingUpdated);
      navigate(`/vendors/${vendor.id}`);
    } catch (err) {
      // A refusal that names its fields shows there, one message a field; only one without a field
      // comes as a toast, so a value never gets two messages at once.
      const fields = err instanceof ApiError ? (err.fieldErrors as BankingErrors) : {};
      setErrors(fields);
      if (!Object.keys(fields).some((k) => k in values))
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
        {vendor.pendingBankingChange ? (
          <p role="note" className="text-sm text-amber-800 dark:text-amber-200">
            {vendor.pendingBankingChange.status === 'frozen'
              ? 'A change of these bank details is frozen: the vendor’s contact said it was not theirs. It must be rejected before another change can be made.'
              : `A change to account ${vendor.pendingBankingChange.accountNumber ?? 'masked'} is waiting for approval. Saving new details replaces it, and the new change waits for approval in turn.`}
          </p>
        ) : null}
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
          <FormField id="accountType" label="Account Type" error={errors.accountType}>
            {(control) => (
              <Select
                value={values.accountType}
                onValueChange={(v) => set({ accountType: v as BankingValues['accountType'] })}
              >
                <SelectTrigger {...control} aria-label="Account Type">
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  <SelectItem value="checking">Checking</SelectItem>
                  <SelectItem value="savings">Savings</SelectItem>
                </SelectContent>
              </Select>
            )}
          </FormField>
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
  const query = useGqlQuery(VendorQuery, { id: Number(id) }, { pause: !valid, fallback: 'Vendor not found' });
  const vendor = { data: query.data?.vendor, error: query.error, reload: query.reload };
  const v = vendor.data;
  useDocumentTitle(v ? `Edit banking of ${v.name}` : 'Edit banking');
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
