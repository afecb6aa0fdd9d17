import { type ReactNode, useEffect, useMemo } from 'react';
import { Provider } from 'urql';
import { liveResync } from './live-resync';
import { createGraphQLClient } from './urql';

/**
 * One GraphQL client (cache and subscription socket) per signed-in user: a different user starts
 * with an empty cache, and the socket closes when the session ends.
 */
export function GraphQLProvider({
  sessionKey,
  children,
}: {
  sessionKey: string | number;
  children: ReactNode;
}) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new client per session on purpose
  const graphql = useMemo(() => createGraphQLClient(), [sessionKey]);
  useEffect(() => () => graphql.dispose(), [graphql]);
  // After a reconnect or a dropped backlog, pushes were missed: every active query reads again.
  useEffect(() => liveResync.subscribe(() => graphql.cache.invalidateAll()), [graphql]);
  return <Provider value={graphql.client}>{children}</Provider>;
}
