// Payments needing attention: approvals whose payment someone must act on (a failed job, a file
// waiting on a fix, a QuickBooks record that failed after the bank paid), and apart from them those
// whose file only waits for the next banking day. Each figure opens the approvals list filtered the
// same way (the server counts them with the list's own filters), so the number and the list agree.
import { AlertTriangle, Clock } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import { cn } from '../../../lib/utils';
import type { DashboardStats } from '../api/dashboard';

export const ATTENTION_LIST = '/approvals?problem=any';
export const WAITING_LIST = '/approvals?problem=waiting';

export function PaymentsAttentionCard({ stats, loading }: { stats: DashboardStats; loading: boolean }) {
  const attention = stats.paymentsNeedingAttention;
  const waiting = stats.paymentsWaiting;
  return (
    <Card role="group" aria-labelledby="stat-payments-title" data-testid="stat-payments" className="gap-2">
      <CardHeader className="flex flex-row items-center justify-between">
        <CardTitle as="h2" id="stat-payments-title" className="text-sm font-medium">
          Payments needing attention
        </CardTitle>
        <AlertTriangle
          className={cn('size-4', attention > 0 ? 'text-red-700' : 'text-muted-foreground')}
          aria-hidden
        />
      </CardHeader>
      <CardContent className="grid gap-1">
        {loading ? (
          <Skeleton className="h-8 w-16" />
        ) : (
          <Link
            to={ATTENTION_LIST}
            className={cn(
              'w-fit text-2xl font-bold tabular-nums hover:underline',
              attention > 0 && 'text-red-800',
            )}
            data-testid="stat-payments-value"
            aria-label={`Payments needing attention: ${attention.toLocaleString()}, show them`}
          >
            {attention.toLocaleString()}
          </Link>
        )}
        <CardDescription>
          A failed job, a file waiting on a fix, or QuickBooks behind the bank
        </CardDescription>
        {!loading && waiting > 0 ? (
          <Link
            to={WAITING_LIST}
            className="flex w-fit items-center gap-1 text-sm text-sky-900 hover:underline"
            data-testid="stat-payments-waiting"
          >
            <Clock aria-hidden="true" className="size-3.5" />
            {waiting.toLocaleString()} waiting for the next banking day
          </Link>
        ) : null}
      </CardContent>
    </Card>
  );
}
