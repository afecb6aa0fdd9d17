// A small query hook for the dashboard's REST calls: loads on mount, retries a failure once
// (spec 1 §7), can poll on an interval, and can be refetched. A newer request wins over an older one.
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessageOf } from '../../../lib/errors';
import { RETRY_DELAY_MS } from '../utils/dashboard-constants';

export interface RequestState<T> {
  data: T | undefined;
  /** The message of the last failure (after the retry), or null. */
  error: string | null;
  /** True until the first answer (success or final failure). */
  loading: boolean;
  refetch: () => void;
}

export interface RequestOptions {
  /** Refetch on this interval (ms); none when absent. */
  intervalMs?: number;
  retryDelayMs?: number;
  fallbackMessage?: string;
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export function useRequest<T>(
  load: (signal: AbortSignal) => Promise<T>,
  { intervalMs, retryDelayMs = RETRY_DELAY_MS, fallbackMessage }: RequestOptions = {},
): RequestState<T> {
  const [state, setState] = useState<Omit<RequestState<T>, 'refetch'>>({
    data: undefined,
    error: null,
    loading: true,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const current = useRef<AbortController | null>(null);
  const mounted = useRef(true);

  const run = useCallback(async () => {
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    const { signal } = controller;
    try {
      let data: T;
      try {
        data = await loadRef.current(signal);
      } catch (first) {
        if (signal.aborted) throw first;
        await pause(retryDelayMs, signal);
        data = await loadRef.current(signal);
      }
      if (signal.aborted || !mounted.current) return;
      setState({ data, error: null, loading: false });
    } catch (err) {
      if (signal.aborted || !mounted.current) return;
      // The last good data stays (a failed poll does not blank the screen).
      setState((s) => ({ ...s, error: errorMessageOf(err, fallbackMessage), loading: false }));
    }
  }, [retryDelayMs, fallbackMessage]);

  useEffect(() => {
    mounted.current = true;
    void run();
    const timer = intervalMs ? setInterval(() => void run(), intervalMs) : null;
    return () => {
      mounted.current = false;
      if (timer) clearInterval(timer);
      current.current?.abort();
    };
  }, [run, intervalMs]);

  const refetch = useCallback(() => void run(), [run]);
  return { ...state, refetch };
}
