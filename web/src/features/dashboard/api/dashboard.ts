// The dashboard's reads, as GraphQL documents; the answer types come
// from them. Pushes re-read them through the cache (lib/cache-rules.ts): an approval change moves the
// Pending Approvals card and the chart together.
import { graphql, type ResultOf } from '../../../lib/graphql';

export const DashboardStatsQuery = graphql(`
  query DashboardStats {
    dashboardStats {
      totalCompanies
      activeUsers
      pendingApprovals
      paymentsNeedingAttention
      paymentsWaiting
      totalApiKeys
      recentActivity {
        id
        type
        description
        timestamp
      }
    }
  }
`);

export type DashboardStats = ResultOf<typeof DashboardStatsQuery>['dashboardStats'];
export type ActivityItem = DashboardStats['recentActivity'][number];

/** Shown when the call fails: the statistics fall back to zero. */
export const EMPTY_DASHBOARD_STATS: DashboardStats = {
  totalCompanies: 0,
  activeUsers: 0,
  pendingApprovals: 0,
  paymentsNeedingAttention: 0,
  paymentsWaiting: 0,
  totalApiKeys: 0,
  recentActivity: [],
};

export const DASHBOARD_STATS_FALLBACK_MESSAGE = 'Failed to fetch dashboard stats';

export const SystemHealthQuery = graphql(`
  query SystemHealth {
    systemHealth {
      status
      uptime
      version
      database {
        status
        responseTime
      }
      api {
        status
        responseTime
      }
      memory {
        used
        total
        percentage
      }
      disk {
        used
        total
        percentage
      }
    }
  }
`);

export type SystemHealth = ResultOf<typeof SystemHealthQuery>['systemHealth'];

export const SYSTEM_HEALTH_FALLBACK_MESSAGE = 'Failed to fetch system health';
