// /approvals/{id}/confirm: the e-mail link opened by a
// signed-in user. The link's token is checked (GET verify-token, with the session's bearer too); the
// page says who is signed in, shows the approval, and with an action offers only the payment-completed
// step (POST payment-completed?token): disabled while it runs or when the server says it cannot be
// marked; on success a toast, then the approval after 2 s. A refused token shows the failure screens.
// The page says one thing at a time: 'Logged in as' is the session's user (the link's recipient, when
// someone else, is named as such), and once the payment is complete or the link's step is done it asks
// for no action: no 'ACTION REQUIRED' beside 'All Done!'.
import { CheckCircle2, Loader2, ShieldAlert } from 'lucide-react';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useSession } from '../../../lib/auth';
import { ApiError } from '../../../lib/errors';
import { formatCurrency } from '../../../lib/utils';
import { isFullApproval, markPaymentCompleted, type TokenVerification, verifyToken } from '../api/payments';
import { formatDateTime, shortId, titleCase } from '../utils/approval-rules';
import { confirmParamsError, type TokenFailureKind, tokenFailure } from '../utils/payment-rules';

/** Redirect to the approval after a confirmed payment. */
export const CONFIRM_REDIRECT_MS = 2000;

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-0.5">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="text-sm [overflow-wrap:anywhere]">{children}</dd>
    </div>
  );
}

function Notice({ title, tone, children }: { title: string; tone: 'error' | 'done'; children: ReactNode }) {
  const Icon = tone === 'done' ? CheckCircle2 : ShieldAlert;
  return (
    <Card className="mx-auto w-full max-w-xl" data-testid="confirm-notice">
      <CardHeader className="flex flex-row items-center gap-2">
        <Icon
          aria-hidden="true"
          className={tone === 'done' ? 'size-6 text-green-700' : 'size-6 text-destructive'}
        />
        <CardTitle as="h2">{title}</CardTitle>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">{children}</CardContent>
    </Card>
  );
}

interface Failure {
  kind: TokenFailureKind;
  text: string;
  code: string | null;
  status: number | null;
}

function FailureScreen({ failure, id, action }: { failure: Failure; id: string; action: string | null }) {
  const login = (
    <Button asChild variant="outline">
      <Link to="/login">Login</Link>
    </Button>
  );
  if (failure.kind === 'already-paid')
    return (
      <Notice title="Payment Already Completed" tone="done">
        <p className="font-medium">Payment Processing Complete</p>
        <p>This approval has already been marked as paid. No further action is needed.</p>
        <div className="flex flex-wrap gap-2">
          <Button asChild>
            <Link to={`/approvals/${id}`}>View Approval</Link>
          </Button>
          <Button asChild variant="outline">
            <Link to="/approvals">View All Approvals</Link>
          </Button>
        </div>
      </Notice>
    );
  if (failure.kind === 'unavailable')
    return (
      <Notice title="Status Update Not Available" tone="error">
        <p>This approval is no longer available for status updates.</p>
        <p className="text-muted-foreground">{failure.text}</p>
        <div className="flex flex-wrap gap-2">
          <Button asChild>
            <Link to={`/approvals/${id}`}>View Approval</Link>
          </Button>
          {login}
        </div>
      </Notice>
    );
  return (
    <Notice title="Access Denied" tone="error">
      <p className="font-medium">Unable to verify your access to this approval.</p>
      <p>The access token may be invalid, expired, or you may not have permission to update this approval.</p>
      <details className="rounded-md border bg-muted/50 p-3" data-testid="debug-info">
        <summary className="cursor-pointer font-medium">Debug info</summary>
        <ul className="mt-2 grid gap-1 font-mono text-xs [overflow-wrap:anywhere]">
          <li>Approval: {id}</li>
          <li>Action: {action ?? 'none'}</li>
          <li>Status: {failure.status ?? 'no answer'}</li>
          <li>Code: {failure.code ?? 'none'}</li>
          <li>Message: {failure.text}</li>
        </ul>
      </details>
      <div>{login}</div>
    </Notice>
  );
}

