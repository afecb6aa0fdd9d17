// QuickBooks Payment Sync: status, message, time and one line per bill payment;
// Retry for staff when the sync failed (wholly or for some bills) and the approval is
// PAYMENT_COMPLETED. Only for the six sync statuses; a card that cannot render says so instead of
// taking the page down.
import { RefreshCw } from 'lucide-react';
import { Component, type ReactNode, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import { cn, formatCurrency } from '../../../lib/utils';
import { type PaymentView, RetryQbSync } from '../api/payments';
import { formatDateTime, titleCase } from '../utils/approval-rules';
import { mayRetryQbSync, qbSyncShown, syncItems } from '../utils/payment-rules';

const SYNC_CLASSES: Record<string, string> = {
  SUCCESS: 'bg-green-100 text-green-900',
  FAILED: 'bg-red-100 text-red-900',
  PARTIAL_SUCCESS: 'bg-orange-100 text-orange-900',
  SYNCING: 'bg-blue-100 text-blue-900',
  PENDING: 'bg-amber-100 text-amber-900',
  SKIPPED: 'bg-gray-200 text-gray-900',
};

class SyncErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    if (this.state.failed)
      return (
        <Card>
          <CardContent>
            <p role="alert" className="text-sm text-destructive">
              Error loading QuickBooks sync status
            </p>
          </CardContent>
        </Card>
      );
    return this.props.children;
  }
}

function SyncCardBody({ payment: p, staff }: { payment: PaymentView; staff: boolean }) {
  const [busy, setBusy] = useState(false);
  const retryQbSync = useGqlMutation(RetryQbSync, 'Failed to retry QB sync');
  const status = p.qbPaymentSyncStatus ?? '';
  const items = syncItems(p);

  async function retry() {
    setBusy(true);
    try {
      const answer = await retryQbSync({ id: p.id });
      toast.success('QB sync retry initiated', answer.retryQbSync.message);
    } catch (err) {
      toast.error(
        err instanceof Error && err.message ? err.message : 'An error occurred',
        'Failed to retry QB sync',
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card data-testid="qb-sync-card">
      <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-2">
        <CardTitle as="h2">QuickBooks Payment Sync</CardTitle>
        <Badge className={cn('border-transparent', SYNC_CLASSES[status])} data-testid="qb-sync-status">
          {titleCase(status)}
        </Badge>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">
        {p.qbPaymentSyncMessage ? <p data-testid="qb-sync-message">{p.qbPaymentSyncMessage}</p> : null}
        <p className="text-muted-foreground">Last sync: {formatDateTime(p.qbPaymentSyncAt)}</p>
        {items.length > 0 ? (
          <ul className="grid gap-2" data-testid="qb-sync-items">
            {items.map((i) => (
              <li
                key={i.billId}
                className={cn(
                  'grid gap-0.5 rounded-md border px-3 py-2',
                  i.success ? 'border-green-200' : 'border-destructive/50',
                )}
              >
                <p className="flex flex-wrap justify-between gap-2">
                  <span className="font-medium">
                    {i.vendorName ?? 'Unknown Vendor'} · Doc # {i.docNumber || 'N/A'}
                  </span>
                  <span>{formatCurrency(i.amount)}</span>
                </p>
                <p className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
                  Bill ID {i.billId} · {i.success ? `Payment ${i.billPaymentId ?? 'N/A'}` : 'Not paid'} ·{' '}
                  {i.duration} ms
                </p>
                {i.error ? <p className="text-xs text-destructive">{i.error}</p> : null}
              </li>
            ))}
          </ul>
        ) : null}
        {staff && mayRetryQbSync(status, p.status) ? (
          <Button variant="outline" className="w-fit" onClick={retry} disabled={busy}>
            <RefreshCw aria-hidden="true" className={busy ? 'animate-spin' : undefined} />
            Retry QB Sync
          </Button>
        ) : null}
      </CardContent>
    </Card>
  );
}

export function QbSyncCard(props: { payment: PaymentView; staff: boolean }) {
  if (!qbSyncShown(props.payment.qbPaymentSyncStatus)) return null;
  return (
    <SyncErrorBoundary>
      <SyncCardBody {...props} />
    </SyncErrorBoundary>
  );
}
