// The bank's line: what the bank sent back that waits on a person, counted (notifications of change
// past Nacha's six banking days, entries of bank files that matched no payment, files the upload could
// not deliver or the bank rejected), linking to the bank
// files page where staff read them.
import { Landmark } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import { cn } from '../../../lib/utils';
import type { BankAttention } from '../api/operations';

export function BankCard({
  bank,
  loading,
}: {
  /** Null when the server could not read it; undefined while loading. */
  bank: BankAttention | null | undefined;
  loading: boolean;
}) {
  return (
    <Card role="group" aria-labelledby="bank-title" data-testid="bank-card">
      <CardHeader>
        <CardTitle as="h2" id="bank-title" className="flex items-center gap-2">
          <Landmark className="size-4 text-muted-foreground" aria-hidden="true" />
          Bank
        </CardTitle>
      </CardHeader>
      <CardContent>
        {loading && bank === undefined ? (
          <Skeleton className="h-4 w-2/3" aria-hidden="true" />
        ) : !bank ? (
          <p className="text-sm text-destructive" data-testid="bank-unavailable">
            What the bank sent back could not be read just now.
          </p>
        ) : (
          <p className="text-sm" data-testid="bank-line">
            <span className={cn(bank.overdueCorrections > 0 && 'font-medium text-destructive')}>
              Notifications of change past their deadline: {bank.overdueCorrections}
            </span>{' '}
            (of {bank.openCorrections} open) ·{' '}
            <span className={cn(bank.parkedEntries > 0 && 'font-medium text-amber-700')}>
              Parked entries: {bank.parkedEntries}
            </span>{' '}
            ·{' '}
            <span className={cn(bank.failedDeliveries > 0 && 'font-medium text-destructive')}>
              Files not delivered or rejected: {bank.failedDeliveries}
            </span>{' '}
            · Returns: {bank.returns} · last {bank.lookbackDays} days ·{' '}
            <Link className="underline" to="/bank-files">
              Bank files
            </Link>
          </p>
        )}
      </CardContent>
    </Card>
  );
}
