// The web's GraphQL cache: a document cache (answers kept whole, by query and variables) that the
// writes and the live pushes invalidate by root field (cache-rules.ts). When `approvalChanged` is
// pushed, every active query reading `approvals`, `approvalStats`, `dashboardStats`,
// `dashboardApprovalsByStatus` … is re-read at once, so a list, its stat cards, the dashboard and an
// open detail move together. Why not graphcache: docs/decisions/0002-web-graphql-client.md.
//
// A burst of pushes costs at most two reads per query: a query already being re-read is marked and
// read once more when its answer arrives (that answer may predate the last change), never more.
//
// Usage: createGraphQLClient (urql.ts) installs it; tests get it from testing/graphql-mock.tsx.
// `cache.invalidate(['managers'])` or `cache.invalidateAll()` for a re-read not caused by a write
// or a push (the socket came back after a gap: urql.ts calls invalidateAll). A subscription's
// first message, SUBSCRIBED, re-reads what it covers: the screen's read may predate it.
import type { DocumentNode, SelectionSetNode } from 'graphql';
import {
  type Client,
  type Exchange,
  formatDocument,
  makeOperation,
  type Operation,
  type OperationResult,
} from 'urql';
import { filter, fromPromise, fromValue, map, merge, mergeMap, pipe, share, tap } from 'wonka';
import { EVERYTHING, staleFieldsOf } from './cache-rules';

export interface DocumentCache {
  exchange: Exchange;
  /** Re-reads the active queries that select any of these root fields; forgets the inactive ones. */
  invalidate(rootFields: Iterable<string>): void;
  invalidateAll(): void;
}

/** The root fields an operation selects (through fragments too), e.g. ['managers']. */
export function rootFieldsOf(query: Operation['query']): string[] {
  const document = query as DocumentNode;
  if (!document.definitions) return [];
  const fragments = new Map<string, SelectionSetNode>();
  for (const d of document.definitions) {
    if (d.kind === 'FragmentDefinition') fragments.set(d.name.value, d.selectionSet);
  }
  const out: string[] = [];
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.kind === 'Field') out.push(s.name.value);
      else if (s.kind === 'InlineFragment') walk(s.selectionSet);
      else {
        const f = fragments.get(s.name.value);
        if (f) walk(f);
      }
    }
  };
  for (const d of document.definitions) if (d.kind === 'OperationDefinition') walk(d.selectionSet);
  return out;
}

/**
 * The gateway's first message on a subscription that asked (services/gateway/subscribed-ack.ts):
 * from here on its changes are pushed. The screen read its data before, possibly before that, so
 * what the subscription covers is re-read once.
 */
export function isSubscribedAck(result: OperationResult): boolean {
  // urql merges a subscription's results, extensions included: every later push carries
  // `subscribed` too, but has data.
  return (
    result.operation.kind === 'subscription' &&
    result.data == null &&
    !result.error &&
    result.extensions?.subscribed === true
  );
}

/**
 * A screen's subscriptions go live one after another: after the first word, the re-read waits for
 * the words of the others still on their way, at most this long, and is then made once for all.
 */
const LIVE_ACK_GATHER_MS = 250;

