// The e-mail link's result: 'Processing
// Action' first, then the outcome: invalid (no approval or action in the query), or what the server
// signed for this approval and action (the redirect's `ref`, which the page has the server verify):
// success, failure (with the server's own text) or no action needed. Without a verified outcome it
// says so and states nothing the query claims (its success, error or noAction).
// The public page stands alone (no sign-in, no shell); the in-layout page adds its buttons.
import { CheckCircle2, HelpCircle, Info, Loader2, XCircle } from 'lucide-react';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { type VerifiedActionResult, verifyActionResult } from '../api/action-result';
import { directActionOutcome, hasRequiredParams, UNCONFIRMED_TEXT } from '../utils/direct-action-outcome';

/** How long 'Processing Action' shows before the outcome. */
export const PROCESSING_MS = 400;

function Frame({
  icon,
  title,
  children,
  level = 1,
}: {
  icon: ReactNode;
  title: string;
  children?: ReactNode;
  /** h1 on the standalone page; h2 under the layout's page title. */
  level?: 1 | 2;
}) {
  const Heading = level === 1 ? 'h1' : 'h2';
  return (
    <div
      className="w-full max-w-md rounded-xl border bg-card p-6 text-center shadow-sm sm:p-8"
      data-testid="direct-action-result"
    >
      <div className="flex justify-center">{icon}</div>
      <Heading className="mt-3 text-2xl font-semibold tracking-tight [overflow-wrap:anywhere]">
        {title}
      </Heading>
      <div className="mt-3 grid gap-2 text-sm [overflow-wrap:anywhere]">{children}</div>
    </div>
  );
}

export function DirectActionResult({ inLayout = false }: { inLayout?: boolean }) {
  const [params] = useSearchParams();
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setShown(true), PROCESSING_MS);
    return () => clearTimeout(t);
  }, []);
  const ref = hasRequiredParams(params) ? params.get('ref') : null;
  // undefined: still asking the server; null: no outcome it vouches for.
  const [verified, setVerified] = useState<VerifiedActionResult | null | undefined>(ref ? undefined : null);
  useEffect(() => {
    if (!ref) {
      setVerified(null);
      return;
    }
    let live = true;
    setVerified(undefined);
    verifyActionResult(ref).then(
      (v) => live && setVerified(v),
      () => live && setVerified(null),
    );
    return () => {
      live = false;
    };
  }, [ref]);
  const outcome = directActionOutcome(params, verified ?? null);
  const level = inLayout ? 2 : 1;

  if (!shown || verified === undefined)
    return (
      <Frame
        level={level}
        icon={<Loader2 className="size-10 animate-spin text-muted-foreground" aria-hidden="true" />}
        title="Processing Action"
      >
        <p className="text-muted-foreground">Please wait while we process your request...</p>
      </Frame>
    );

  const buttons = inLayout ? (
    <div className="mt-3 flex flex-wrap justify-center gap-2">
      {outcome.kind === 'success' ? (
        <Button asChild>
          <Link to={`/approvals/${outcome.approvalId}`}>View Approval Details</Link>
        </Button>
      ) : null}
      <Button asChild variant="outline">
        <Link to="/approvals">View All Approvals</Link>
      </Button>
    </div>
  ) : null;

  if (outcome.kind === 'invalid')
    return (
      <Frame
        level={level}
        icon={<XCircle className="size-10 text-destructive" aria-hidden="true" />}
        title="Invalid direct action result"
      >
        <p className="text-muted-foreground">Missing required parameters from redirect</p>
        {buttons}
      </Frame>
    );
  if (outcome.kind === 'unconfirmed')
    return (
      <Frame
        level={level}
        icon={<HelpCircle className="size-10 text-muted-foreground" aria-hidden="true" />}
        title="Outcome not confirmed"
      >
        <p data-testid="direct-action-unconfirmed">{UNCONFIRMED_TEXT}</p>
        {buttons}
      </Frame>
    );
  if (outcome.kind === 'no-action')
    return (
      <Frame
        level={level}
        icon={<Info className="size-10 text-blue-700" aria-hidden="true" />}
        title="No Action Needed"
      >
        <p>This bill is already in the requested status.</p>
        <p className="text-muted-foreground" data-testid="direct-action-message">
          {outcome.message}
        </p>
        <p className="text-muted-foreground">
          Approval ID: <span className="font-mono">{outcome.approvalId}</span>
        </p>
        {buttons}
      </Frame>
    );
  if (outcome.kind === 'failure')
    return (
      <Frame
        level={level}
        icon={<XCircle className="size-10 text-destructive" aria-hidden="true" />}
        title={outcome.title}
      >
        <div
          role="alert"
          className="rounded-md border border-destructive/50 bg-destructive/5 p-3 text-left text-destructive"
        >
          <p className="font-medium">Error details</p>
          <p data-testid="direct-action-error">{outcome.error}</p>
        </div>
        <p className="text-muted-foreground">
          Approval ID: <span className="font-mono">{outcome.approvalId}</span>
        </p>
        {buttons}
      </Frame>
    );
  return (
    <Frame
      level={level}
      icon={<CheckCircle2 className="size-10 text-green-700" aria-hidden="true" />}
      title={outcome.title}
    >
      <p>All stakeholders have been notified.</p>
      <p className="text-muted-foreground">
        Approval ID:{' '}
        <span className="font-mono" data-testid="direct-action-approval">
          {outcome.approvalId}
        </span>
      </p>
      {buttons}
      <p className="mt-3 border-t pt-3 text-xs text-muted-foreground">
        This action was completed via email link. No login was required.
      </p>
    </Frame>
  );
}
