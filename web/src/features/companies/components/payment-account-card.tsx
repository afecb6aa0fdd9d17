// Payment account settings: the company's QuickBooks bank accounts,
// Bank and Active only, highest balance first, as 'name (USD balance)'; a green dot when funded, an
// orange one when the chosen account holds less than 1000.
import { RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { cn } from '../../../lib/utils';
import {
  COMPANY_MESSAGES,
  type Company,
  QbBankAccountsQuery,
  SetCompanyPaymentAccount,
} from '../api/companies';
import { accountLabel, balanceDot, pickableAccounts } from '../utils/company-rules';

const DOT = { green: 'bg-green-500', orange: 'bg-orange-500' } as const;

export function PaymentAccountCard({
  company,
  canManage,
}: {
  company: Pick<Company, 'id' | 'qbRealmId' | 'qbConnectionStatus' | 'qbPaymentAccountReference'>;
  canManage: boolean;
}) {
  const connected = Boolean(company.qbRealmId) && company.qbConnectionStatus !== 'disconnected';
  const query = useGqlQuery(
    QbBankAccountsQuery,
    { companyId: company.id },
    { pause: !connected, fallback: 'Failed to fetch QuickBooks company information' },
  );
  const accounts = { data: query.data?.qbBankAccounts, error: query.error, reload: query.reload };
  const setPaymentAccount = useGqlMutation(SetCompanyPaymentAccount, 'Failed to update payment account');
  const [saving, setSaving] = useState<string | null>(null);
  const list = pickableAccounts(accounts.data ?? []);
  const chosen = company.qbPaymentAccountReference;

  async function choose(id: string | null) {
    setSaving(id ?? 'none');
    try {
      await setPaymentAccount({ id: company.id, qbPaymentAccountReference: id });
      toast.success(COMPANY_MESSAGES.paymentAccount);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    } finally {
      setSaving(null);
    }
  }

  return (
    <Card data-testid="payment-account-card">
      <CardHeader>
        <CardTitle as="h2">Payment Account Settings</CardTitle>
        <CardDescription>The QuickBooks bank account bill payments are drawn on.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">
        {!connected ? (
          <p className="text-muted-foreground">
            Connect this company to QuickBooks to choose its payment account.
            {chosen ? ` Current reference: ${chosen}.` : ''}
          </p>
        ) : accounts.error && !accounts.data ? (
          <div role="alert" className="flex flex-col items-start gap-2">
            <p className="font-medium text-destructive">Failed to Load Accounts</p>
            <p className="text-muted-foreground">{accounts.error.message}</p>
            <Button size="sm" variant="outline" onClick={accounts.reload}>
              <RefreshCw aria-hidden="true" />
              Retry
            </Button>
          </div>
        ) : !accounts.data ? (
          <LoadingState text="Loading bank accounts..." />
        ) : list.length === 0 ? (
          <div className="grid gap-1">
            <p className="font-medium">No Bank Accounts Found</p>
            <p className="text-muted-foreground">QuickBooks has no active bank accounts for this company.</p>
          </div>
        ) : (
          <fieldset className="grid gap-2" disabled={!canManage || saving !== null}>
            <legend className="sr-only">Payment account</legend>
            {list.map((a) => {
              const selected = a.Id === chosen;
              const dot = balanceDot(a, selected);
              return (
                <label
                  key={a.Id}
                  data-testid={`bank-account-${a.Id}`}
                  className={cn(
                    'flex cursor-pointer items-center gap-3 rounded-md border px-3 py-2',
                    selected && 'border-primary bg-primary/5',
                  )}
                >
                  <input
                    type="radio"
                    name="payment-account"
                    value={a.Id}
                    checked={selected}
                    onChange={() => choose(a.Id)}
                  />
                  <span className="min-w-0 flex-1 truncate">{accountLabel(a)}</span>
                  {dot ? (
                    <span
                      className={cn('size-2.5 shrink-0 rounded-full', DOT[dot])}
                      data-dot={dot}
                      title={dot === 'orange' ? 'Low balance (below $1,000)' : 'Funded'}
                    >
                      <span className="sr-only">{dot === 'orange' ? 'Low balance' : 'Funded'}</span>
                    </span>
                  ) : null}
                </label>
              );
            })}
            {chosen && !list.some((a) => a.Id === chosen) ? (
              <p className="text-amber-800">
                The chosen account ({chosen}) is no longer an active bank account in QuickBooks.
              </p>
            ) : null}
            {chosen && canManage ? (
              <div>
                <Button size="sm" variant="ghost" onClick={() => choose(null)}>
                  Clear payment account
                </Button>
              </div>
            ) : null}
          </fieldset>
        )}
      </CardContent>
    </Card>
  );
}
