// The accounting-connection card: checking, error, not connected, no
// tokens, expired, connected. The token status is polled every 30 s; Refresh Token shows only when
// connected; a banner shows when the token has expired or the status call failed.
import { AlertTriangle, Link2, RefreshCw } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { toast } from '../../../components/ui/use-toast';
import type { GqlQuery } from '../../../lib/use-graphql';
import { useGqlMutation } from '../../../lib/use-graphql';
import { COMPANY_MESSAGES, type Company, RefreshQbToken, type TokenStatus } from '../api/companies';
import { CONNECTION_POLL_MS, connectionState, formatDateTime, formatExpiresIn } from '../utils/company-rules';

const STATE_TEXT = {
  checking: { badge: 'Checking...', style: 'bg-gray-100 text-gray-800', text: 'Checking the connection...' },
  error: {
    badge: 'Unable to Check',
    style: 'bg-red-100 text-red-800',
    text: 'The connection status could not be checked.',
  },
  'not-connected': {
    badge: 'Not Connected',
    style: 'bg-gray-100 text-gray-800',
    text: 'This company is not connected to QuickBooks.',
  },
  'no-tokens': {
    badge: 'No Tokens',
    style: 'bg-amber-100 text-amber-900',
    text: 'A QuickBooks company is linked, but there are no tokens. Connect again to authorize.',
  },
  expired: {
    badge: 'Token Expired',
    style: 'bg-amber-100 text-amber-900',
    text: 'The access token has expired.',
  },
  connected: { badge: 'Connected', style: 'bg-green-100 text-green-800', text: 'Connected to QuickBooks.' },
  reconnect: {
    badge: 'Reconnect Needed',
    style: 'bg-red-100 text-red-800',
    text: 'QuickBooks no longer accepts this connection. Connect again to authorize.',
  },
  attention: {
    badge: 'Needs Attention',
    style: 'bg-amber-100 text-amber-900',
    text: 'QuickBooks refused the latest calls for this company.',
  },
} as const;

export function ConnectionCard({
  company,
  status,
  canManage,
  onConnect,
}: {
  company: Pick<Company, 'id' | 'qbRealmId' | 'qbConnectionStatus' | 'qbLastRefresh'>;
  status: GqlQuery<TokenStatus>;
  canManage: boolean;
  onConnect: () => void;
}) {
  const refreshQbToken = useGqlMutation(RefreshQbToken, 'Failed to refresh QuickBooks token');
  const [refreshing, setRefreshing] = useState(false);
  const { reload } = status;
  useEffect(() => {
    if (!company.qbRealmId) return;
    const t = setInterval(reload, CONNECTION_POLL_MS);
    return () => clearInterval(t);
  }, [company.qbRealmId, reload]);

  const state = connectionState(company, status);
  const view = STATE_TEXT[state];
  // The grant itself may be gone even while a token is still valid (the refresh job said so).
  const grantProblem =
    company.qbRealmId &&
    (company.qbConnectionStatus === 'disconnected' || company.qbConnectionStatus === 'error');

  async function refresh() {
    setRefreshing(true);
    try {
      // The company (its last refresh) is re-read through the cache; the status here.
      await refreshQbToken({ companyId: company.id });
      toast.success(COMPANY_MESSAGES.tokenRefreshed);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    } finally {
      setRefreshing(false);
      reload();
    }
  }

  return (
    <Card data-testid="connection-card" data-state={state}>
      <CardHeader>
        <CardTitle as="h2">QuickBooks Connection</CardTitle>
        <CardDescription>{view.text}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">
        <div className="flex items-center justify-between gap-2">
          <span className="text-muted-foreground">Status</span>
          <Badge className={`border-transparent ${view.style}`} data-testid="connection-badge">
            {view.badge}
          </Badge>
        </div>
        {state === 'connected' && status.data ? (
          <div className="flex items-center justify-between gap-2">
            <span className="text-muted-foreground">Token expires in</span>
            <span data-testid="token-expires">{formatExpiresIn(status.data.expiresIn)}</span>
          </div>
        ) : null}
        {status.data?.hasTokens && status.data.reconsentBy ? (
          <div className="flex items-center justify-between gap-2">
            <span className="text-muted-foreground">Re-consent needed by</span>
            <span data-testid="reconsent-by">{formatDateTime(status.data.reconsentBy)}</span>
          </div>
        ) : null}
        {status.data?.hasTokens && status.data.reconsentDue && status.data.reconsentBy ? (
          // Until the product sends e-mail, the warning the refresh job records a week ahead shows here.
          <div
            role="alert"
            className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-900"
            data-testid="reconsent-warning"
          >
            <AlertTriangle className="size-4 shrink-0" aria-hidden="true" />
            <span>
              QuickBooks will stop accepting this connection on {formatDateTime(status.data.reconsentBy)}: its
              authorization reaches Intuit's five-year limit. Reconnect QuickBooks before then.
            </span>
          </div>
        ) : null}
        {company.qbLastRefresh ? (
          <div className="flex items-center justify-between gap-2">
            <span className="text-muted-foreground">Last refresh</span>
            <span>{formatDateTime(company.qbLastRefresh)}</span>
          </div>
        ) : null}
        {state === 'expired' || state === 'error' || grantProblem ? (
          <div
            role="alert"
            className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-900"
            data-testid="connection-issue"
          >
            <AlertTriangle className="size-4 shrink-0" aria-hidden="true" />
            <span>
              {grantProblem && status.data?.problem
                ? status.data.problem
                : grantProblem
                  ? 'QuickBooks no longer accepts this connection (the grant was revoked or has expired). Connect again to resume syncing and payments.'
                  : state === 'expired'
                    ? 'Connection issue: the access token has expired. Refresh the token or connect again.'
                    : `Connection issue: ${status.error?.message ?? 'the status could not be checked.'}`}
            </span>
          </div>
        ) : null}
        {canManage ? (
          <div className="flex flex-wrap gap-2 pt-1">
            {state === 'connected' ? (
              <Button size="sm" variant="outline" onClick={refresh} disabled={refreshing}>
                <RefreshCw aria-hidden="true" className={refreshing ? 'animate-spin' : undefined} />
                {refreshing ? 'Refreshing...' : 'Refresh Token'}
              </Button>
            ) : null}
            <Button size="sm" variant={state === 'connected' ? 'ghost' : 'default'} onClick={onConnect}>
              <Link2 aria-hidden="true" />
              {company.qbRealmId ? 'Reconnect QuickBooks' : 'Connect QuickBooks'}
            </Button>
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}
