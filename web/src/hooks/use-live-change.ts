// One live subscription behind each `use…Changed` hook: it hands every pushed change to the latest
// `onChange` (callers need not memoise it) and subscribes again after the server dropped a backlog.
import { useEffect, useRef } from 'react';
import { type AnyVariables, type DocumentInput, type UseSubscriptionArgs, useSubscription } from 'urql';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

export function useLiveChange<Data, Variables extends AnyVariables, Change>(
  query: DocumentInput<Data, Variables>,
  variables: Variables,
  /** The change inside a push, e.g. `(d) => d.userChanged`. */
  pick: (data: Data) => Change | null | undefined,
  onChange: (change: Change) => void,
  pause = false,
) {
  const [result, resubscribe] = useSubscription<Data, Data, Variables>({
    query,
    variables,
    pause,
  } as UseSubscriptionArgs<Variables, Data>);
  useResubscribeOnBacklog(result.error, resubscribe);
  const latest = useRef(onChange);
  latest.current = onChange;
  const change = result.data ? pick(result.data) : undefined;
  useEffect(() => {
    if (change) latest.current(change);
  }, [change]);
}
