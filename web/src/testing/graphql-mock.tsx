// A scripted GraphQL server for component tests: a real urql client with the app's document cache
// (lib/document-cache.ts) whose last exchange answers each operation by its name from fixtures typed
// by the document, records what every query and mutation sent, and lets the test push subscription
// data. So a test asserts what the user sees and what was sent, and that a push re-reads the screen.
//
// Usage:
//   const gql = createGraphQLMock();
//   gql.on(ManagersQuery, (vars) => ({ managers: { data: [...], page: vars.page ?? 1, … } }));
//   gql.on(DeleteManager, { deleteManager: true });
//   gql.on(UpdateManager, gqlError('Email already in use', { code: 'CONFLICT' }));
//   render(<GraphQLTestProvider mock={gql}><ManagersPage /></GraphQLTestProvider>);
//   expect(gql.calls(DeleteManager)).toEqual([{ id: 3 }]);
//   act(() => gql.push(ManagersChanged, { managerChanged: { id: 3, type: 'ManagerDeleted', manager: null } }));
// A query without a fixture answers an error naming it (the screen's error state shows it).
import type { TadaDocumentNode } from 'gql.tada';
import { GraphQLError } from 'graphql';
import type { ReactNode } from 'react';
import {
  Client,
  type Exchange,
  makeErrorResult,
  makeResult,
  type Operation,
  type OperationResult,
  Provider,
} from 'urql';
import { filter, make, mergeMap, pipe, share, takeUntil } from 'wonka';
import { createDocumentCache, type DocumentCache } from '../lib/document-cache';

type AnyDoc = TadaDocumentNode<any, any>;
type ResultOf<D> = D extends TadaDocumentNode<infer R, infer _V> ? R : never;
type VariablesOf<D> = D extends TadaDocumentNode<infer _R, infer V> ? V : never;

/** A failure the fake server answers with, shaped like the gateway's (graphql/errors.ts). */
export class GqlFailure {
  constructor(
    readonly message: string,
    readonly extensions: Record<string, unknown>,
    /** A transport failure (no GraphQL answer) instead of a GraphQL error. */
    readonly network = false,
  ) {}
}

/** An application error as the gateway sends it: message, code, HTTP status, field errors. */
export function gqlError(
  message: string,
  options: { code?: string; status?: number; fieldErrors?: Array<{ field: string; message: string }> } = {},
): GqlFailure {
  const code = options.code ?? 'VALIDATION';
  return new GqlFailure(message, {
    code,
    http: { status: options.status ?? STATUS[code] ?? 500 },
    ...(options.fieldErrors ? { fieldErrors: options.fieldErrors } : {}),
  });
}

/** No GraphQL answer: the server could not be reached, or (with `status`) answered an empty error. */
export function networkError(message = 'Failed to fetch', status?: number): GqlFailure {
  return new GqlFailure(message, status ? { status } : {}, true);
}

const STATUS: Record<string, number> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
};

type Answer<D extends AnyDoc> =
  | ResultOf<D>
  | GqlFailure
  | ((variables: VariablesOf<D>) => ResultOf<D> | GqlFailure | Promise<ResultOf<D> | GqlFailure>);

export interface RecordedOperation {
  name: string;
  kind: 'query' | 'mutation' | 'subscription';
  variables: Record<string, unknown>;
}

export interface GraphQLMock {
  client: Client;
  cache: DocumentCache;
  /** Sets (or replaces) the answer to an operation. */
  on<D extends AnyDoc>(document: D, answer: Answer<D>): GraphQLMock;
  /** The variables of every call of this operation so far, oldest first. */
  calls<D extends AnyDoc>(document: D): VariablesOf<D>[];
  /** Every query, mutation and subscription started, in order. */
  operations: RecordedOperation[];
  /** Sends data to every open subscription of this operation; returns how many got it. */
  push<D extends AnyDoc>(document: D, data: ResultOf<D>): number;
  /** Tells every open subscription of this operation it is live (the gateway's SUBSCRIBED). */
  live(document: AnyDoc): number;
  /** How many subscriptions of this operation are open. */
  subscribed<D extends AnyDoc>(document: D): number;
}

