// "Bank detail changes": every change of the vendor's bank details, newest first, masked: the last
// four digits before and after, its source, who made it and when, and how it ended (approved or
// rejected by whom and why, or how it went live). Re-read through the cache when the vendor changes.
import { Badge } from '../../../components/ui/badge';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { useGqlQuery } from '../../../lib/use-graphql';
import { type BankingChange, VendorBankingChangesQuery } from '../api/vendors';
import { beforeOrNone, changeStatusLabel, sourceLabel, verifiedLabel } from '../utils/banking-change-rules';
import { formatDateTime } from '../utils/vendor-rules';

const TONE: Record<string, string> = {
  pending: 'border-amber-500/60 bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100',
  frozen: 'border-transparent bg-destructive text-white',
  approved: 'border-transparent bg-green-700 text-white',
  live: 'border-transparent bg-green-700 text-white',
  rejected: 'border-transparent bg-secondary text-secondary-foreground',
};

export function BankingChangeStatusBadge({ status }: { status: string }) {
  return (
    <Badge variant="outline" className={TONE[status]}>
      {changeStatusLabel(status)}
    </Badge>
  );
}

function outcome(c: BankingChange): string | null {
  if (c.status === 'approved' || c.status === 'rejected') {
    const who = c.decidedByName ?? 'someone';
    const verb = c.status === 'approved' ? 'Approved' : 'Rejected';
    return `${verb} by ${who} · ${formatDateTime(c.decidedAt)}${c.reason ? ` · “${c.reason}”` : ''}`;
  }
  if (c.status === 'live') {
    const how = verifiedLabel(c.verifiedBy) ?? 'Live';
    return `${how}${c.decidedAt ? ` · ${formatDateTime(c.decidedAt)}` : ''}`;
  }
  return c.awaiting;
}

export function BankingChangesCard({ vendorId }: { vendorId: number }) {
  const query = useGqlQuery(
    VendorBankingChangesQuery,
    { id: vendorId },
    { fallback: 'Failed to load bank detail changes' },
  );
  const changes = query.data?.vendorBankingChanges;
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Bank Detail Changes</CardTitle>
        <CardDescription>
          Every change of the account, newest first. Numbers show their last four digits only.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {query.error && !changes ? (
          <p className="text-sm text-destructive">
            Failed to load bank detail changes: {query.error.message}
          </p>
        ) : !changes ? (
          <LoadingState text="Loading bank detail changes..." />
        ) : changes.length === 0 ? (
          <p className="text-sm text-muted-foreground">No bank detail changes yet</p>
        ) : (
          <ol className="grid gap-3" data-testid="banking-changes">
            {changes.map((c) => (
              <li
                key={c.changeId}
                className="grid gap-1 border-l-2 pl-3 text-sm"
                data-testid={`banking-change-${c.changeId}`}
              >
                <div className="flex flex-wrap items-center gap-2">
                  <BankingChangeStatusBadge status={c.status} />
                  <span className="font-mono">
                    {beforeOrNone(c.previousAccountNumber)} → {c.accountNumber ?? 'masked'}
                  </span>
                  <span className="text-xs text-muted-foreground">
                    routing {beforeOrNone(c.previousRoutingNumber)} → {c.routingNumber ?? 'masked'}
                  </span>
                </div>
                <span className="text-xs text-muted-foreground">
                  {sourceLabel(c.source)} · by {c.requestedByName ?? 'the system'} ·{' '}
                  {formatDateTime(c.requestedAt)}
                </span>
                {outcome(c) ? <span className="[overflow-wrap:anywhere]">{outcome(c)}</span> : null}
              </li>
            ))}
          </ol>
        )}
      </CardContent>
    </Card>
  );
}
