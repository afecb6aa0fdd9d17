// The accounting-service OAuth dialog: the setup guide with copy buttons, the
// credentials form, Save Credentials, and Start OAuth Flow — a 600x700 popup on the authUrl whose
// callback page posts QB_OAUTH_SUCCESS or QB_OAUTH_ERROR back here. A 1 s poll notices a popup closed
// without an answer; listener and poll give up after 10 minutes; success closes the dialog after 1 s.
import { AlertCircle, Check, ChevronDown, Copy } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Button } from '../../../components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { TextField } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { QbCredentialsQuery, SaveQbCredentials, StartQbOAuth } from '../api/companies';
import {
  credentialsProblem,
  defaultCallbackUrl,
  OAUTH_POPUP,
  type OAuthPhase,
  REQUIRED_SCOPES,
} from '../utils/company-rules';

export const POPUP_BLOCKED = 'Failed to open OAuth popup. Please check your popup blocker settings.';

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <Button
      type="button"
      size="sm"
      variant="outline"
      aria-label={copied ? 'Copied!' : label}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
        } catch {
          toast.error('Could not copy to clipboard', 'Failed to copy');
        }
      }}
    >
      {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
      {copied ? 'Copied!' : 'Copy'}
    </Button>
  );
}

function SetupGuide({ callbackUrl }: { callbackUrl: string }) {
  const [open, setOpen] = useState(false);
  const scopes = REQUIRED_SCOPES.join(', ');
  return (
    <section className="rounded-md border">
      <button
        type="button"
        className="flex w-full items-center justify-between px-3 py-2 text-left text-sm font-medium"
        aria-expanded={open}
        aria-controls="qb-setup-guide"
        onClick={() => setOpen((o) => !o)}
      >
        QuickBooks App Setup Instructions
        <ChevronDown className={open ? 'size-4 rotate-180' : 'size-4'} aria-hidden="true" />
      </button>
      {open ? (
        <ol id="qb-setup-guide" className="grid list-decimal gap-3 border-t py-3 pr-3 pl-8 text-sm">
          <li>
            <strong>Create a developer account</strong> at developer.intuit.com and sign in.
          </li>
          <li>
            <strong>Create an app</strong> for QuickBooks Online and Payments under My Apps.
          </li>
          <li>
            <strong>Configure the OAuth redirect URI</strong> under Keys &amp; OAuth → Redirect URIs:
            <div className="mt-1 flex items-center gap-2">
              <code className="min-w-0 flex-1 truncate rounded bg-muted px-2 py-1 text-xs">
                {callbackUrl}
              </code>
              <CopyButton text={callbackUrl} label="Copy redirect URI" />
            </div>
          </li>
          <li>
            <strong>Required scopes</strong>:
            <div className="mt-1 flex items-center gap-2">
              <code className="min-w-0 flex-1 truncate rounded bg-muted px-2 py-1 text-xs">{scopes}</code>
              <CopyButton text={scopes} label="Copy scopes" />
            </div>
          </li>
          <li>
            <strong>Get credentials</strong>: copy the Client ID and Client Secret from Keys &amp; OAuth
            (development keys for the sandbox, production keys otherwise) into the form below.
          </li>
          <li className="list-none text-muted-foreground">
            Notes: access tokens expire every 1 hour; Billflow refreshes them before they do. The client
            secret is stored encrypted and never shown again.
          </li>
        </ol>
      ) : null}
    </section>
  );
}