export function operationName(document: Operation['query']): string {
  for (const d of ((document as { definitions?: unknown[] }).definitions ?? []) as Array<{
    kind: string;
    name?: { value: string };
  }>) {
    if (d.kind === 'OperationDefinition' && d.name) return d.name.value;
  }
  throw new Error('The document has no named operation');
}

const SUBSCRIBED = Symbol('subscribed');

export function createGraphQLMock(): GraphQLMock {
  const answers = new Map<string, Answer<AnyDoc>>();
  const operations: RecordedOperation[] = [];
  const open = new Map<string, Set<(data: unknown) => void>>();

  const resultOf = (op: Operation, value: unknown): OperationResult => {
    if (value === SUBSCRIBED) return makeResult(op, { data: null, extensions: { subscribed: true } });
    if (!(value instanceof GqlFailure)) return makeResult(op, { data: value as Record<string, unknown> });
    if (value.network) {
      const status = value.extensions.status as number | undefined;
      return makeErrorResult(op, new Error(value.message), status ? ({ status } as Response) : undefined);
    }
    return makeResult(op, {
      data: null,
      errors: [new GraphQLError(value.message, { extensions: value.extensions })],
    });
  };

  const answer = (op: Operation) =>
    make<OperationResult>(({ next, complete }) => {
      const name = operationName(op.query);
      const kind = op.kind as RecordedOperation['kind'];
      const record = () =>
        operations.push({ name, kind, variables: { ...(op.variables as Record<string, unknown>) } });
      if (kind === 'subscription') {
        record();
        const sinks = open.get(name) ?? new Set();
        open.set(name, sinks);
        // After SUBSCRIBED, urql's subscription exchange merges that word's extensions into
        // every later push: so does the mock.
        let live = false;
        const sink = (data: unknown) => {
          if (data === SUBSCRIBED) live = true;
          const result = resultOf(op, data);
          next(live ? { ...result, extensions: { ...result.extensions, subscribed: true } } : result);
        };
        sinks.add(sink);
        return () => sinks.delete(sink);
      }
      let cancelled = false;
      const given = answers.get(name);
      void (async () => {
        // urql's useQuery peeks at a query during render and drops it at once: not a call.
        await Promise.resolve();
        if (cancelled) return;
        record();
        const value =
          given === undefined
            ? new GqlFailure(`No fixture for operation ${name}`, { code: 'NOT_FOUND' })
            : typeof given === 'function'
              ? await (given as (v: unknown) => unknown)(op.variables)
              : given;
        if (cancelled) return;
        next(resultOf(op, value));
        complete();
      })();
      return () => {
        cancelled = true;
      };
    });

  const server: Exchange = () => (ops$) => {
    const shared$ = pipe(ops$, share);
    return pipe(
      shared$,
      filter((op) => op.kind !== 'teardown'),
      mergeMap((op) =>
        pipe(
          answer(op),
          takeUntil(
            pipe(
              shared$,
              filter((t) => t.kind === 'teardown' && t.key === op.key),
            ),
          ),
        ),
      ),
    );
  };

  const cache = createDocumentCache();
  const client = new Client({ url: '/graphql', exchanges: [cache.exchange, server] });

  const mock: GraphQLMock = {
    client,
    cache,
    operations,
    on(document, value) {
      answers.set(operationName(document), value as Answer<AnyDoc>);
      return mock;
    },
    calls(document) {
      const name = operationName(document);
      return operations.filter((o) => o.name === name).map((o) => o.variables) as never;
    },
    push(document, data) {
      const sinks = [...(open.get(operationName(document)) ?? [])];
      for (const sink of sinks) sink(data);
      return sinks.length;
    },
    live(document) {
      const sinks = [...(open.get(operationName(document)) ?? [])];
      for (const sink of sinks) sink(SUBSCRIBED);
      return sinks.length;
    },
    subscribed(document) {
      return open.get(operationName(document))?.size ?? 0;
    },
  };
  return mock;
}

export function GraphQLTestProvider({ mock, children }: { mock: GraphQLMock; children: ReactNode }) {
  return <Provider value={mock.client}>{children}</Provider>;
}
