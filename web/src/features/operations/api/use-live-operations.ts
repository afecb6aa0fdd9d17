// The overview, live: read once (OperationsQuery), then replaced by each push of the
// operationsChanged subscription, which carries the whole overview; the newer of the two shows. A
// write (retry, dismissal) or a reconnect re-reads it through the cache.
import { useSubscription } from 'urql';
import { useResubscribeOnBacklog } from '../../../hooks/use-resubscribe-on-backlog';
import { useGqlQuery } from '../../../lib/use-graphql';
import {
  OPERATIONS_FALLBACK_MESSAGE,
  OperationsChanged,
  type OperationsOverview,
  OperationsQuery,
} from './operations';

const newer = (a: OperationsOverview | undefined, b: OperationsOverview | undefined) =>
  !a ? b : !b ? a : Date.parse(b.generatedAt) >= Date.parse(a.generatedAt) ? b : a;

export interface LiveOperations {
  data: OperationsOverview | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

export function useLiveOperations(): LiveOperations {
  const read = useGqlQuery(OperationsQuery, {}, { fallback: OPERATIONS_FALLBACK_MESSAGE });
  const [live, resubscribe] = useSubscription({ query: OperationsChanged });
  useResubscribeOnBacklog(live.error, resubscribe);
  const pushed = live.data?.operationsChanged;
  const data = newer(read.data?.operations, pushed);
  return {
    data,
    error: pushed ? null : (read.error?.message ?? null),
    loading: read.loading && !data,
    reload: read.reload,
  };
}