export function QbOAuthDialog({
  companyId,
  companyName,
  open,
  onOpenChange,
  onChanged,
}: {
  companyId: number;
  companyName: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** After saved credentials or a finished flow: refresh the company, status and credentials. */
  onChanged: () => void;
}) {
  const credentialsQuery = useGqlQuery(
    QbCredentialsQuery,
    { companyId },
    { pause: !open, fallback: 'Failed to fetch QuickBooks credentials' },
  );
  const credentials = { data: credentialsQuery.data?.qbCredentials };
  const saveQbCredentials = useGqlMutation(SaveQbCredentials, 'Failed to save credentials');
  const startQbOAuth = useGqlMutation(StartQbOAuth, 'Failed to start OAuth flow');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [callbackUrl, setCallbackUrl] = useState(() => defaultCallbackUrl(window.location.origin));
  const [sandbox, setSandbox] = useState(true);
  const [phase, setPhase] = useState<OAuthPhase>('idle');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const cleanup = useRef<(() => void) | null>(null);
  const changed = useRef(onChanged);
  changed.current = onChanged;

  // Saved credentials fill the id and the environment; the secret is never sent back.
  useEffect(() => {
    const info = credentials.data;
    if (!info?.hasCredentials) return;
    if (info.qbClientId) setClientId((v) => v || (info.qbClientId ?? ''));
    if (typeof info.qbIsSandbox === 'boolean') setSandbox(info.qbIsSandbox);
  }, [credentials.data]);

  useEffect(() => () => cleanup.current?.(), []);
  useEffect(() => {
    if (!open) {
      cleanup.current?.();
      setPhase('idle');
      setError(null);
      setClientSecret('');
    }
  }, [open]);

  const values = { clientId, clientSecret, callbackUrl };

  async function save() {
    const problem = credentialsProblem(values, false);
    if (problem) {
      toast.error(
        problem === 'Missing Credentials' ? 'Client ID and Client Secret are required' : problem,
        problem,
      );
      return;
    }
    setSaving(true);
    try {
      // The credentials and the company are read again through the cache.
      await saveQbCredentials({
        companyId,
        qbClientId: clientId.trim(),
        qbClientSecret: clientSecret,
        qbIsSandbox: sandbox,
      });
      toast.success('Credentials Saved', 'QuickBooks credentials have been saved successfully');
      changed.current();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred', 'Failed to Save Credentials');
    } finally {
      setSaving(false);
    }
  }

  function fail(message: string) {
    cleanup.current?.();
    setPhase('error');
    setError(message);
    toast.error(message, 'OAuth Failed');
  }

  async function start() {
    const problem = credentialsProblem(values, true);
    if (problem) {
      toast.error(
        problem === 'Missing Credentials' ? 'Client ID and Client Secret are required' : problem,
        problem,
      );
      return;
    }
    cleanup.current?.();
    setError(null);
    setPhase('starting');
    // Opened before the call returns would be friendlier to blockers, but the URL carries the state
    // the server makes; browsers allow a popup this soon after the click.
    let authUrl: string;
    try {
      const answer = await startQbOAuth({
        companyId,
        qbClientId: clientId.trim(),
        qbClientSecret: clientSecret,
        qbIsSandbox: sandbox,
        qbCallbackUrl: callbackUrl.trim(),
      });
      if (!answer.startQbOAuth) throw new Error('Failed to start OAuth flow');
      authUrl = answer.startQbOAuth;
    } catch (err) {
      fail(err instanceof Error ? err.message : 'Failed to start OAuth flow');
      return;
    }
    const { width, height } = OAUTH_POPUP;
    const left = Math.max(0, window.screenX + (window.outerWidth - width) / 2);
    const top = Math.max(0, window.screenY + (window.outerHeight - height) / 2);
    const popup = window.open(
      authUrl,
      'qb-oauth',
      `width=${width},height=${height},left=${Math.round(left)},top=${Math.round(top)}`,
    );
    if (!popup) {
      fail(POPUP_BLOCKED);
      return;
    }
    setPhase('authorizing');
    changed.current(); // the credentials are saved by the start call

    let done = false;
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== window.location.origin) return;
      const data = event.data as { type?: string; error?: string } | null;
      if (data?.type === 'QB_OAUTH_SUCCESS') {
        done = true;
        stop();
        setPhase('success');
        toast.success('Success!', 'QuickBooks connected successfully. The integration is now active.');
        changed.current();
        const t = setTimeout(() => onOpenChange(false), OAUTH_POPUP.closeAfterMs);
        cleanup.current = () => clearTimeout(t);
      } else if (data?.type === 'QB_OAUTH_ERROR') {
        done = true;
        fail(data.error || 'QuickBooks authorization failed');
        changed.current();
      }
    };
    const poll = setInterval(() => {
      if (!popup.closed || done) return;
      stop();
      setPhase('idle');
      toast({
        title: 'OAuth window closed',
        description: 'Please check the connection status to see whether QuickBooks was connected.',
      });
      changed.current();
    }, OAUTH_POPUP.pollMs);
    const giveUp = setTimeout(() => {
      if (!done) fail('QuickBooks did not answer within 10 minutes. Please try again.');
    }, OAUTH_POPUP.giveUpMs);
    function stop() {
      window.removeEventListener('message', onMessage);
      clearInterval(poll);
      clearTimeout(giveUp);
      cleanup.current = null;
    }
    window.addEventListener('message', onMessage);
    cleanup.current = stop;
  }

  const busy = phase === 'starting' || phase === 'authorizing' || saving;
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Connect QuickBooks</DialogTitle>
          <DialogDescription>Configure the QuickBooks Online connection for {companyName}.</DialogDescription>
        </DialogHeader>
        <SetupGuide callbackUrl={callbackUrl} />
        {phase === 'error' && error ? (
          <div
            role="alert"
            className="flex gap-2 rounded-md border border-destructive/40 p-3 text-sm text-destructive"
          >
            <AlertCircle className="size-4 shrink-0" aria-hidden="true" />
            <span>{error}</span>
          </div>
        ) : null}
        {phase === 'authorizing' ? (
          <p role="status" className="text-sm text-muted-foreground">
            Waiting for QuickBooks authorization in the popup window...
          </p>
        ) : null}
        {phase === 'success' ? (
          <p role="status" className="text-sm font-medium text-green-700">
            QuickBooks connected successfully.
          </p>
        ) : null}
        <div className="grid gap-4">
          <TextField
            id="qb-client-id"
            label="Client ID"
            value={clientId}
            autoComplete="off"
            onChange={(e) => setClientId(e.target.value)}
          />
          <TextField
            id="qb-client-secret"
            label="Client Secret"
            type="password"
            value={clientSecret}
            autoComplete="new-password"
            placeholder={
              credentials.data?.hasCredentials ? 'Saved — enter it again to change or connect' : ''
            }
            onChange={(e) => setClientSecret(e.target.value)}
          />
          <TextField
            id="qb-callback-url"
            label="OAuth Callback URL"
            value={callbackUrl}
            autoComplete="off"
            onChange={(e) => setCallbackUrl(e.target.value)}
          />
          <div className="flex items-center gap-3">
            <Switch id="qb-sandbox" checked={sandbox} onCheckedChange={setSandbox} />
            <Label htmlFor="qb-sandbox">Sandbox Environment</Label>
          </div>
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button variant="outline" onClick={save} disabled={busy}>
            {saving ? 'Saving...' : 'Save Credentials'}
          </Button>
          <Button onClick={start} disabled={busy}>
            {phase === 'starting'
              ? 'Starting...'
              : phase === 'authorizing'
                ? 'Authorizing...'
                : 'Start OAuth Flow'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
