// Re-reads a screen's data after the live connection came back (see lib/live-resync.ts).
import { useEffect, useRef } from 'react';
import { liveResync } from '../lib/live-resync';

export function useLiveResync(onResync: () => void) {
  const latest = useRef(onResync);
  latest.current = onResync;
  useEffect(() => liveResync.subscribe(() => latest.current()), []);
}
