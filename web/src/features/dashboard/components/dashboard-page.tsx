// The dashboard (spec 1 §2): heading and welcome, System Health (refetched every 30 s), the three
// figures, Recent Activity (at most 5, newest first) and Quick Actions. Figures and activity follow
// what happens elsewhere live, over the GraphQL subscriptions, without a reload.
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { useLiveResync } from '../../../hooks/use-live-resync';
import { useSession } from '../../../lib/auth';
import {
  type ActivityItem,
  DASHBOARD_STATS_FALLBACK_MESSAGE,
  EMPTY_DASHBOARD_STATS,
  getDashboardStats,
} from '../api/get-dashboard-stats';
import { getSystemHealth, SYSTEM_HEALTH_FALLBACK_MESSAGE } from '../api/get-system-health';
import { useLiveDashboard } from '../api/use-live-dashboard';
import { useRequest } from '../api/use-request';
import { mergeActivity } from '../utils/activity';
import { HEALTH_REFRESH_MS } from '../utils/dashboard-constants';
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
  const stats = useRequest(getDashboardStats, { fallbackMessage: DASHBOARD_STATS_FALLBACK_MESSAGE });
  const health = useRequest(getSystemHealth, {
    intervalMs: healthRefreshMs,
    fallbackMessage: SYSTEM_HEALTH_FALLBACK_MESSAGE,
  });

  // Lines pushed live that the last fetched list does not hold yet.
  const [live, setLive] = useState<ActivityItem[]>([]);
  const fetchedActivity = stats.data?.recentActivity;
  useEffect(() => {
    if (!fetchedActivity) return;
    const known = new Set(fetchedActivity.map((a) => a.id));
    setLive((prev) => (prev.some((a) => known.has(a.id)) ? prev.filter((a) => !known.has(a.id)) : prev));
  }, [fetchedActivity]);

  const { refetch: refetchStats } = stats;
  const onActivity = useCallback((items: ActivityItem[]) => {
    setLive((prev) => mergeActivity(items, prev, 50));
  }, []);
  useLiveDashboard({ onActivity, onChange: refetchStats }, user?.role !== 'ADMIN');
  useLiveResync(refetchStats);

  const figures = stats.data ?? EMPTY_DASHBOARD_STATS;
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
          <span>Error loading dashboard stats: {stats.error}</span>
          <Button variant="outline" size="sm" onClick={stats.refetch}>
            Retry
          </Button>
        </div>
      ) : null}

      <SystemHealthCard
        health={health.data}
        loading={health.loading}
        error={health.error}
        onRetry={health.refetch}
      />

      <StatCards stats={figures} loading={stats.loading} />

      <Suspense fallback={null}>
        <ApprovalsChart />
      </Suspense>

      <div className="grid gap-4 lg:grid-cols-2">
        <RecentActivityCard items={activity} loading={stats.loading} />
        <QuickActionsCard />
      </div>
    </div>
  );
}
