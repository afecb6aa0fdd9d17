// The detail page's Activity History: each step with who took
// it (a badge when it was an e-mail link's recipient or a system job), when ('MMM d, HH:mm'), what
// it changed (old → new, in the server's words: statuses as their badges say them), the reason given
// and its file. Steps from the streams around the approval (the company's policy, a vendor's banking)
// say where they come from. A step's place in the event log is for auditors (the time travel reads
// it): kept on the step as data and in the time's tooltip, never in the text. On a phone each line
// wraps; nothing scrolls sideways.
import type { ResultOf } from 'gql.tada';
import { Download } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import type { ApprovalHistoryQuery } from '../api/approvals';
import { historyDetails, historyTime } from '../utils/approval-rules';
import { runDownload } from './nacha-card';

export type HistoryStep = ResultOf<typeof ApprovalHistoryQuery>['approvalHistory'][number];

/** How each changed field is named on screen (the server names them as the approval's fields). */
const FIELD_LABELS: Record<string, string> = {
  status: 'Status',
  priority: 'Priority',
  manager: 'Manager',
  recipients: 'Recipients',
  bills: 'Bills',
  firstApproval: 'First approval',
  approvedBills: 'Approved bills',
  nachaVersion: 'NACHA version',
  nachaStatus: 'NACHA file status',
  nachaFile: 'NACHA file',
  nachaProblems: 'NACHA problems',
  pennyTest: 'Penny test',
  links: 'E-mail links',
  qbSyncStatus: 'QuickBooks sync',
  qbSyncAttempt: 'QuickBooks sync attempt',
  paidBills: 'Paid bills',
  creatorMayNotApprove: 'Creator may not approve',
  secondApprovalThreshold: 'Second approver above',
  assignedStaffOnly: 'Assigned staff only',
};
export const fieldLabel = (field: string) => FIELD_LABELS[field] ?? field;

/** Where a step from another stream comes from; null for the approval's own. */
function sourceOf(stream: string): string | null {
  if (stream.startsWith('approvalpolicy-')) return 'Company policy';
  if (stream.startsWith('vendor-')) return 'Vendor';
  return stream.startsWith('approval-') ? null : stream;
}

const ACTOR_BADGES: Partial<Record<HistoryStep['actorKind'], string>> = {
  LINK_RECIPIENT: 'E-mail link',
  SYSTEM: 'System',
};

function Value({ value }: { value: string | null }) {
  if (value === null) return <span className="text-muted-foreground">none</span>;
  if (value === '[erased]')
    return (
      <span className="italic text-muted-foreground" title="Its subject was forgotten">
        erased
      </span>
    );
  return <span className="font-medium">{value}</span>;
}

function Step({ step, canDownload }: { step: HistoryStep; canDownload: boolean }) {
  const badge = ACTOR_BADGES[step.actorKind];
  const source = sourceOf(step.stream);
  // A rejection's text is its reason: said once, as the reason.
  const details = step.details === step.reason ? null : historyDetails(step);
  return (
    <li
      className="grid min-w-0 gap-1 border-l-2 pl-3 text-sm [overflow-wrap:anywhere]"
      data-testid="history-step"
      data-position={step.position}
    >
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="font-medium" data-testid="history-action">
          {step.action}
        </span>
        {source ? <Badge variant="secondary">{source}</Badge> : null}
      </p>
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-muted-foreground">
        <span data-testid="history-actor">{step.userName ?? 'System'}</span>
        {badge ? <Badge variant="outline">{badge}</Badge> : null}
        <span aria-hidden="true">·</span>
        <time dateTime={step.timestamp} title={`Position in the event log: ${step.position}`}>
          {historyTime(step.timestamp)}
        </time>
      </p>
      {details ? <p className="text-muted-foreground">{details}</p> : null}
      {step.changes.length > 0 ? (
        // A description list, not a nested list: each step stays the list's only item level.
        <dl className="grid gap-0.5" data-testid="history-changes" title="What changed">
          {step.changes.map((c) => (
            <div key={c.field} className="flex flex-wrap gap-x-1">
              <dt className="text-muted-foreground">{fieldLabel(c.field)}:</dt>
              <dd className="flex flex-wrap gap-x-1">
                <Value value={c.from} />
                <span aria-hidden="true">→</span>
                <span className="sr-only">changed to</span>
                <Value value={c.to} />
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {step.reason ? (
        <p>
          <span className="text-muted-foreground">Reason: </span>
          <span data-testid="history-reason">{step.reason}</span>
        </p>
      ) : null}
      {step.downloadUrl && canDownload ? (
        <Button
          variant="link"
          size="sm"
          className="h-auto w-fit p-0"
          onClick={() => runDownload(step.downloadUrl!, null, 'Download started')}
        >
          <Download aria-hidden="true" />
          Download file
        </Button>
      ) : null}
    </li>
  );
}

/**
 * The steps, oldest first, as the server orders them (by log position). A step's file is offered
 * only to a viewer whose role may download it (`canDownload`: ADMIN, MODERATOR).
 */
export function ApprovalHistoryList({
  steps,
  canDownload = true,
}: {
  steps: readonly HistoryStep[];
  canDownload?: boolean;
}) {
  return (
    <ol className="grid gap-3" data-testid="history">
      {steps.map((h) => (
        <Step key={h.id} step={h} canDownload={canDownload} />
      ))}
    </ol>
  );
}
