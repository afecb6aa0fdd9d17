// Live updates for the dashboard over the GraphQL subscription socket: each new activity line
// (`activityAdded`) and each change of the users read model (`userChanged`, which moves the Active
// Users figure; it may commit after the activity line does). Both re-read the figures through the
// cache (lib/cache-rules.ts); the new activity lines are also handed over as they come.
import { useEffect, useRef } from 'react';
import { useSubscription } from 'urql';
import { useResubscribeOnBacklog } from '../../../hooks/use-resubscribe-on-backlog';
import { graphql } from '../../../lib/graphql';
import type { ActivityItem } from './dashboard';

export const DashboardActivityAdded = graphql(`
  subscription DashboardActivityAdded {
    activityAdded {
      id
      type
      description
      timestamp
    }
  }
`);

export const DashboardUserChanged = graphql(`
  subscription DashboardUserChanged {
    userChanged {
      id
      type
    }
  }
`);

export interface LiveDashboardHandlers {
  /** New activity lines, newest first, since the last call. */
  onActivity: (items: ActivityItem[]) => void;
  /** Something changed that the figures depend on (they re-read through the cache already). */
  onChange?: () => void;
}

export function useLiveDashboard({ onActivity, onChange }: LiveDashboardHandlers, pause = false) {
  const handlers = useRef({ onActivity, onChange });
  handlers.current = { onActivity, onChange };

  // Each push is collected by the reducer, so two pushes in one render are both seen.
  const [activity, resubscribeActivity] = useSubscription(
    { query: DashboardActivityAdded, pause },
    (prev: { seq: number; entries: Array<{ seq: number; item: ActivityItem }> } | undefined, data) => {
      const seq = (prev?.seq ?? 0) + 1;
      const entries = prev?.entries ?? [];
      const item = data.activityAdded;
      return { seq, entries: item ? [{ seq, item }, ...entries].slice(0, 50) : entries };
    },
  );
  const [users, resubscribeUsers] = useSubscription(
    { query: DashboardUserChanged, pause },
    (prev: number | undefined) => (prev ?? 0) + 1,
  );
  useResubscribeOnBacklog(activity.error, resubscribeActivity);
  useResubscribeOnBacklog(users.error, resubscribeUsers);

  const delivered = useRef(0);
  useEffect(() => {
    const batch = activity.data;
    if (!batch || batch.seq === delivered.current) return;
    const fresh = batch.entries.filter((e) => e.seq > delivered.current).map((e) => e.item);
    delivered.current = batch.seq;
    handlers.current.onActivity(fresh);
    handlers.current.onChange?.();
  }, [activity.data]);

  useEffect(() => {
    if (users.data) handlers.current.onChange?.();
  }, [users.data]);
}
