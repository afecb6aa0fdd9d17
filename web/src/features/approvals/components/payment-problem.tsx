// What holds an approval's payment, where the clerk works (the answer's paymentProblem): a marker
// under the list row's status, a badge beside the detail's status, and the detail's banner above its
// cards with the retry that helps. A file that only waits for the next banking day is a calm notice,
// never an error: there is nothing to do but wait.
import { AlertTriangle, Clock, RefreshCw, RotateCcw } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import { cn } from '../../../lib/utils';
import type { PaymentProblem } from '../api/approvals';
import { RetryPaymentJob, RetryQbSync } from '../api/payments';
import { formatDateTime, regenerateBlockedReason } from '../utils/approval-rules';
import { useRegenerateNacha } from './nacha-card';

/** What each kind is called in a word or two, beside the status. */
const KIND_LABELS: Record<PaymentProblem['kind'], string> = {
  JOB: 'Payment job failed',
  NACHA: 'NACHA file needs a fix',
  WAITING: 'Waiting for the next banking day',
  QUICKBOOKS: 'QuickBooks not updated',
};

export const problemLabel = (p: PaymentProblem) => KIND_LABELS[p.kind];
const calm = (p: PaymentProblem) => p.kind === 'WAITING';

/** Under the list row's status: the kind in words and the message, a warning unless it only waits. */
export function PaymentProblemMarker({ problem }: { problem: PaymentProblem }) {
  const Icon = calm(problem) ? Clock : AlertTriangle;
  return (
    <p
      data-testid="payment-problem"
      data-kind={problem.kind}
      title={problem.message}
      className={cn(
        'mt-1 flex max-w-36 items-start gap-1 text-xs sm:max-w-56',
        calm(problem) ? 'text-sky-900' : 'text-red-800',
      )}
    >
      <Icon aria-hidden="true" className="mt-0.5 size-3 shrink-0" />
      <span className="min-w-0">
        <span className="font-medium">{problemLabel(problem)}</span>
        <span className="sr-only">: </span>
        <span className="line-clamp-2 [overflow-wrap:anywhere]">{problem.message}</span>
      </span>
    </p>
  );
}

/** Beside the detail's status badge: 'Needs attention', or 'Waiting' for the next banking day. */
export function PaymentProblemBadge({ problem }: { problem: PaymentProblem }) {
  return calm(problem) ? (
    <Badge className="border-transparent bg-sky-100 text-sky-900" data-testid="payment-problem-badge">
      <Clock aria-hidden="true" />
      Waiting
    </Badge>
  ) : (
    <Badge className="border-transparent bg-red-100 text-red-900" data-testid="payment-problem-badge">
      <AlertTriangle aria-hidden="true" />
      Needs attention
    </Badge>
  );
}

export interface PaymentProblemBannerProps {
  approvalId: string;
  status: string;
  problem: PaymentProblem;
  /** ADMIN or MODERATOR on a live view (not deleted, not a past step): Regenerate and Retry the sync. */
  staff: boolean;
  /** ADMIN on a live view: the failed job's retry and the operations page. */
  admin: boolean;
}

