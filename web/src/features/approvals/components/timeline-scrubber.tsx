// Time travel on the approval detail (ADMIN, MODERATOR): a slider and Previous / Next over every event
// of the approval's stream. Choosing a step hands the approval as it stood then to the page
// (`onView`), which shows its cards from it, with a banner saying which step is shown and a "Back to
// now" button. The answers come from approvalAsOf (services/approvals/as-of.ts): the server's fold of
// the stream up to that event, in the detail's own shape.
import { History, RotateCcw } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { graphql, type ResultOf } from '../../../lib/graphql';
import { useGqlQuery } from '../../../lib/use-graphql';
import { type Approval, ApprovalDetailFields } from '../api/approvals';
import { formatDateTime } from '../utils/approval-rules';

/** The detail's selection, as of one step, with the steps to scrub through. */
export const ApprovalAsOfQuery = graphql(
  `
    query ApprovalAsOf($id: String!, $asOf: ApprovalAsOfInput) {
      approvalAsOf(id: $id, asOf: $asOf) {
        approval {
          ...ApprovalDetailFields
        }
        asOf {
          position
          at
          eventType
          step
          steps
          deleted
        }
        steps {
          position
          at
          type
        }
        erased
      }
    }
  `,
  [ApprovalDetailFields],
);

export type ApprovalAsOf = ResultOf<typeof ApprovalAsOfQuery>['approvalAsOf'];

/** An event type as words: ApprovalFirstApproved → "First approved". */
export function stepLabel(type: string): string {
  const words = type
    .replace(/^Approval/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase()
    .replace(/\bnacha\b/g, 'NACHA')
    .replace(/\bqb\b/g, 'QuickBooks');
  return words ? words[0].toUpperCase() + words.slice(1) : type;
}

const ERASED_NAMES: Record<string, string> = {
  vendorContacts: 'vendor e-mails and phones',
  recipients: 'recipients',
};

/** What the page shows while a past step is chosen: the approval then, and where it stands. */
export interface PastView {
  approval: Approval;
  asOf: ApprovalAsOf['asOf'];
  erased: string[];
}

export function TimelineScrubber({
  approvalId,
  onView,
}: {
  approvalId: string;
  onView: (view: PastView | null) => void;
}) {
  const [open, setOpen] = useState(false);
  // The chosen step (1-based); null: the newest, once the steps are known.
  const [step, setStep] = useState<number | null>(null);
  const [steps, setSteps] = useState<ApprovalAsOf['steps']>([]);
  const sliderId = useId();
  const position = step === null ? undefined : steps[step - 1]?.position;
  const read = useGqlQuery(
    ApprovalAsOfQuery,
    { id: approvalId, asOf: position ? { position } : null },
    { pause: !open, fallback: 'Failed to load the approval’s past', requestPolicy: 'cache-first' },
  );
  const answer = read.data?.approvalAsOf;

  // The steps come with every answer; the newest list wins (the approval may have moved on).
  useEffect(() => {
    if (answer && answer.steps.length !== steps.length) setSteps(answer.steps);
  }, [answer, steps.length]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: onView is the page's setter
  useEffect(() => {
    if (!open || !answer || (position && answer.asOf.position !== position)) return;
    onView({ approval: answer.approval as Approval, asOf: answer.asOf, erased: answer.erased });
  }, [open, answer, position]);
  // Another approval: start over, at now.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on a new id only
  useEffect(() => {
    setOpen(false);
    setStep(null);
    setSteps([]);
    onView(null);
  }, [approvalId]);

  const close = () => {
    setOpen(false);
    setStep(null);
    onView(null);
  };

  if (!open)
    return (
      <Button variant="outline" onClick={() => setOpen(true)} data-testid="time-travel-open">
        <History aria-hidden="true" />
        Time travel
      </Button>
    );

  const total = steps.length;
  const current = step ?? total;
  const shown = answer?.asOf;
  const choose = (n: number) => setStep(Math.min(Math.max(1, n), total));
  const at = shown ? formatDateTime(shown.at) : '…';
  const erased = (answer?.erased ?? []).map((f) => ERASED_NAMES[f] ?? f);

  return (
    <section
      aria-label="Time travel"
      className="grid gap-3 rounded-lg border border-sky-300 bg-sky-50 px-4 py-3 text-sm text-sky-950"
      data-testid="time-travel"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p role="status" aria-live="polite" className="font-medium" data-testid="time-travel-banner">
          {shown && total > 0
            ? `Viewing as of ${at} · step ${shown.step} of ${total}`
            : read.error
              ? read.error.message
              : 'Loading the approval’s past…'}
        </p>
        <Button variant="outline" size="sm" onClick={close}>
          <RotateCcw aria-hidden="true" />
          Back to now
        </Button>
      </div>
      {shown ? (
        // The step's place in the event log is an auditor's detail: in the tooltip, not the text.
        <p
          className="text-sky-900"
          data-testid="time-travel-step"
          data-position={shown.position}
          title={`Log position ${shown.position}`}
        >
          After: <span className="font-medium">{stepLabel(shown.eventType)}</span>
          {shown.deleted ? ' (the approval had been deleted)' : ''}
        </p>
      ) : null}
      {erased.length > 0 ? (
        <p className="text-amber-900" data-testid="time-travel-erased">
          Erased (their subject was forgotten): {erased.join(', ')}
        </p>
      ) : null}
      {total > 0 ? (
        <div className="flex flex-wrap items-center gap-2">
          <Button variant="outline" size="sm" onClick={() => choose(current - 1)} disabled={current <= 1}>
            Previous
          </Button>
          <label htmlFor={sliderId} className="sr-only">
            Step of the approval’s history
          </label>
          <input
            id={sliderId}
            type="range"
            min={1}
            max={total}
            step={1}
            value={current}
            onChange={(e) => choose(Number(e.target.value))}
            aria-valuetext={`Step ${current} of ${total}: ${stepLabel(steps[current - 1]?.type ?? '')}, ${formatDateTime(steps[current - 1]?.at)}`}
            className="min-w-0 flex-1 accent-sky-700"
            data-testid="time-travel-slider"
          />
          <Button variant="outline" size="sm" onClick={() => choose(current + 1)} disabled={current >= total}>
            Next
          </Button>
        </div>
      ) : null}
    </section>
  );
}
