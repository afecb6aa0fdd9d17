// Live updates of managers: the managerChanged subscription (GraphQL over the shared socket). The
// managers list refetches and a detail page reloads when any session changes a manager.
import { useEffect, useRef } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../lib/graphql';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

export const ManagersChanged = graphql(`
  subscription ManagersChanged($id: Int) {
    managerChanged(id: $id) {
      id
      type
    }
  }
`);

export function useManagerChanged(
  id: number | null,
  onChange: (change: { id: number; type: string }) => void,
) {
  const [result, resubscribe] = useSubscription({ query: ManagersChanged, variables: { id } });
  useResubscribeOnBacklog(result.error, resubscribe);
  const latest = useRef(onChange);
  latest.current = onChange;
  const change = result.data?.managerChanged;
  useEffect(() => {
    if (change) latest.current(change);
  }, [change]);
}
