// The company detail's Recent Activity: its approvals and its own changes, newest
// first, 20 at a time with "Show more". A new line of this company arrives by `activityAdded`, whose
// push re-reads the list through the cache (lib/cache-rules.ts).
import { useRef, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLiveChange } from '../../../hooks/use-live-change';
import { useGqlQuery } from '../../../lib/use-graphql';
import {
  COMPANY_ACTIVITY_MAX,
  COMPANY_ACTIVITY_PAGE,
  CompanyActivityAdded,
  type CompanyActivityItem,
  CompanyActivityQuery,
} from '../api/company-activity';
import { formatDateTime } from '../utils/company-rules';

export function CompanyActivityCard({ companyId }: { companyId: number }) {
  const [limit, setLimit] = useState(COMPANY_ACTIVITY_PAGE);
  const activity = useGqlQuery(
    CompanyActivityQuery,
    { companyId, limit },
    { fallback: 'Failed to fetch company activity' },
  );
  // The push itself re-reads the list (cache rules); nothing more to do with it here.
  useLiveChange(
    CompanyActivityAdded,
    { companyId },
    (d) => d.activityAdded,
    () => {},
  );
  // While "Show more" reads the longer list, the lines already shown stay.
  const shown = useRef<{ companyId: number; items: CompanyActivityItem[] }>({ companyId, items: [] });
  if (activity.data) shown.current = { companyId, items: activity.data.companyActivity };
  const items = shown.current.companyId === companyId ? shown.current.items : [];
  const more = items.length >= limit && limit < COMPANY_ACTIVITY_MAX;
  return (
    <Card role="group" aria-labelledby="company-activity-title" data-testid="company-activity">
      <CardHeader>
        <CardTitle as="h2" id="company-activity-title">
          Recent Activity
        </CardTitle>
      </CardHeader>
      <CardContent>
        {activity.error && items.length === 0 ? (
          <p className="text-sm text-destructive" role="alert">
            {activity.error.message}
          </p>
        ) : activity.loading && items.length === 0 ? (
          <p className="text-sm text-muted-foreground">Loading activity...</p>
        ) : items.length === 0 ? (
          <p className="text-sm text-muted-foreground">No recent activity</p>
        ) : (
          <div className="grid gap-3">
            <ul className="grid gap-3" aria-labelledby="company-activity-title">
              {items.map((item) => (
                <li key={item.id} className="grid gap-0.5 border-b pb-3 last:border-b-0 last:pb-0">
                  <span className="text-sm font-medium" data-testid="company-activity-description">
                    {item.description}
                  </span>
                  <time dateTime={item.timestamp} className="text-xs text-muted-foreground">
                    {formatDateTime(item.timestamp)}
                  </time>
                </li>
              ))}
            </ul>
            {more ? (
              <Button
                variant="outline"
                size="sm"
                className="justify-self-start"
                disabled={activity.loading}
                onClick={() => setLimit((n) => Math.min(n + COMPANY_ACTIVITY_PAGE, COMPANY_ACTIVITY_MAX))}
              >
                Show more
              </Button>
            ) : null}
          </div>
        )}
      </CardContent>
    </Card>
  );
}
