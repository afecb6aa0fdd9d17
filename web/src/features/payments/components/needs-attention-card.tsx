// What the bank sent back that waits on a person: notifications of change not acted on yet (Nacha gives
// six banking days to change the vendor's bank details; overdue ones in red) and the recent returns,
// each linked to its approval and vendor, where staff act.
import { BellRing } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadError } from '../../../components/ui/list-states';
import { Skeleton } from '../../../components/ui/skeleton';
import { cn } from '../../../lib/utils';
import type { NeedingAttention, OpenCorrection, RecentReturn } from '../api/bank-files';
import { correctionLine, returnLine, shortDate } from '../utils/bank-file-words';

function EntryLinks({ entry }: { entry: OpenCorrection | RecentReturn }) {
  return (
    <span className="text-xs text-muted-foreground">
      {entry.companyName ?? `Company #${entry.companyId}`} ·{' '}
      <Link className="underline" to={`/approvals/${entry.approvalId}`}>
        approval {entry.approvalId.slice(0, 8)}
      </Link>
      {entry.vendorId !== null ? (
        <>
          {' '}
          ·{' '}
          <Link className="underline" to={`/vendors/${entry.vendorId}`}>
            vendor {entry.vendorName}
          </Link>
        </>
      ) : null}{' '}
      · account …{entry.accountLast4}
    </span>
  );
}

export function NeedsAttentionCard({
  attention,
  loading,
  error,
  onRetry,
}: {
  attention: NeedingAttention | undefined;
  loading: boolean;
  error: string | null;
  onRetry: () => void;
}) {
  return (
    <Card role="group" aria-labelledby="needs-attention-title" data-testid="needs-attention-card">
      <CardHeader>
        <CardTitle as="h2" id="needs-attention-title" className="flex items-center gap-2">
          <BellRing className="size-4 text-muted-foreground" aria-hidden="true" />
          Needs attention
        </CardTitle>
        {attention ? (
          <p className="text-sm text-muted-foreground">
            Last {attention.lookbackDays} days: notifications of change whose vendor’s bank details have not
            changed since (Nacha gives six banking days), and returned payments.
          </p>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-6">
        {error ? (
          <LoadError title={`Error loading what needs attention: ${error}`} onRetry={onRetry} />
        ) : loading && !attention ? (
          <div className="grid gap-2" aria-hidden="true">
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : attention ? (
          <>
            <section aria-labelledby="open-corrections-title" className="grid gap-3">
              <h3 id="open-corrections-title" className="text-sm font-semibold">
                Notifications of change
              </h3>
              {attention.corrections.length === 0 ? (
                <p className="text-sm text-muted-foreground">None open</p>
              ) : (
                <ul
                  className="grid gap-2"
                  aria-labelledby="open-corrections-title"
                  data-testid="open-corrections"
                >
                  {attention.corrections.map((c) => (
                    <li
                      key={c.traceNumber}
                      data-testid={`correction-${c.traceNumber}`}
                      data-overdue={c.overdue || undefined}
                      className={cn(
                        'grid gap-1 rounded-md border p-3 text-sm',
                        c.overdue && 'border-destructive/50 bg-destructive/5',
                      )}
                    >
                      <span className={cn('font-medium', c.overdue && 'text-destructive')}>
                        {correctionLine(c)}
                      </span>
                      <span className="[overflow-wrap:anywhere]">
                        {c.description}
                        {c.correctedAccountLast4 ? ` · corrected account …${c.correctedAccountLast4}` : ''}
                        {c.correctedRoutingLast4 ? ` · corrected routing …${c.correctedRoutingLast4}` : ''}
                      </span>
                      <EntryLinks entry={c} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section aria-labelledby="recent-returns-title" className="grid gap-3">
              <h3 id="recent-returns-title" className="text-sm font-semibold">
                Returned payments
              </h3>
              {attention.returns.length === 0 ? (
                <p className="text-sm text-muted-foreground">None</p>
              ) : (
                <ul
                  className="grid gap-2"
                  aria-labelledby="recent-returns-title"
                  data-testid="recent-returns"
                >
                  {attention.returns.map((r) => (
                    <li
                      key={r.traceNumber}
                      data-testid={`return-${r.traceNumber}`}
                      className="grid gap-1 rounded-md border p-3 text-sm"
                    >
                      <span className="font-medium">
                        {returnLine(r)}, returned {shortDate(r.receivedAt)}
                      </span>
                      <span className="[overflow-wrap:anywhere]">{r.description}</span>
                      <EntryLinks entry={r} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}
