// The NACHA form: routing number shown XXX-XXX-XXX, Tax ID XX-XXXXXXX, names upper-cased
// as typed, the defaults (status 1, checking, BILL PAY, origin = the company's name), the spec's
// messages; dashes are stripped before sending. The stored account number comes back masked and is
// kept unless a new one is typed.
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { FieldError, TextField } from '../../../components/ui/text-field';
import {
  formatRouting,
  formatTaxId,
  NACHA_LIMITS,
  type NachaFormErrors,
  type NachaFormValues,
  UPPERCASE_FIELDS,
  validateNacha,
} from '../utils/nacha-rules';

export function NachaForm({
  initial,
  serverErrors,
  onSubmit,
  onCancel,
}: {
  initial: NachaFormValues;
  serverErrors?: Record<string, string>;
  onSubmit: (values: NachaFormValues) => Promise<void>;
  onCancel: () => void;
}) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<NachaFormErrors>({});
  const [busy, setBusy] = useState(false);
  const shown = { ...serverErrors, ...errors } as Record<string, string | undefined>;

  const set = (key: keyof NachaFormValues, raw: string) => {
    const value =
      key === 'bankRoutingNumber'
        ? formatRouting(raw)
        : key === 'companyTaxId'
          ? formatTaxId(raw)
          : key === 'achCompanyId'
            ? raw.replace(/\D/g, '').slice(0, 10)
            : UPPERCASE_FIELDS.has(key)
              ? raw.toUpperCase()
              : raw;
    setValues((v) => ({ ...v, [key]: value }));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateNacha(values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await onSubmit(values);
    } finally {
      setBusy(false);
    }
  }

  const field = (
    key: keyof NachaFormValues,
    label: string,
    options: { maxLength?: number; hint?: string; inputMode?: 'numeric' } = {},
  ) => (
    <div className="grid gap-1">
      <TextField
        id={`nacha-${key}`}
        label={label}
        value={values[key]}
        autoComplete="off"
        maxLength={options.maxLength}
        inputMode={options.inputMode}
        onChange={(e) => set(key, e.target.value)}
        error={shown[key]}
      />
      {options.hint ? <p className="text-xs text-muted-foreground">{options.hint}</p> : null}
    </div>
  );

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-6">
      <Card>
        <CardHeader>
          <CardTitle as="h2">Bank Account</CardTitle>
          <CardDescription>
            The account ACH payments are debited from (the ODFI relationship).
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {field('bankRoutingNumber', 'Routing Number *', {
            maxLength: 11,
            hint: 'Format: XXX-XXX-XXX',
            inputMode: 'numeric',
          })}
          {field('bankAccountNumber', 'Account Number *', {
            maxLength: NACHA_LIMITS.bankAccountNumber,
            hint: initial.bankAccountNumber
              ? 'Shown masked; type a new number to replace it.'
              : 'Up to 17 characters',
          })}
          <div className="grid gap-2">
            <Label htmlFor="nacha-bankAccountType">Account Type *</Label>
            <Select value={values.bankAccountType} onValueChange={(v) => set('bankAccountType', v)}>
              <SelectTrigger id="nacha-bankAccountType" aria-label="Account Type">
                <SelectValue placeholder="Select account type" />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value="checking">Checking</SelectItem>
                <SelectItem value="savings">Savings</SelectItem>
              </SelectContent>
            </Select>
            <FieldError id="nacha-bankAccountType-error" message={shown.bankAccountType} />
          </div>
          {field('bankName', 'Bank Name *', { maxLength: NACHA_LIMITS.bankName })}
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle as="h2">Originator</CardTitle>
          <CardDescription>How the company appears in the file's batch header.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {field('companyTaxId', 'Tax ID (EIN) *', {
            maxLength: 10,
            hint: 'Format: XX-XXXXXXX',
            inputMode: 'numeric',
          })}
          {field('achCompanyId', 'ACH Company ID', {
            maxLength: 10,
            hint: 'Optional, exactly 10 digits',
            inputMode: 'numeric',
          })}
          {field('originatorStatusCode', 'Originator Status Code *', { maxLength: 1, hint: 'Default 1' })}
          {field('companyEntryDescription', 'Company Entry Description *', {
            maxLength: NACHA_LIMITS.companyEntryDescription,
            hint: 'Up to 10 characters, e.g. BILL PAY',
          })}
          {field('companyDiscretionaryData', 'Discretionary Data', {
            maxLength: NACHA_LIMITS.companyDiscretionaryData,
            hint: 'Optional, up to 20 characters',
          })}
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle as="h2">File Header</CardTitle>
          <CardDescription>The names in the file header record.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {field('immediateDestinationName', 'Immediate Destination Name *', {
            maxLength: NACHA_LIMITS.immediateDestinationName,
            hint: 'Your bank, up to 23 characters',
          })}
          {field('immediateOriginName', 'Immediate Origin Name *', {
            maxLength: NACHA_LIMITS.immediateOriginName,
            hint: 'Your company, up to 23 characters',
          })}
        </CardContent>
      </Card>
      <div className="flex justify-end gap-2">
        <Button variant="outline" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" disabled={busy}>
          {busy ? 'Saving...' : 'Save NACHA Configuration'}
        </Button>
      </div>
    </form>
  );
}