export function createDocumentCache(): DocumentCache {
  /** Answers by operation key (active or not). */
  const results = new Map<number, OperationResult>();
  /** Active queries by key, with the root fields each reads. */
  const active = new Map<number, { operation: Operation; fields: string[]; dispatch: number }>();
  let dispatches = 0;
  const inFlight = new Set<number>();
  /** In flight when invalidated: read again when the answer arrives. */
  const dirty = new Set<number>();
  let client: Client | null = null;
  /** Root fields of subscriptions that went live in the last few milliseconds, re-read together. */
  const staleSinceLive = new Set<string>();
  /** Subscriptions started whose word has not come yet. */
  const awaitingWord = new Set<number>();
  let gatherTimer: ReturnType<typeof setTimeout> | null = null;
  const rereadSinceLive = () => {
    if (gatherTimer !== null) clearTimeout(gatherTimer);
    gatherTimer = null;
    const fields = [...staleSinceLive];
    staleSinceLive.clear();
    invalidate(fields);
  };

  const reread = (key: number) => {
    const entry = active.get(key);
    results.delete(key);
    if (!entry || !client) return;
    if (inFlight.has(key)) {
      dirty.add(key);
      return;
    }
    client.reexecuteOperation(
      makeOperation('query', entry.operation, { ...entry.operation.context, requestPolicy: 'network-only' }),
    );
  };

  const invalidate = (rootFields: Iterable<string>) => {
    const stale = new Set(rootFields);
    if (stale.size === 0) return;
    const touches = (fields: string[]) => fields.some((f) => stale.has(f));
    for (const [key, result] of [...results]) {
      if (!active.has(key) && touches(rootFieldsOf(result.operation.query))) results.delete(key);
    }
    for (const [key, entry] of [...active]) if (touches(entry.fields)) reread(key);
  };

  const invalidateAll = () => {
    for (const key of [...results.keys()]) if (!active.has(key)) results.delete(key);
    for (const key of [...active.keys()]) reread(key);
  };

  const isCached = (op: Operation) =>
    op.kind === 'query' && op.context.requestPolicy !== 'network-only' && results.has(op.key);

  /** Notes an operation; a query gets a number of its own (urql may dispatch one object twice). */
  const track = (op: Operation): number => {
    const dispatch = ++dispatches;
    if (op.kind === 'query') active.set(op.key, { operation: op, fields: rootFieldsOf(op.query), dispatch });
    else if (op.kind === 'subscription') awaitingWord.add(op.key);
    else if (op.kind === 'teardown') {
      awaitingWord.delete(op.key);
      active.delete(op.key);
      inFlight.delete(op.key);
      dirty.delete(op.key);
    }
    return dispatch;
  };

  const settle = (result: OperationResult) => {
    const op = result.operation;
    if (op.kind === 'query') {
      inFlight.delete(op.key);
      if (result.data) results.set(op.key, result);
      if (dirty.delete(op.key)) reread(op.key);
      return;
    }
    if (op.kind !== 'mutation' && op.kind !== 'subscription') return;
    if (isSubscribedAck(result)) {
      // Live from now on: a change made between the screen's read and this moment was not pushed.
      const stale = staleFieldsOf('subscription', rootFieldsOf(op.query));
      if (stale !== EVERYTHING) for (const f of stale) staleSinceLive.add(f);
      awaitingWord.delete(op.key);
      // The screen's last word: re-read now (after this turn, so words arriving together are one).
      if (awaitingWord.size === 0) {
        if (gatherTimer !== null) clearTimeout(gatherTimer);
        gatherTimer = setTimeout(rereadSinceLive, 0);
      } else gatherTimer ??= setTimeout(rereadSinceLive, LIVE_ACK_GATHER_MS);
      return;
    }
    // A failed write changed nothing; a push without data carries no news.
    if (!result.data) return;
    const stale = staleFieldsOf(op.kind, rootFieldsOf(op.query));
    if (stale === EVERYTHING) invalidateAll();
    else invalidate(stale);
  };

  const exchange: Exchange = ({ forward, client: c }) => {
    client = c;
    return (ops$) => {
      // Hit or miss is decided once per operation, before the two branches see it.
      const shared$ = pipe(
        ops$,
        map((op) => {
          const dispatch = track(op);
          return { op, dispatch, hit: isCached(op) };
        }),
        share,
      );
      const hits$ = pipe(
        shared$,
        filter((x) => x.hit),
        map(({ op }) => {
          const cached = results.get(op.key) as OperationResult;
          const stale = op.context.requestPolicy === 'cache-and-network';
          if (stale)
            client?.reexecuteOperation(
              makeOperation('query', op, { ...op.context, requestPolicy: 'network-only' }),
            );
          return { ...cached, operation: op, stale };
        }),
      );
      const misses$ = pipe(
        shared$,
        filter((x) => !x.hit),
        // urql's useQuery starts a query while rendering, to peek at the cache, and drops it at once
        // (then starts it again from an effect). A query waits one microtask and goes only if it is
        // still the live one for its key, so the peek costs no request.
        mergeMap(({ op, dispatch }) =>
          op.kind === 'query'
            ? pipe(
                fromPromise(Promise.resolve(op)),
                filter((o) => active.get(o.key)?.dispatch === dispatch),
              )
            : fromValue(op),
        ),
        map((op) => {
          if (op.kind === 'query') inFlight.add(op.key);
          if (op.kind !== 'query' && op.kind !== 'mutation') return op;
          // __typename on every object, as urql's own cache does (fragments and debugging rely on it).
          const query = formatDocument(op.query as DocumentNode);
          if (query === op.query) return op;
          const formatted = makeOperation(op.kind, op);
          formatted.query = query;
          return formatted;
        }),
        forward,
        tap(settle),
        // The gateway's word that a subscription is live is for the cache, not the screen.
        filter((result) => !isSubscribedAck(result)),
      );
      return merge([hits$, misses$]);
    };
  };

  return { exchange, invalidate, invalidateAll };
}
