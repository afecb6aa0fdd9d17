// The overview, live: loaded once over REST, then replaced by each push of the operationsChanged
// subscription (the gateway recomputes it every 2 s while someone watches and pushes changes only).
// A reload (after a retry, or after the live socket came back) fetches it again at once.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSubscription } from 'urql';
import { useLiveResync } from '../../../hooks/use-live-resync';
import { errorMessageOf } from '../../../lib/errors';
import { graphql, type ResultOf } from '../../../lib/graphql';
import { getOperations, OPERATIONS_FALLBACK_MESSAGE, type OperationsOverview } from './get-operations';

export const OperationsChanged = graphql(`
  subscription OperationsChanged {
    operationsChanged {
      generatedAt
      redis
      queues {
        name
        available
        counts {
          waiting
          active
          delayed
          failed
          completed
          paused
        }
        failedJobs {
          id
          name
          failedReason
          attemptsMade
          failedAt
        }
      }
      consumers {
        name
        kind
        checkpoint
        lagSeconds
        updatedAt
        parked {
          eventId
          eventType
          position
          streamId
          error
          attempts
          parkedAt
          retryRequested
        }
        dismissed {
          eventId
          eventType
          position
          streamId
          error
          attempts
          parkedAt
          dismissedAt
          dismissedBy {
            id
            name
          }
          reason
        }
      }
      logHolder {
        pid
        ageSeconds
        query
        state
      }
    }
  }
`);

type Pushed = ResultOf<typeof OperationsChanged>['operationsChanged'];

/** GraphQL spells the enums in capitals; the REST answer (and the screen) in lower case. */
function fromGraphQL(o: Pushed): OperationsOverview {
  return {
    ...o,
    redis: o.redis === 'UP' ? 'up' : 'down',
    consumers: o.consumers.map((c) => ({
      ...c,
      kind: c.kind === 'PROCESS_MANAGER' ? 'process-manager' : 'projection',
    })),
  };
}

const newer = (a: OperationsOverview | undefined, b: OperationsOverview) =>
  !a || Date.parse(b.generatedAt) >= Date.parse(a.generatedAt);

export interface LiveOperations {
  data: OperationsOverview | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

export function useLiveOperations(): LiveOperations {
  const [data, setData] = useState<OperationsOverview | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const current = useRef<AbortController | null>(null);

  const reload = useCallback(() => {
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    void (async () => {
      try {
        let value: OperationsOverview;
        try {
          value = await getOperations(controller.signal);
        } catch (first) {
          if (controller.signal.aborted) throw first;
          value = await getOperations(controller.signal); // one retry, as the other screens do
        }
        if (controller.signal.aborted) return;
        setData((prev) => (newer(prev, value) ? value : prev));
        setError(null);
      } catch (err) {
        if (controller.signal.aborted) return;
        setError(errorMessageOf(err, OPERATIONS_FALLBACK_MESSAGE));
      } finally {
        if (!controller.signal.aborted) setLoading(false);
      }
    })();
  }, []);

  useEffect(() => {
    reload();
    return () => current.current?.abort();
  }, [reload]);
  useLiveResync(reload);

  const [live] = useSubscription({ query: OperationsChanged });
  const pushed = live.data?.operationsChanged;
  useEffect(() => {
    if (!pushed) return;
    const value = fromGraphQL(pushed);
    setData((prev) => (newer(prev, value) ? value : prev));
    setError(null);
    setLoading(false);
  }, [pushed]);

  return { data, error, loading, reload };
}
