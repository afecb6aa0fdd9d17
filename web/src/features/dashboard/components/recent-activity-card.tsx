// Recent Activity: at most the first 5 events, each with its description and a local
// timestamp; 'No recent activity' when there is none.
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import type { ActivityItem } from '../api/dashboard';
import { RECENT_ACTIVITY_LIMIT } from '../utils/dashboard-constants';
import { formatLocalTimestamp } from '../utils/format';

export function RecentActivityCard({ items, loading }: { items: readonly ActivityItem[]; loading: boolean }) {
  const shown = items.slice(0, RECENT_ACTIVITY_LIMIT);
  return (
    <Card role="group" aria-labelledby="recent-activity-title" data-testid="recent-activity">
      <CardHeader>
        <CardTitle as="h2" id="recent-activity-title">
          Recent Activity
        </CardTitle>
      </CardHeader>
      <CardContent>
        {loading && shown.length === 0 ? (
          <div className="grid gap-3" aria-hidden="true">
            <Skeleton className="h-4 w-3/4" />
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : shown.length === 0 ? (
          <p className="text-sm text-muted-foreground">No recent activity</p>
        ) : (
          <ul className="grid gap-3" aria-labelledby="recent-activity-title">
            {shown.map((item) => (
              <li key={item.id} className="grid gap-0.5 border-b pb-3 last:border-b-0 last:pb-0">
                <span className="text-sm font-medium" data-testid="activity-description">
                  {item.description}
                </span>
                <time dateTime={item.timestamp} className="text-xs text-muted-foreground">
                  {formatLocalTimestamp(item.timestamp)}
                </time>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
