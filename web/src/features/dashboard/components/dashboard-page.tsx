// The dashboard: heading and welcome, System Health (refetched every 30 s), the three
// figures, Recent Activity (at most 5, newest first) and Quick Actions. Figures and activity follow
// what happens elsewhere live, over the GraphQL subscriptions, without a reload: every push re-reads
// the figures through the cache, so Pending Approvals moves with the chart. Payments needing
// attention (and those waiting for the next banking day) open the approvals list filtered that way.
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { ApprovalsChanged } from '../../../hooks/use-approval-changed';
import { CompaniesChanged } from '../../../hooks/use-company-changed';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useLive } from '../../../hooks/use-live';
import { useSession } from '../../../lib/auth';
import { useGqlQuery } from '../../../lib/use-graphql';
import {
  type ActivityItem,
  DASHBOARD_STATS_FALLBACK_MESSAGE,
  DashboardStatsQuery,
  EMPTY_DASHBOARD_STATS,
  SYSTEM_HEALTH_FALLBACK_MESSAGE,
  SystemHealthQuery,
} from '../api/dashboard';
import { useLiveDashboard } from '../api/use-live-dashboard';
import { mergeActivity } from '../utils/activity';
import { HEALTH_REFRESH_MS, RETRY_DELAY_MS } from '../utils/dashboard-constants';
import { PaymentsAttentionCard } from './payments-attention-card';
import { QuickActionsCard } from './quick-actions-card';
import { RecentActivityCard } from './recent-activity-card';
import { StatCards } from './stat-cards';
import { SystemHealthCard } from './system-health-card';

// The chart is its own chunk, fetched after the dashboard paints.
const ApprovalsChart = lazy(() => import('./approvals-chart'));

export const DASHBOARD_WELCOME = 'Welcome back. Here is an overview of your system.';

export function DashboardPage({
  healthRefreshMs = HEALTH_REFRESH_MS,
}: {
  /** Only tests pass another value; the product refreshes health every 30 s. */
  healthRefreshMs?: number;
}) {
  const { user } = useSession();
  useDocumentTitle('Dashboard');
  const stats = useGqlQuery(
    DashboardStatsQuery,
    {},
    { fallback: DASHBOARD_STATS_FALLBACK_MESSAGE, retryDelayMs: RETRY_DELAY_MS },
  );
  const health = useGqlQuery(
    SystemHealthQuery,
    {},
    { fallback: SYSTEM_HEALTH_FALLBACK_MESSAGE, retryDelayMs: RETRY_DELAY_MS },
  );
  const { reload: reloadHealth } = health;
  useEffect(() => {
    const timer = setInterval(reloadHealth, healthRefreshMs);
    return () => clearInterval(timer);
  }, [reloadHealth, healthRefreshMs]);

  // Lines pushed live that the last fetched list does not hold yet.
  const [live, setLive] = useState<ActivityItem[]>([]);
  const fetchedActivity = stats.data?.dashboardStats.recentActivity;
  useEffect(() => {
    if (!fetchedActivity) return;
    const known = new Set(fetchedActivity.map((a) => a.id));
    setLive((prev) => (prev.some((a) => known.has(a.id)) ? prev.filter((a) => !known.has(a.id)) : prev));
  }, [fetchedActivity]);

  const onActivity = useCallback((items: ActivityItem[]) => {
    setLive((prev) => mergeActivity(items, prev, 50));
  }, []);
  // The activity feed and the users (ADMIN); approvals and companies move the other figures.
  useLiveDashboard({ onActivity }, user?.role !== 'ADMIN');
  useLive(ApprovalsChanged, { id: null });
  useLive(CompaniesChanged, { id: null });

  const figures = stats.data?.dashboardStats ?? EMPTY_DASHBOARD_STATS;
  const activity = useMemo(() => mergeActivity(live, figures.recentActivity), [live, figures.recentActivity]);

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader title="Dashboard" description={DASHBOARD_WELCOME} />

      {stats.error ? (
        <div
          role="alert"
          data-testid="stats-error"
          className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-destructive/50 bg-destructive/5 px-4 py-3 text-sm text-destructive"
        >
          <span>Error loading dashboard stats: {stats.error.message}</span>
          <Button variant="outline" size="sm" onClick={stats.reload}>
            Retry
          </Button>
        </div>
      ) : null}

      <SystemHealthCard
        health={health.data?.systemHealth}
        loading={health.loading}
        error={health.error?.message ?? null}
        onRetry={health.reload}
      />

      <StatCards stats={figures} loading={stats.loading && !stats.data} />
      <PaymentsAttentionCard stats={figures} loading={stats.loading && !stats.data} />

      <Suspense fallback={null}>
        <ApprovalsChart />
      </Suspense>

      <div className="grid gap-4 lg:grid-cols-2">
        <RecentActivityCard items={activity} loading={stats.loading && !stats.data} />
        <QuickActionsCard />
      </div>
    </div>
  );
}
