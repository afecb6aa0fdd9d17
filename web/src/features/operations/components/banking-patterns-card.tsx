// Unusual bank detail changes: one user changing many vendors' banking within an hour, and a change
// that went live followed within a day by a file paying that vendor (the shape of payment-redirection
// fraud). Read-only: each entry links to the vendor and the approval, where the staff act.
import { ShieldAlert } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import { formatCurrency } from '../../../lib/utils';
import type { BankingPatterns } from '../api/operations';
import { formatTime } from '../utils/format';

/** How a change went live, as the vendor's history says it. */
const HOW_LIVE: Record<string, string> = {
  'second-person': 'approved by a second person',
  'micro-deposits': 'verified by micro-deposits',
  'control-off': 'live with the control off',
};

const Time = ({ iso }: { iso: string | null }) =>
  iso ? <time dateTime={iso}>{formatTime(iso)}</time> : <>—</>;

export function BankingPatternsCard({
  patterns,
  loading,
}: {
  /** Null when the server could not read them; undefined while loading. */
  patterns: BankingPatterns | null | undefined;
  loading: boolean;
}) {
  return (
    <Card role="group" aria-labelledby="banking-patterns-title" data-testid="banking-patterns-card">
      <CardHeader>
        <CardTitle as="h2" id="banking-patterns-title" className="flex items-center gap-2">
          <ShieldAlert className="size-4 text-muted-foreground" aria-hidden="true" />
          Unusual bank detail changes
        </CardTitle>
        {patterns ? (
          <p className="text-sm text-muted-foreground">
            Last {patterns.lookbackDays} days: one user changing more than {patterns.rapidChangeThreshold}{' '}
            vendors’ bank details within an hour, and a change followed by a payment to the vendor within{' '}
            {patterns.paymentWithinHours} hours.
          </p>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-6">
        {loading && patterns === undefined ? (
          <div className="grid gap-2" aria-hidden="true">
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : patterns === null || patterns === undefined ? (
          <p className="text-sm text-destructive" data-testid="banking-patterns-unavailable">
            The bank detail changes could not be read just now.
          </p>
        ) : (
          <>
            <RapidChanges patterns={patterns} />
            <ChangedThenPaid patterns={patterns} />
          </>
        )}
      </CardContent>
    </Card>
  );
}

function RapidChanges({ patterns }: { patterns: BankingPatterns }) {
  return (
    <section aria-labelledby="rapid-changes-title" className="grid gap-3">
      <h3 id="rapid-changes-title" className="text-sm font-semibold">
        Many vendors changed by one user
      </h3>
      {patterns.rapidChanges.length === 0 ? (
        <p className="text-sm text-muted-foreground">None</p>
      ) : (
        <ul className="grid gap-3" aria-labelledby="rapid-changes-title" data-testid="rapid-changes">
          {patterns.rapidChanges.map((r) => (
            <li
              key={`${r.userId}-${r.from}`}
              data-testid={`rapid-change-${r.userId}`}
              className="grid gap-1 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:bg-amber-950/30"
            >
              <span className="font-medium [overflow-wrap:anywhere]">
                {r.userName} changed {r.vendorCount} vendors’ bank details within an hour
              </span>
              <span className="text-muted-foreground">
                {r.changeCount} changes from <Time iso={r.from} /> to <Time iso={r.to} />
              </span>
              {r.vendors.length > 0 ? (
                <span className="[overflow-wrap:anywhere]">
                  Vendors: {r.vendors.join(', ')}
                  {r.vendorCount > r.vendors.length ? ', …' : ''}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ChangedThenPaid({ patterns }: { patterns: BankingPatterns }) {
  return (
    <section aria-labelledby="changed-then-paid-title" className="grid gap-3">
      <h3 id="changed-then-paid-title" className="text-sm font-semibold">
        Paid soon after a change
      </h3>
      {patterns.changedThenPaid.length === 0 ? (
        <p className="text-sm text-muted-foreground">None</p>
      ) : (
        <ul className="grid gap-3" aria-labelledby="changed-then-paid-title" data-testid="changed-then-paid">
          {patterns.changedThenPaid.map((c) => (
            <li
              key={`${c.changeId}-${c.approvalId}-${c.fileVersion}`}
              data-testid={`changed-then-paid-${c.changeId}`}
              className="grid gap-1 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:bg-amber-950/30"
            >
              <span className="font-medium [overflow-wrap:anywhere]">
                <Link className="underline" to={`/vendors/${c.vendorId}`}>
                  {c.vendorName ?? `Vendor #${c.vendorId}`}
                </Link>
                {c.companyName ? ` (${c.companyName})` : ''}: paid {formatCurrency(c.amount)} to account{' '}
                {c.paidAccountNumber ?? '—'}
              </span>
              <span className="[overflow-wrap:anywhere]">
                Changed to {c.accountNumber ?? '—'} by {c.changedByName ?? 'someone unknown'} on{' '}
                <Time iso={c.changedAt} />, live <Time iso={c.liveAt} />
                {c.verifiedBy ? ` (${HOW_LIVE[c.verifiedBy] ?? c.verifiedBy})` : ''}
              </span>
              <span className="text-muted-foreground">
                File v{c.fileVersion} made <Time iso={c.paidAt} />
                {c.bankUploadedAt ? (
                  <>
                    , at the bank <Time iso={c.bankUploadedAt} />
                  </>
                ) : (
                  ', not yet at the bank'
                )}{' '}
                ·{' '}
                <Link className="underline" to={`/approvals/${c.approvalId}`}>
                  approval {c.approvalId.slice(0, 8)}
                </Link>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
