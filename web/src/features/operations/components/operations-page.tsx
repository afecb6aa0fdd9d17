// The operations page (ADMIN): queues and their failed jobs, read models and process managers with
// their lag and parked events, what the bank sent back that waits on a person, unusual bank detail
// changes, and banners when Redis is down or a transaction holds the log back.
// Live over the operationsChanged subscription; a retry refetches at once.
import { type ReactNode, useEffect } from 'react';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useGqlQuery } from '../../../lib/use-graphql';
import { BankAttentionQuery } from '../api/operations';
import { useLiveOperations } from '../api/use-live-operations';
import { BankCard } from './bank-card';
import { BankingPatternsCard } from './banking-patterns-card';
import { ConsumersCard } from './consumers-card';
import { QueuesCard } from './queues-card';

export const OPERATIONS_DESCRIPTION =
  'Job queues, the consumers of the event log and unusual bank detail changes, live.';

function Banner({ children, testId }: { children: ReactNode; testId: string }) {
  return (
    <div
      role="alert"
      data-testid={testId}
      className="rounded-lg border border-destructive/50 bg-destructive/5 px-4 py-3 text-sm text-destructive [overflow-wrap:anywhere]"
    >
      {children}
    </div>
  );
}

export function OperationsPage() {
  useDocumentTitle('Operations');
  const { data, error, loading, reload } = useLiveOperations();
  const bank = useGqlQuery(BankAttentionQuery, {}, { fallback: 'Failed to load the bank line' });
  // The bank's line is its own read: read again whenever the overview moves (kept server-side while
  // its read models stand still, so a re-read is cheap).
  const reloadBank = bank.reload;
  const generatedAt = data?.generatedAt;
  useEffect(() => {
    if (generatedAt) reloadBank();
  }, [generatedAt, reloadBank]);
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader title="Operations" description={OPERATIONS_DESCRIPTION} />

      {error ? (
        <div
          role="alert"
          data-testid="operations-error"
          className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-destructive/50 bg-destructive/5 px-4 py-3 text-sm text-destructive"
        >
          <span>Error loading operations: {error}</span>
          <Button variant="outline" size="sm" onClick={reload}>
            Retry
          </Button>
        </div>
      ) : null}

      {data?.redis === 'DOWN' ? (
        <Banner testId="redis-down">
          Redis is unreachable: queue figures are unavailable and jobs wait until it is back.
        </Banner>
      ) : null}

      {data?.logHolder ? (
        <Banner testId="log-holder">
          A transaction holds back the event log: process {data.logHolder.pid}, open for{' '}
          {Math.round(data.logHolder.ageSeconds)} s ({data.logHolder.state || 'unknown state'}).
          {data.logHolder.query ? (
            <>
              {' '}
              Query: <code className="font-mono text-xs">{data.logHolder.query}</code>
            </>
          ) : null}
        </Banner>
      ) : null}

      <QueuesCard queues={data?.queues} loading={loading} onChanged={reload} />
      <ConsumersCard consumers={data?.consumers} loading={loading} onChanged={reload} />
      <BankCard
        bank={bank.data ? bank.data.bankAttention : bank.error ? null : undefined}
        loading={bank.loading}
      />
      <BankingPatternsCard patterns={data ? data.bankingPatterns : undefined} loading={loading} />
    </div>
  );
}
