// "Bank Connection" on the company's page: how its NACHA files reach the bank. An ADMIN chooses by
// hand (download the file, confirm by e-mail link) or SFTP to the bank with its login, folders,
// pinned host key and cut-off windows, and checks the connection; the password or private key is
// write-only (the page only says one is set). With SFTP, "Send waiting files now" sends the files
// waiting for their cut-off window at once, after a confirm. Others see the mode only. The server decides: its
// refusal shows at the field or as a toast, and the last check's outcome is read with the company.
import { CheckCircle2, PlugZap, Send, XCircle } from 'lucide-react';
import { type FormEvent, useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { FormField } from '../../../components/ui/form-field';
import { TextField } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation } from '../../../lib/use-graphql';
import {
  BANK_CONNECTION_SAVED,
  type BankConnection,
  type BankConnectionCheck,
  CHECK_TIMEOUT_MS,
  CompanySendWaitingFilesNow,
  SetCompanyBankConnection,
  TestBankConnection,
} from '../api/bank-connection';
import {
  type BankConnectionErrors,
  type BankConnectionField,
  type BankConnectionForm,
  formFieldOf,
  formOf,
  payloadOf,
  validateBankConnection,
} from '../utils/bank-connection-rules';
import { formatDateTime } from '../utils/company-rules';

const MODE_TEXT = {
  manual: 'By hand: download the NACHA file and upload it at the bank, then confirm by e-mail link.',
  sftp: 'Over SFTP: the product sends the file to the bank and reads its answers.',
} as const;

const TEXTAREA =
  'w-full rounded-md border border-input bg-transparent px-3 py-2 font-mono text-xs shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive';

function LastCheck({ check }: { check: BankConnectionCheck | null }) {
  if (!check) return <p className="text-sm text-muted-foreground">Not checked since it was saved.</p>;
  return (
    <div
      data-testid="bank-connection-last-check"
      className={check.ok ? 'flex gap-2 text-sm text-green-800' : 'flex gap-2 text-sm text-destructive'}
    >
      {check.ok ? (
        <CheckCircle2 className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      ) : (
        <XCircle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      )}
      <p className="[overflow-wrap:anywhere]">
        <span className="font-medium">{check.ok ? 'Connection OK' : 'Connection failed'}</span> (
        {formatDateTime(check.at)}): {check.message}
      </p>
    </div>
  );
}

