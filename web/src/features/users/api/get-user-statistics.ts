import { api } from '../../../lib/api-client';
import { type UserStatistics, ZERO_USER_STATISTICS } from '../utils/user-rules';

/** GET /api/user/statistics?userId=…; zero figures when the call fails (spec 1 §8). */
export async function getUserStatistics(
  userId: number | string,
  signal?: AbortSignal,
): Promise<UserStatistics> {
  try {
    const res = await api.get<UserStatistics>('/api/user/statistics', {
      query: { userId },
      signal,
      fallbackMessage: 'Failed to fetch user statistics',
    });
    return { ...ZERO_USER_STATISTICS, ...res.data };
  } catch (err) {
    if (signal?.aborted) throw err;
    return ZERO_USER_STATISTICS;
  }
}
