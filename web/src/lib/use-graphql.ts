// The screens' GraphQL hooks, over urql: a query as { data, error, loading, reload } (the shape the
// screens' former REST query hook gave) and a mutation as an async function that resolves with the
// answer or throws the same ApiError a REST call threw.
//
// Usage:
//   const Managers = graphql(`query Managers($page: Int) { managers(page: $page) { … } }`);
//   const list = useGqlQuery(Managers, { page }, { fallback: 'Failed to fetch managers' });
//   const remove = useGqlMutation(DeleteManager, 'Failed to delete manager');
//   await remove({ id });   // throws ApiError with the server's message
// Queries are cache-and-network by default: a screen shows what the cache holds and re-reads it
// on mount; pushes and writes re-read active queries through the cache (document-cache.ts).
import { useCallback, useEffect, useMemo, useRef } from 'react';
import {
  type AnyVariables,
  type DocumentInput,
  type RequestPolicy,
  type UseQueryArgs,
  useMutation,
  useQuery,
} from 'urql';
import type { AuthFetchInit } from './api-client';
import { GRAPHQL_FETCH_OPTIONS } from './constants';
import { ApiError, DEFAULT_ERROR_MESSAGE } from './errors';
import { toApiError } from './graphql-errors';

export interface GqlQuery<Data> {
  data: Data | undefined;
  error: ApiError | null;
  /** True while the first answer or a re-read is on its way. */
  loading: boolean;
  /** Reads again from the server. */
  reload: () => void;
}

export interface GqlQueryOptions {
  pause?: boolean;
  /** The message when the server gives none. */
  fallback?: string;
  requestPolicy?: RequestPolicy;
  /** A failure other than a refusal (4xx) is tried once more after this pause; false: never. */
  retryDelayMs?: number | false;
  /** A longer time-out than the API client's 10 s (a QuickBooks read, a bulk write). */
  timeoutMs?: number;
}

/** The context that gives one operation its own time-out, keeping the client's fetch options. */
function useTimeoutContext(timeoutMs: number | undefined) {
  return useMemo(
    () =>
      timeoutMs === undefined
        ? undefined
        : { fetchOptions: { ...GRAPHQL_FETCH_OPTIONS, timeoutMs } as AuthFetchInit },
    [timeoutMs],
  );
}

export function useGqlQuery<Data, Variables extends AnyVariables>(
  query: DocumentInput<Data, Variables>,
  variables: Variables,
  options: GqlQueryOptions = {},
): GqlQuery<Data> {
  const [result, reexecute] = useQuery<Data, Variables>({
    query,
    variables,
    pause: options.pause,
    requestPolicy: options.requestPolicy ?? 'cache-and-network',
    context: useTimeoutContext(options.timeoutMs),
  } as UseQueryArgs<Variables, Data>);
  const { fallback, retryDelayMs = 0 } = options;
  const error = useMemo(
    () => (result.error ? toApiError(result.error, fallback) : null),
    [result.error, fallback],
  );
  // One more try after a failure that may pass (no answer, 5xx); its error shows only if it fails too.
  const retriedFor = useRef<unknown>(null);
  const retryTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const retryable = error !== null && retryDelayMs !== false && worthRetry(error);
  const retrying = retryable && retriedFor.current === null;
  useEffect(() => {
    if (!result.error) {
      if (result.data !== undefined && !result.fetching) retriedFor.current = null;
      return;
    }
    if (!retryable || retriedFor.current !== null) return;
    retriedFor.current = result.error;
    // Not cleared by the next render (other answers re-render the screen meanwhile); only on unmount.
    retryTimer.current = setTimeout(() => reexecute({ requestPolicy: 'network-only' }), retryDelayMs || 0);
  }, [result.error, result.data, result.fetching, retryable, retryDelayMs, reexecute]);
  useEffect(() => () => clearTimeout(retryTimer.current), []);
  const reload = useCallback(() => {
    retriedFor.current = null;
    reexecute({ requestPolicy: 'network-only' });
  }, [reexecute]);
  const waiting = retrying || (result.error !== undefined && retriedFor.current === result.error);
  return { data: result.data, error: waiting ? null : error, loading: result.fetching || waiting, reload };
}

/** Refusals (4xx) are final; no answer or a server failure may pass on a second try. */
function worthRetry(error: ApiError) {
  return !(error.status !== null && error.status >= 400 && error.status < 500);
}

/** A mutation as `(variables) => Promise<answer>`; a failure rejects with an ApiError. */
export function useGqlMutation<Data, Variables extends AnyVariables>(
  mutation: DocumentInput<Data, Variables>,
  fallback?: string,
  /** A longer time-out than the API client's 10 s (a bulk write). */
  timeoutMs?: number,
): (variables: Variables) => Promise<Data> {
  const [, execute] = useMutation<Data, Variables>(mutation);
  const context = useTimeoutContext(timeoutMs);
  return useCallback(
    async (variables: Variables) => {
      const result = await execute(variables, context);
      if (result.error) throw toApiError(result.error, fallback);
      if (!result.data) throw new ApiError(fallback ?? DEFAULT_ERROR_MESSAGE);
      return result.data;
    },
    [execute, fallback, context],
  );
}
