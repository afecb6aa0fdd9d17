// "Bank Detail Changes" on the company's page (ADMIN): whether a change of a vendor's account waits
// for a second person (or the vendor's micro-deposits) before payments follow it, and for how many
// days a change is flagged on the approvals and /bills. On by default; turning it off needs a reason,
// which is kept on record. The server decides: its refusal shows at the field or as a toast.
import { RefreshCw, ShieldCheck, ShieldOff } from 'lucide-react';
import { type FormEvent, useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { FormField } from '../../../components/ui/form-field';
import { Label } from '../../../components/ui/label';
import { LoadingState } from '../../../components/ui/spinner';
import { Switch } from '../../../components/ui/switch';
import { TextField } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import {
  BANKING_CONTROL_SAVED,
  type BankingChangeControl,
  BankingChangeControlQuery,
  SetBankingChangeControl,
} from '../api/banking-control';
import { validateBankingControl } from '../utils/banking-control-rules';

type Errors = Partial<Record<'flagDays' | 'reason', string>>;

function ControlForm({ control }: { control: BankingChangeControl }) {
  const save = useGqlMutation(SetBankingChangeControl, 'Failed to save the control');
  const [enabled, setEnabled] = useState(control.enabled);
  const [flagDays, setFlagDays] = useState(String(control.flagDays));
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  // A save (here or elsewhere) re-reads the control: the form starts from what is stored.
  useEffect(() => {
    setEnabled(control.enabled);
    setFlagDays(String(control.flagDays));
    setReason('');
  }, [control.enabled, control.flagDays]);
  const turningOff = control.enabled && !enabled;
  const changed = enabled !== control.enabled || flagDays.trim() !== String(control.flagDays);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateBankingControl({ turningOff, flagDays, reason });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await save({
        companyId: control.companyId,
        enabled,
        flagDays: Number(flagDays.trim()),
        reason: reason.trim() || null,
      });
      toast.success(BANKING_CONTROL_SAVED);
    } catch (err) {
      const fields = err instanceof ApiError ? (err.fieldErrors as Errors) : {};
      setErrors(fields);
      if (!fields.flagDays && !fields.reason)
        toast.error(err instanceof Error ? err.message : 'An error occurred', 'Failed to save the control');
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="grid gap-4" onSubmit={submit} noValidate>
      <div className="flex items-start gap-3">
        <Switch
          id="banking-control-enabled"
          checked={enabled}
          onCheckedChange={(on) => {
            setEnabled(on);
            setErrors({});
          }}
          aria-describedby="banking-control-enabled-hint"
        />
        <div className="grid gap-1">
          <Label htmlFor="banking-control-enabled">Hold bank detail changes for a second look</Label>
          <p id="banking-control-enabled-hint" className="text-sm text-muted-foreground">
            {enabled
              ? 'A new routing number, account number or account type goes live only when another ADMIN or MODERATOR approves it, or the vendor confirms the micro-deposits.'
              : 'Off: a change of a vendor’s account goes live at once, and the next payment file pays it.'}
          </p>
        </div>
      </div>
      <TextField
        id="banking-control-flag-days"
        label="Flag changes for (days)"
        inputMode="numeric"
        className="max-w-32"
        value={flagDays}
        error={errors.flagDays}
        hint="A vendor whose bank details changed this recently is flagged on the approvals and /bills."
        onChange={(e) => {
          setFlagDays(e.target.value);
          setErrors((x) => ({ ...x, flagDays: undefined }));
        }}
      />
      {turningOff ? (
        <FormField
          id="banking-control-reason"
          label="Reason for turning the control off"
          required
          error={errors.reason}
        >
          {(props) => (
            <textarea
              {...props}
              rows={3}
              maxLength={500}
              value={reason}
              onChange={(e) => {
                setReason(e.target.value);
                setErrors((x) => ({ ...x, reason: undefined }));
              }}
              className="w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive"
            />
          )}
        </FormField>
      ) : null}
      <div>
        <Button type="submit" size="sm" disabled={busy || !changed}>
          {busy ? 'Saving...' : 'Save Control'}
        </Button>
      </div>
    </form>
  );
}

export function BankingControlCard({ companyId }: { companyId: number }) {
  const query = useGqlQuery(
    BankingChangeControlQuery,
    { companyId },
    { fallback: 'Failed to load the control on bank detail changes' },
  );
  const control = query.data?.bankingChangeControl;
  return (
    <Card data-testid="banking-control-card">
      <CardHeader>
        <CardTitle as="h2" className="flex items-center gap-2">
          {control && !control.enabled ? (
            <ShieldOff className="size-4 text-destructive" aria-hidden="true" />
          ) : (
            <ShieldCheck className="size-4" aria-hidden="true" />
          )}
          Bank Detail Changes
        </CardTitle>
        <CardDescription>
          {control
            ? control.enabled
              ? `Control on: a changed vendor account waits for approval. Changes are flagged for ${control.flagDays} days.`
              : `Control off: changed vendor accounts go live at once. Changes are flagged for ${control.flagDays} days.`
            : 'The control on changes of vendors’ bank details.'}
        </CardDescription>
      </CardHeader>
      <CardContent>
        {query.error && !control ? (
          <div role="alert" className="flex flex-col items-start gap-2 text-sm">
            <p className="text-destructive">{query.error.message}</p>
            <Button size="sm" variant="outline" onClick={query.reload}>
              <RefreshCw aria-hidden="true" />
              Retry
            </Button>
          </div>
        ) : !control ? (
          <LoadingState text="Loading control..." />
        ) : (
          <ControlForm control={control} />
        )}
      </CardContent>
    </Card>
  );
}
