// The list's figures: five counts, and a second row when bill data exists.
import { Card, CardContent } from '../../../components/ui/card';
import { cn, formatCurrency } from '../../../lib/utils';
import type { ApprovalStats } from '../api/approvals';
import { hasBillFigures, percent } from '../utils/approval-rules';

function Stat({
  label,
  value,
  note,
  testId,
  className,
}: {
  label: string;
  value: string;
  note?: string;
  testId: string;
  className?: string;
}) {
  return (
    <Card className={cn('gap-1 py-4', className)} data-testid={testId}>
      <CardContent className="grid gap-1 px-4">
        <p className="text-sm text-muted-foreground">{label}</p>
        <p className="text-2xl font-semibold tabular-nums" data-testid={`${testId}-value`}>
          {value}
        </p>
        {note ? <p className="text-xs text-muted-foreground">{note}</p> : null}
      </CardContent>
    </Card>
  );
}

export function ApprovalStatCards({ stats }: { stats: ApprovalStats | undefined }) {
  const s = stats ?? {
    total: 0,
    pending: 0,
    approved: 0,
    rejected: 0,
    expired: 0,
    processedBills: 0,
    approvedBills: 0,
    processedTotalAmount: 0,
    approvedTotalAmount: 0,
  };
  return (
    <section aria-label="Approval figures" className="grid gap-4">
      <div className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-5">
        <Stat label="Total" value={String(s.total)} testId="stat-total" />
        <Stat label="Pending" value={String(s.pending)} testId="stat-pending" />
        <Stat label="Approved" value={String(s.approved)} testId="stat-approved" />
        <Stat label="Rejected" value={String(s.rejected)} testId="stat-rejected" />
        <Stat label="Expired" value={String(s.expired)} testId="stat-expired" />
      </div>
      {stats && hasBillFigures(s) ? (
        <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
          <Stat label="Processed Bills" value={String(s.processedBills)} testId="stat-processed-bills" />
          <Stat
            label="Approved Bills"
            value={String(s.approvedBills)}
            note={`${percent(s.approvedBills, s.processedBills)}% approval rate`}
            testId="stat-approved-bills"
          />
          {/* A whole row each on a phone: half of one was narrower than '$46,007.18' at this size. */}
          <Stat
            label="Processed Amount"
            value={formatCurrency(s.processedTotalAmount)}
            testId="stat-processed-amount"
            className="col-span-2 sm:col-span-1"
          />
          <Stat
            className="col-span-2 sm:col-span-1"
            label="Approved Amount"
            value={formatCurrency(s.approvedTotalAmount)}
            note={`${percent(s.approvedTotalAmount, s.processedTotalAmount)}% of total`}
            testId="stat-approved-amount"
          />
        </div>
      ) : null}
    </section>
  );
}