function ConnectionForm({ companyId, stored }: { companyId: number; stored: BankConnection }) {
  const save = useGqlMutation(SetCompanyBankConnection, 'Failed to save the bank connection');
  const test = useGqlMutation(TestBankConnection, 'Failed to check the bank connection', CHECK_TIMEOUT_MS);
  const [form, setForm] = useState<BankConnectionForm>(() => formOf(stored));
  const [errors, setErrors] = useState<BankConnectionErrors>({});
  const [busy, setBusy] = useState<'save' | 'check' | null>(null);
  // A save (here or elsewhere) re-reads the company: the form starts again from what is stored. A
  // check's outcome, or any other change of the company, leaves what is being typed alone.
  const storedKey = JSON.stringify({ ...stored, lastCheck: null });
  // biome-ignore lint/correctness/useExhaustiveDependencies: storedKey stands for stored's settings
  useEffect(() => setForm(formOf(stored)), [storedKey]);
  const set = (field: keyof BankConnectionForm) => (value: string) => {
    setForm((f) => ({ ...f, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
  };
  const text = (field: BankConnectionField, label: string, extra: Record<string, unknown> = {}) => (
    <TextField
      id={`bank-${field}`}
      label={label}
      value={form[field]}
      error={errors[field]}
      onChange={(e) => set(field)(e.target.value)}
      {...extra}
    />
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateBankConnection(form, stored);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy('save');
    try {
      await save({ id: companyId, input: payloadOf(form) });
      toast.success(BANK_CONNECTION_SAVED);
    } catch (err) {
      const fields: BankConnectionErrors = {};
      if (err instanceof ApiError)
        for (const e of err.body?.errors ?? []) {
          if (typeof e !== 'object' || !e) continue;
          const f = formFieldOf(e.field);
          if (f && !fields[f]) fields[f] = e.message;
        }
      setErrors(fields);
      if (Object.keys(fields).length === 0)
        toast.error(
          err instanceof Error ? err.message : 'An error occurred',
          'Failed to save the bank connection',
        );
    } finally {
      setBusy(null);
    }
  }

  async function check() {
    setBusy('check');
    try {
      const r = await test({ companyId });
      toast.success('Connection OK', r.testBankConnection.message);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred', 'Connection failed');
    } finally {
      setBusy(null);
    }
  }

  const secretHint = (kind: 'password' | 'key') =>
    stored.mode === 'sftp' && (kind === 'key' ? stored.keySet : stored.passwordSet)
      ? `${kind === 'key' ? 'Key' : 'Password'} set: leave empty to keep it.`
      : undefined;

  return (
    <form className="grid gap-4" onSubmit={submit} noValidate>
      <fieldset className="grid gap-2">
        <legend className="mb-1 text-sm font-medium">How files reach the bank</legend>
        {(['manual', 'sftp'] as const).map((mode) => (
          <label key={mode} className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name="bank-mode"
              value={mode}
              checked={form.mode === mode}
              onChange={() => set('mode')(mode)}
              className="mt-1"
            />
            <span>
              {mode === 'manual' ? 'Manual' : 'SFTP'}: {MODE_TEXT[mode]}
            </span>
          </label>
        ))}
      </fieldset>
      {form.mode === 'sftp' ? (
        <div className="grid gap-4 sm:grid-cols-2" data-testid="bank-sftp-fields">
          {text('host', 'Host', { required: true, placeholder: 'sftp.bank.example' })}
          {text('port', 'Port', { required: true, inputMode: 'numeric', className: 'max-w-32' })}
          {text('username', 'Username', { required: true, autoComplete: 'off' })}
          <fieldset className="grid gap-1 text-sm">
            <legend className="mb-1 font-medium">Log in with</legend>
            {(['password', 'key'] as const).map((auth) => (
              <label key={auth} className="flex items-center gap-2">
                <input
                  type="radio"
                  name="bank-auth"
                  value={auth}
                  checked={form.auth === auth}
                  onChange={() => set('auth')(auth)}
                />
                {auth === 'password' ? 'By password' : 'By private key'}
              </label>
            ))}
          </fieldset>
          {form.auth === 'password' ? (
            text('password', 'Password', {
              type: 'password',
              autoComplete: 'new-password',
              hint: secretHint('password'),
            })
          ) : (
            <div className="sm:col-span-2">
              <FormField
                id="bank-privateKey"
                label="Private key"
                error={errors.privateKey}
                hint={secretHint('key')}
              >
                {(props) => (
                  <textarea
                    {...props}
                    rows={4}
                    value={form.privateKey}
                    placeholder="-----BEGIN OPENSSH PRIVATE KEY-----"
                    autoComplete="off"
                    spellCheck={false}
                    onChange={(e) => set('privateKey')(e.target.value)}
                    className={TEXTAREA}
                  />
                )}
              </FormField>
            </div>
          )}
          {text('inbox', 'Inbox folder (uploads)')}
          {text('outbox', 'Outbox folder (the bank’s answers)')}
          <div className="sm:col-span-2">
            {text('hostKeyFingerprint', 'Host key fingerprint', {
              required: true,
              placeholder: 'SHA256:…',
              className: 'font-mono',
              hint: 'As ssh-keygen -lf prints it. Any other key is refused before the login is sent.',
            })}
          </div>
        </div>
      ) : null}
      {text('windows', 'Cut-off windows (New York time)', {
        hint: 'Times of day, in order, comma-separated: the default is 15 minutes before the Fed’s same-day deadlines.',
      })}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" disabled={busy !== null}>
          {busy === 'save' ? 'Saving...' : 'Save Connection'}
        </Button>
        {stored.mode === 'sftp' ? (
          <Button type="button" size="sm" variant="outline" onClick={check} disabled={busy !== null}>
            <PlugZap aria-hidden="true" />
            {busy === 'check' ? 'Checking...' : 'Check connection'}
          </Button>
        ) : null}
      </div>
    </form>
  );
}

/** The company's files waiting for their cut-off window, sent to the bank now (the bank's trigger cut-off). */
function SendWaitingFiles({ companyId }: { companyId: number }) {
  const [open, setOpen] = useState(false);
  const send = useGqlMutation(CompanySendWaitingFilesNow, 'The waiting files could not be sent');
  return (
    <div>
      <Button type="button" size="sm" variant="outline" onClick={() => setOpen(true)}>
        <Send aria-hidden="true" />
        Send waiting files now
      </Button>
      <ConfirmActionDialog
        open={open}
        onOpenChange={setOpen}
        title="Send the company's waiting files to the bank now?"
        description="Every file of the company waiting for its cut-off window goes to the bank at once."
        actionLabel="Send now"
        busyLabel="Sending…"
        run={async () => ({ message: (await send({ companyId })).sendWaitingFilesNow })}
        successMessage="The waiting files will be sent now"
        errorTitle="Not sent"
        errorFallback="The waiting files could not be sent"
      />
    </div>
  );
}

export function BankConnectionCard({
  companyId,
  connection,
  canManage,
}: {
  companyId: number;
  connection: BankConnection;
  /** ADMIN: edits and checks the connection, and sends the waiting files now. */
  canManage: boolean;
}) {
  return (
    <Card data-testid="bank-connection-card">
      <CardHeader>
        <CardTitle as="h2">Bank Connection</CardTitle>
        <CardDescription>{MODE_TEXT[connection.mode]}</CardDescription>
      </CardHeader>
      {canManage ? (
        <CardContent className="grid gap-4">
          {connection.mode === 'sftp' ? <LastCheck check={connection.lastCheck} /> : null}
          {connection.mode === 'sftp' ? <SendWaitingFiles companyId={companyId} /> : null}
          <ConnectionForm companyId={companyId} stored={connection} />
        </CardContent>
      ) : null}
    </Card>
  );
}