export function ApprovalConfirmPage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const token = params.get('token');
  const action = params.get('action');
  const navigate = useNavigate();
  const session = useSession().user;
  const paramsError = confirmParamsError(id, token, action);
  const [verified, setVerified] = useState<TokenVerification | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [running, setRunning] = useState(false);
  const redirect = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(redirect.current), []);

  useEffect(() => {
    if (paramsError || !token) return;
    let live = true;
    setVerified(null);
    setFailure(null);
    verifyToken(id, token, action).then(
      (v) => live && setVerified(v),
      (err: unknown) => {
        if (!live) return;
        const api = err instanceof ApiError ? err : null;
        const f = tokenFailure(api?.body, err instanceof Error ? err.message : 'Unable to verify');
        setFailure({ ...f, status: api?.status ?? null });
      },
    );
    return () => {
      live = false;
    };
  }, [id, token, action, paramsError]);

  const header = <PageHeader title="Confirm Approval" description={`Approval #${shortId(id)}`} />;

  if (paramsError)
    return (
      <div className="grid grid-cols-1 gap-6">
        {header}
        <Notice title={paramsError} tone="error">
          <p>
            {paramsError === 'Invalid action type'
              ? 'The link’s action must be bank-uploaded or payment-completed.'
              : 'The link needs both the approval and its token.'}
          </p>
          <Button asChild variant="outline" className="w-fit">
            <Link to="/approvals">View All Approvals</Link>
          </Button>
        </Notice>
      </div>
    );
  if (failure)
    return (
      <div className="grid grid-cols-1 gap-6">
        {header}
        <FailureScreen failure={failure} id={id} action={action} />
      </div>
    );
  if (!verified)
    return (
      <div className="grid grid-cols-1 gap-6">
        {header}
        <LoadingState text="Verifying access..." />
      </div>
    );

  // Once the link's step is done the server names only the approval's id and status.
  const a = isFullApproval(verified.approval) ? verified.approval : null;
  const info = verified.statusInfo;
  // Who is signed in is the session's user; the link's recipient is who the link was sent to.
  const who = session
    ? {
        name: [session.firstName, session.lastName].filter(Boolean).join(' ') || null,
        email: session.email,
        role: session.role,
      }
    : (verified.user ?? { name: null, email: '', role: '' });
  const recipient =
    verified.user && verified.user.email.toLowerCase() !== who.email.toLowerCase() ? verified.user : null;
  const bills = a?.billsParsed ?? [];
  const billsTotal = bills.reduce((sum, b) => sum + b.TotalAmt, 0);
  const paid = verified.approval.status === 'PAYMENT_COMPLETED' || info.isAlreadyPaid;
  // Nothing is asked of anyone once the payment is complete or the link's own step is done.
  const actionOpen = Boolean(action) && !paid && !verified.link?.stepDone;

  async function confirm() {
    if (!token) return;
    setRunning(true);
    try {
      const message = await markPaymentCompleted(id, token);
      toast.success('Status Updated Successfully', message ?? 'The approval is marked as payment completed.');
      setVerified((v) =>
        v
          ? {
              ...v,
              approval: { ...v.approval, status: 'PAYMENT_COMPLETED' },
              statusInfo: { ...v.statusInfo, canMarkAsPaid: false, isAlreadyPaid: true },
            }
          : v,
      );
      redirect.current = setTimeout(() => navigate(`/approvals/${id}`), CONFIRM_REDIRECT_MS);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to mark as payment completed');
      setRunning(false);
    }
  }

  return (
    <div className="grid grid-cols-1 gap-6">
      {header}
      <Card>
        <CardHeader>
          <CardTitle as="h2">Logged in as</CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-3 sm:grid-cols-3" data-testid="logged-in-as">
            <Field label="Name">{who.name || 'N/A'}</Field>
            <Field label="Email">{who.email}</Field>
            <Field label="Role">{who.role}</Field>
          </dl>
          {recipient ? (
            <p className="mt-3 text-sm text-muted-foreground" data-testid="link-recipient">
              {`This link was sent to ${recipient.name === recipient.email ? recipient.email : `${recipient.name} (${recipient.email})`}; confirming records the step as theirs.`}
            </p>
          ) : null}
        </CardContent>
      </Card>

      {actionOpen ? (
        <section
          aria-label="Action required"
          className="grid gap-3 rounded-lg border-2 border-amber-400 bg-amber-50 p-4 text-amber-950"
          data-testid="action-required"
        >
          <p className="text-sm font-bold tracking-wide">ACTION REQUIRED</p>
          <p className="text-xs font-semibold">STEP 2</p>
          <div className="grid gap-3 rounded-md border-2 border-dashed border-amber-500 bg-white p-3">
            <p className="font-semibold">CLICK TO CONFIRM: Payment Completed</p>
            <Button
              className="w-full sm:w-fit"
              onClick={confirm}
              disabled={running || !info.canMarkAsPaid}
              data-testid="mark-paid"
            >
              {running ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
              Mark as Payment Completed
            </Button>
          </div>
        </section>
      ) : null}

      {action && paid ? (
        // The spec's button, as it reads once paid, without asking for an action.
        <section
          aria-label="Payment completed"
          className="grid gap-3 rounded-lg border border-green-300 bg-green-50 p-4 text-green-950"
          data-testid="action-done"
        >
          <p className="text-sm font-bold tracking-wide">NO ACTION REQUIRED</p>
          <Button className="w-full sm:w-fit" disabled data-testid="mark-paid">
            Payment Already Completed
          </Button>
        </section>
      ) : null}

      {paid ? (
        <Notice title="Payment Processing Complete" tone="done">
          <p className="text-lg font-semibold">All Done!</p>
          <p>The payment is complete and the stakeholders have been told.</p>
        </Notice>
      ) : null}

      {a ? null : (
        <Card data-testid="confirm-step-done">
          <CardHeader>
            <CardTitle as="h2">Approval Details</CardTitle>
          </CardHeader>
          <CardContent className="grid gap-3 text-sm">
            <dl className="grid gap-3 sm:grid-cols-2">
              <Field label="Approval ID">
                <span className="font-mono text-xs">{verified.approval.id}</span>
              </Field>
              <Field label="Current status">
                <span data-testid="confirm-status">{titleCase(verified.approval.status)}</span>
              </Field>
            </dl>
            <p className="text-muted-foreground">
              This link’s step is done. The approval’s details are in Billflow.
            </p>
            <Button asChild variant="outline" className="w-fit">
              <Link to={`/approvals/${id}`}>View Approval</Link>
            </Button>
          </CardContent>
        </Card>
      )}

      {a ? (
        <Card>
          <CardHeader>
            <CardTitle as="h2">Approval Details</CardTitle>
          </CardHeader>
          <CardContent className="grid gap-4">
            <dl className="grid gap-3 sm:grid-cols-2">
              <Field label="Approval ID">
                <span className="font-mono text-xs">{a.id}</span>
              </Field>
              <Field label="Current status">
                <span data-testid="confirm-status">{titleCase(a.status)}</span>
              </Field>
              <Field label="Company">{a.companyName ?? a.company?.name ?? 'N/A'}</Field>
              <Field label="Total amount">{formatCurrency(a.totalAmount)}</Field>
              <Field label="Assigned manager">
                {a.manager ? (
                  <span className="grid">
                    <span>
                      {a.manager.firstName} {a.manager.lastName}
                      {a.manager.title ? `, ${a.manager.title}` : ''}
                    </span>
                    <span>{a.manager.email}</span>
                    {a.manager.phone ? <span>{a.manager.phone}</span> : null}
                  </span>
                ) : (
                  (a.managerName ?? a.managerEmail ?? 'Not assigned')
                )}
              </Field>
              <Field label="Created">{formatDateTime(a.createdAt)}</Field>
              <Field label="Approved">{formatDateTime(a.approvalDate)}</Field>
              <Field label="NACHA generated">
                {a.nachaGeneratedAt
                  ? `${formatDateTime(a.nachaGeneratedAt)}${a.nachaBatchNumber !== null && a.nachaBatchNumber !== undefined ? ` (batch ${a.nachaBatchNumber})` : ''}`
                  : 'N/A'}
              </Field>
            </dl>
            <div className="grid gap-2">
              <h3 className="text-sm font-medium">Bills</h3>
              <ul className="grid gap-2 text-sm" data-testid="confirm-bills">
                {bills.map((b) => (
                  <li key={b.Id} className="flex flex-wrap justify-between gap-2 rounded-md border px-3 py-2">
                    <span className="min-w-0 [overflow-wrap:anywhere]">
                      {b.VendorRef?.name ?? 'Unknown Vendor'} · Doc # {b.DocNumber || 'N/A'}
                    </span>
                    <span className="font-medium">{formatCurrency(b.TotalAmt)}</span>
                  </li>
                ))}
              </ul>
              <p className="text-right text-sm">
                Total: <span className="font-semibold">{formatCurrency(billsTotal)}</span>
              </p>
            </div>
          </CardContent>
        </Card>
      ) : null}
    </div>
  );
}
