// A small query hook (the spec's query layer: one retry, no refetch on focus): data, error, loading,
// reload, and setData for patches from live updates.
import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './errors';

export interface Remote<T> {
  data: T | undefined;
  error: Error | null;
  loading: boolean;
  reload: () => void;
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/** 4xx answers are final; other failures are tried once more. */
function worthRetry(err: unknown) {
  return !(err instanceof ApiError && err.status !== null && err.status >= 400 && err.status < 500);
}

export function useRemote<T>(
  fetcher: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
  options: { enabled?: boolean } = {},
): Remote<T> {
  const enabled = options.enabled ?? true;
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(enabled);
  const [nonce, setNonce] = useState(0);
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  const hasData = useRef(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to refetch
  useEffect(() => {
    if (!enabled) {
      setLoading(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    (async () => {
      try {
        let value: T;
        try {
          value = await fetcherRef.current(controller.signal);
        } catch (err) {
          if (controller.signal.aborted || !worthRetry(err)) throw err;
          value = await fetcherRef.current(controller.signal);
        }
        if (controller.signal.aborted) return;
        hasData.current = true;
        setDataState(value);
        setError(null);
      } catch (err) {
        if (controller.signal.aborted) return;
        setError(err instanceof Error ? err : new Error(String(err)));
      } finally {
        if (!controller.signal.aborted) setLoading(false);
      }
    })();
    return () => controller.abort();
  }, [...deps, nonce, enabled]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const setData = useCallback(
    (update: (current: T | undefined) => T | undefined) => setDataState(update),
    [],
  );
  return { data, error, loading, reload, setData };
}
