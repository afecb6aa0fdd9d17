// Merges live activity (pushed over the subscription) with the last fetched list, newest first.
import type { ActivityItem } from '../api/get-dashboard-stats';
import { RECENT_ACTIVITY_LIMIT } from './dashboard-constants';

/**
 * Live items that the fetched list does not hold yet go first (they are newer than anything the
 * last fetch saw), then the fetched list; each id once; at most `limit` items.
 */
export function mergeActivity(
  live: readonly ActivityItem[],
  fetched: readonly ActivityItem[],
  limit: number = RECENT_ACTIVITY_LIMIT,
): ActivityItem[] {
  const seen = new Set<string>();
  const merged: ActivityItem[] = [];
  for (const item of [...live, ...fetched]) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    merged.push(item);
    if (merged.length >= limit) break;
  }
  return merged;
}
