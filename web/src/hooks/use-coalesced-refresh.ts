// Live screens re-read what they show on every change notice, but a burst (a bulk action, a sync,
// an import) must not cost a re-read per notice. The first notice re-reads at once, so a single
// change shows as soon as it is pushed; the notices that follow within the window are coalesced
// into one re-read when it ends (and so on while they keep coming).
import { useCallback, useEffect, useRef } from 'react';

export function useCoalescedRefresh(refresh: () => void, windowMs = 150): () => void {
  const latest = useRef(refresh);
  latest.current = refresh;
  const span = useRef<{ timer: ReturnType<typeof setTimeout> | null; pending: boolean }>({
    timer: null,
    pending: false,
  });
  useEffect(
    () => () => {
      if (span.current.timer) clearTimeout(span.current.timer);
    },
    [],
  );
  return useCallback(() => {
    const w = span.current;
    if (w.timer) {
      w.pending = true;
      return;
    }
    latest.current();
    const close = () => {
      if (!w.pending) {
        w.timer = null;
        return;
      }
      w.pending = false;
      latest.current();
      w.timer = setTimeout(close, windowMs);
    };
    w.timer = setTimeout(close, windowMs);
  }, [windowMs]);
}
