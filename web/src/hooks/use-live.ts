// Keeps a live subscription open while a screen is shown, for its effect on the cache only: each push
// re-reads the screen's queries that it makes stale (lib/cache-rules.ts). Subscribes again after
// the server dropped a backlog.
//
// Usage: useLive(ManagersChanged, { id: null });  // the managers list and detail re-read on pushes
import { type AnyVariables, type DocumentInput, type UseSubscriptionArgs, useSubscription } from 'urql';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

export function useLive<Data, Variables extends AnyVariables>(
  query: DocumentInput<Data, Variables>,
  variables: Variables,
  pause = false,
) {
  const [result, resubscribe] = useSubscription<Data, Data, Variables>({
    query,
    variables,
    pause,
  } as UseSubscriptionArgs<Variables, Data>);
  useResubscribeOnBacklog(result.error, resubscribe);
}
