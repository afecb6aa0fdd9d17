// A live stream that fell too far behind is ended by the server with LIVE_BACKLOG (the gateway keeps
// a bounded backlog per subscriber). Then the pushes in between are gone: every live screen re-reads
// what it shows (as after a reconnect) and the subscription starts again.
import { useEffect, useRef } from 'react';
import type { CombinedError } from 'urql';
import { liveResync } from '../lib/live-resync';

export const isLiveBacklog = (error: CombinedError | undefined) =>
  Boolean(error?.graphQLErrors.some((e) => e.extensions?.code === 'LIVE_BACKLOG'));

export function useResubscribeOnBacklog(error: CombinedError | undefined, resubscribe: () => void) {
  const latest = useRef(resubscribe);
  latest.current = resubscribe;
  // Once per error: a new error object is a new time the stream fell behind.
  useEffect(() => {
    if (!isLiveBacklog(error)) return;
    liveResync.emit();
    latest.current();
  }, [error]);
}