/** The detail's banner: the message, and the retry that helps for whoever is looking. */
export function PaymentProblemBanner({
  approvalId,
  status,
  problem,
  staff,
  admin,
}: PaymentProblemBannerProps) {
  const [busy, setBusy] = useState(false);
  const regenerate = useRegenerateNacha();
  const retrySync = useGqlMutation(RetryQbSync, 'Failed to retry QB sync');
  const retryJob = useGqlMutation(RetryPaymentJob, 'Failed to retry the job');
  const atBank = regenerateBlockedReason(status);

  async function run(action: () => Promise<void>) {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  }
  const onRegenerate = () => run(() => regenerate(approvalId));
  const onRetrySync = () =>
    run(async () => {
      try {
        const answer = await retrySync({ id: approvalId });
        toast.success('QB sync retry initiated', answer.retryQbSync.message);
      } catch (err) {
        toast.error(
          err instanceof Error && err.message ? err.message : 'An error occurred',
          'Failed to retry QB sync',
        );
      }
    });
  const onRetryJob = (queue: string, jobId: string) =>
    run(async () => {
      try {
        await retryJob({ queue, jobId });
        toast.success('Retry started', 'The job runs again; this notice goes once it goes through.');
      } catch (err) {
        toast.error(err instanceof Error && err.message ? err.message : 'An error occurred', 'Retry failed');
      }
    });

  let action: ReactNode = null;
  if (problem.retry === 'REGENERATE')
    action = staff ? (
      <div className="grid gap-1">
        <Button
          variant="outline"
          size="sm"
          className="w-fit"
          onClick={onRegenerate}
          disabled={busy || atBank !== null}
          aria-describedby={atBank ? 'problem-regenerate-blocked' : undefined}
        >
          <RefreshCw aria-hidden="true" className={busy ? 'animate-spin' : undefined} />
          Regenerate NACHA File
        </Button>
        {atBank ? (
          <p id="problem-regenerate-blocked" className="text-xs">
            {atBank}
          </p>
        ) : null}
      </div>
    ) : (
      <p>Once it is fixed, a moderator or an administrator regenerates the file.</p>
    );
  else if (problem.retry === 'APPROVE_AGAIN')
    // The approve again itself is in the card that shows the old and the new tails beside each other.
    action = staff ? (
      <p>
        Check the changed bank details in “Bank Details Held Out of the File” below, approve them again, then
        regenerate the file.
      </p>
    ) : (
      <p>
        A moderator or an administrator approves the changed bank details again, then regenerates the file.
      </p>
    );
  else if (problem.retry === 'RETRY_QB_SYNC')
    action = staff ? (
      <Button variant="outline" size="sm" className="w-fit" onClick={onRetrySync} disabled={busy}>
        <RefreshCw aria-hidden="true" className={busy ? 'animate-spin' : undefined} />
        Retry QuickBooks Sync
      </Button>
    ) : (
      <p>A moderator or an administrator can retry the QuickBooks sync.</p>
    );
  else if (problem.retry === 'OPERATIONS') {
    const { queue, jobId } = problem;
    action = admin ? (
      <div className="flex flex-wrap items-center gap-2">
        {queue && jobId ? (
          <Button
            variant="outline"
            size="sm"
            onClick={() => onRetryJob(queue, jobId)}
            disabled={busy}
            aria-label="Retry the failed job"
          >
            <RotateCcw aria-hidden="true" />
            Retry
          </Button>
        ) : null}
        <Button variant="link" size="sm" className="h-auto p-0" asChild>
          <Link to="/operations">Open the Operations page</Link>
        </Button>
      </div>
    ) : (
      <p>An administrator can retry the job on the Operations page.</p>
    );
  }

  const waiting = calm(problem);
  return (
    <section
      aria-label="Payment problem"
      role={waiting ? 'status' : 'alert'}
      data-testid="payment-problem-banner"
      data-kind={problem.kind}
      className={cn(
        'grid gap-2 rounded-lg border px-4 py-3 text-sm',
        waiting
          ? 'border-sky-300 bg-sky-50 text-sky-950'
          : 'border-destructive/50 bg-destructive/5 text-red-900',
      )}
    >
      <p className="flex items-center gap-2 font-medium">
        {waiting ? (
          <Clock aria-hidden="true" className="size-4 shrink-0" />
        ) : (
          <AlertTriangle aria-hidden="true" className="size-4 shrink-0" />
        )}
        {waiting
          ? 'The payment waits for the next banking day'
          : `Payment needs attention: ${problemLabel(problem)}`}
      </p>
      <p className="[overflow-wrap:anywhere]" data-testid="payment-problem-message">
        {problem.message}
      </p>
      {problem.at ? <p className="text-xs">Since {formatDateTime(problem.at)}</p> : null}
      {action}
    </section>
  );
}
