// Where money is decided, a vendor whose bank details changed recently (the company's flag days) or
// wait for a second look is flagged: a small warning under the list row's status and on a /bills
// candidate, and a banner on the approval detail naming each vendor, who changed it and when, how it
// went live, or who must act on it. The server decides what is flagged and words who must act.
import { AlertTriangle, ShieldAlert } from 'lucide-react';
import { Link } from 'react-router-dom';
import { cn } from '../../../lib/utils';
import type { BankingFlag } from '../api/approvals';
import {
  flagLabel,
  flagStory,
  flagSummary,
  isHeldFlag,
  sortFlags,
  vendorLabel,
} from '../utils/banking-rules';

const tone = (flags: readonly BankingFlag[]) =>
  flags.some((f) => f.kind === 'FROZEN_CHANGE') ? 'text-red-800' : 'text-amber-900';

/** Under a list row's status, or in a candidate's notes: the worst flag in a line, all in its title. */
export function BankingFlagMarker({ flags, testId }: { flags: readonly BankingFlag[]; testId: string }) {
  const summary = flagSummary(flags);
  if (!summary) return null;
  const all = sortFlags(flags)
    .map((f) => f.message)
    .join('\n');
  return (
    <p
      data-testid={testId}
      title={all}
      className={cn('mt-1 flex max-w-36 items-start gap-1 text-xs sm:max-w-56', tone(flags))}
    >
      <AlertTriangle aria-hidden="true" className="mt-0.5 size-3 shrink-0" />
      <span className="min-w-0">
        <span className="line-clamp-2 font-medium [overflow-wrap:anywhere]">{summary}</span>
        <span className="sr-only">{all}</span>
      </span>
    </p>
  );
}

/** The detail's banner: each flagged vendor, what changed, who changed it and when, who must act. */
export function BankingFlagsBanner({ flags }: { flags: readonly BankingFlag[] }) {
  if (flags.length === 0) return null;
  const held = flags.some((f) => isHeldFlag(f.kind));
  return (
    <section
      aria-label="Bank detail changes"
      data-testid="banking-flags"
      className={cn(
        'grid gap-2 rounded-lg border px-4 py-3 text-sm',
        flags.some((f) => f.kind === 'FROZEN_CHANGE')
          ? 'border-destructive/50 bg-destructive/5 text-red-900'
          : 'border-amber-300 bg-amber-50 text-amber-950',
      )}
    >
      <p className="flex items-center gap-2 font-medium">
        <ShieldAlert aria-hidden="true" className="size-4 shrink-0" />
        {held
          ? 'A vendor’s bank details change waits for a second look: its payment is held'
          : 'A vendor’s bank details changed recently: check them before approving'}
      </p>
      <ul className="grid gap-2">
        {sortFlags(flags).map((f) => (
          <li
            key={`${f.changeId}-${f.kind}`}
            data-testid={`banking-flag-${f.vendorId}-${f.kind.toLowerCase().replace(/_/g, '-')}`}
            className="grid gap-0.5"
          >
            <span>
              <span className="font-medium">
                {vendorLabel(f)}: {flagLabel(f.kind)}
              </span>{' '}
              <span className="[overflow-wrap:anywhere]">{flagStory(f)}</span>
            </span>
            {f.awaiting ? <span className="font-medium">Who must act: {f.awaiting}</span> : null}
            <Link to={`/vendors/${f.vendorId}`} className="w-fit text-xs underline">
              Open {vendorLabel(f)}’s bank details
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
