// Merges live activity (pushed over the subscription) with the last fetched list, newest first.
import type { ActivityItem } from '../api/dashboard';
import { RECENT_ACTIVITY_LIMIT } from './dashboard-constants';

const time = (item: ActivityItem) => {
  const t = Date.parse(item.timestamp);
  return Number.isNaN(t) ? 0 : t;
};

/**
 * Each id once, newest first by the event's time, at most `limit` items. A fetch can hold a line
 * whose push has not arrived yet (the users projection may commit first and trigger the re-read),
 * so putting live lines first would show an older line above a newer one; lines of the same time
 * keep their order, live before fetched.
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
  }
  // Array.prototype.sort is stable, so ties keep the order above.
  return merged.sort((a, b) => time(b) - time(a)).slice(0, limit);
}
