// GET /api/dashboard/stats (spec 1 §3 Dashboard stats, §7).
import { api } from '../../../lib/api-client';

export interface ActivityItem {
  id: string;
  type?: string;
  description: string;
  timestamp: string;
}

export interface DashboardStats {
  totalCompanies: number;
  activeUsers: number;
  pendingApprovals: number;
  totalApiKeys: number;
  recentActivity: ActivityItem[];
}

/** Shown when the call fails: the statistics fall back to zero (spec 1 §8). */
export const EMPTY_DASHBOARD_STATS: DashboardStats = {
  totalCompanies: 0,
  activeUsers: 0,
  pendingApprovals: 0,
  totalApiKeys: 0,
  recentActivity: [],
};

export const DASHBOARD_STATS_FALLBACK_MESSAGE = 'Failed to fetch dashboard stats';

export async function getDashboardStats(signal?: AbortSignal): Promise<DashboardStats> {
  const body = await api.get<Partial<DashboardStats>>('/api/dashboard/stats', {
    signal,
    fallbackMessage: DASHBOARD_STATS_FALLBACK_MESSAGE,
  });
  const data = body.data ?? {};
  return {
    totalCompanies: data.totalCompanies ?? 0,
    activeUsers: data.activeUsers ?? 0,
    pendingApprovals: data.pendingApprovals ?? 0,
    totalApiKeys: data.totalApiKeys ?? 0,
    recentActivity: Array.isArray(data.recentActivity) ? data.recentActivity : [],
  };
}
