import { api } from '../../../lib/api-client';
import { DEFAULT_OVERVIEW_STATS, type OverviewStats } from '../utils/user-rules';

/** GET /api/user/overview-stats; the spec's sample numbers when the call fails (spec 1 §8, §9). */
export async function getOverviewStats(signal?: AbortSignal): Promise<OverviewStats> {
  try {
    const res = await api.get<OverviewStats>('/api/user/overview-stats', {
      signal,
      fallbackMessage: 'Failed to fetch user statistics',
    });
    if (!res.data) return DEFAULT_OVERVIEW_STATS;
    return {
      ...res.data,
      usersByRole: { ...DEFAULT_OVERVIEW_STATS.usersByRole, ...res.data.usersByRole },
    };
  } catch (err) {
    if (signal?.aborted) throw err;
    return DEFAULT_OVERVIEW_STATS;
  }
}
