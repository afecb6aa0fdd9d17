// The GraphQL client: urql over HTTP POST through the API client's fetch (bearer, refresh, time-out)
// and graphql-ws for subscriptions on the same path, reconnecting with the fresh token. Its cache is
// the document cache that writes and pushes invalidate (document-cache.ts, cache-rules.ts).
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { Client, fetchExchange, subscriptionExchange } from 'urql';
import { authFetch, refreshAccessToken } from './api-client';
import { GRAPHQL_FETCH_OPTIONS } from './constants';
import { createDocumentCache, type DocumentCache } from './document-cache';
import { liveResync } from './live-resync';
import { tokenStorage } from './token-storage';
import { createWsAuth, isAuthClose } from './ws-auth';

function wsUrl(): string {
  const url = new URL('/graphql', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

export interface GraphQLClient {
  client: Client;
  cache: DocumentCache;
  dispose(): void;
}

export function createGraphQLClient(): GraphQLClient {
  const cache = createDocumentCache();
  const wsAuth = createWsAuth({ getToken: tokenStorage.getAccessToken, refresh: refreshAccessToken });
  // The socket client is made on the first subscription and dropped by dispose(), so a provider
  // that React mounts twice (StrictMode) still ends with a live one.
  let socket: WsClient | null = null;
  const makeSocket = () =>
    createWsClient({
      url: wsUrl(),
      lazy: true,
      connectionParams: wsAuth.connectionParams,
      on: {
        closed: wsAuth.onClosed,
        // Back after a drop: whatever changed meanwhile was not pushed, so screens re-read (the
        // provider makes every active query stale on this signal).
        connected: (_socket, _payload, wasRetry) => {
          if (wasRetry) liveResync.emit();
        },
      },
      retryAttempts: 8,
      // 0.5 s, 1 s, 2 s … up to 15 s, with jitter so many tabs do not reconnect in step.
      retryWait: (retries) =>
        new Promise((resolve) =>
          setTimeout(resolve, Math.min(500 * 2 ** retries, 15_000) * (0.75 + Math.random() / 2)),
        ),
      // Network drops and auth refusals (4403) are retried; graphql-ws treats 4401 as fatal, handled below.
      shouldRetry: () => true,
    });
  const ws = () => {
    socket ??= makeSocket();
    return socket;
  };

  const client = new Client({
    url: '/graphql',
    fetch: (input, init) => authFetch(input instanceof Request ? input.url : input, init),
    preferGetMethod: false,
    // Not urql's default, which also offers text/event-stream: the gateway refuses GraphQL over
    // server-sent events (406); answers come as JSON, live data over the socket.
    fetchOptions: GRAPHQL_FETCH_OPTIONS,
    exchanges: [
      cache.exchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          // subscribedAck: the gateway says when the subscription is live, and the cache re-reads
          // what the screen read before then (document-cache.ts).
          const payload = {
            ...request,
            query: request.query ?? '',
            extensions: { ...request.extensions, subscribedAck: true },
          };
          return {
            subscribe(sink) {
              let unsubscribe = ws().subscribe(payload, {
                next: (value) => sink.next(value as never),
                complete: () => sink.complete(),
                error: (err) => {
                  // A fatal 4401: resubscribe once; connectionParams refreshes the token first.
                  if (isAuthClose(err)) {
                    unsubscribe = ws().subscribe(payload, sink as never);
                    return;
                  }
                  sink.error(err);
                },
              });
              return { unsubscribe: () => unsubscribe() };
            },
          };
        },
      }),
    ],
  });

  return {
    client,
    cache,
    dispose() {
      void socket?.dispose();
      socket = null;
    },
  };
}
