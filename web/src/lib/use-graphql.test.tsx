// A call's own time-out (the REST calls' longer ones: a QuickBooks read, a bulk write) reaches the
// API client's fetch with the client's JSON-only accept header kept: a context of its own once
// replaced it, and the gateway refused the call with 406.
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { type ReactNode, useEffect } from 'react';
import { Client, type Exchange, makeResult, type Operation, Provider } from 'urql';
import { afterEach, describe, expect, it } from 'vitest';
import { filter, map, pipe } from 'wonka';
import { GRAPHQL_FETCH_OPTIONS } from './constants';
import { graphql } from './graphql';
import { useGqlMutation, useGqlQuery } from './use-graphql';

const Me = graphql(`
  query UseGraphqlTestMe {
    me {
      id
    }
  }
`);
const DeleteApproval = graphql(`
  mutation UseGraphqlTestDelete($id: String!) {
    deleteApproval(id: $id)
  }
`);

afterEach(cleanup);

function harness() {
  const seen: Operation[] = [];
  const answer: Exchange = () => (ops$) =>
    pipe(
      ops$,
      filter((op) => op.kind === 'query' || op.kind === 'mutation'),
      map((op) => {
        seen.push(op);
        return makeResult(op, {
          data: op.kind === 'query' ? { me: { id: 1 } } : { deleteApproval: true },
        });
      }),
    );
  const client = new Client({ url: '/graphql', fetchOptions: GRAPHQL_FETCH_OPTIONS, exchanges: [answer] });
  const wrap = (ui: ReactNode) => render(<Provider value={client}>{ui}</Provider>);
  return { seen, wrap };
}

/** A slow read, then a slow write. */
function Slow() {
  const slow = useGqlQuery(Me, {}, { timeoutMs: 30_000 });
  const remove = useGqlMutation(DeleteApproval, 'Failed', 60_000);
  useEffect(() => {
    if (slow.data) void remove({ id: 'a' });
  }, [slow.data, remove]);
  return <p>{slow.data ? 'loaded' : 'loading'}</p>;
}

function Plain() {
  const read = useGqlQuery(Me, {});
  return <p>{read.data ? 'plain loaded' : 'loading'}</p>;
}

const fetchOptionsOf = (op: Operation) => op.context.fetchOptions as RequestInit & { timeoutMs?: number };

describe('useGqlQuery and useGqlMutation with timeoutMs', () => {
  it('send the time-out with the client’s accept header, and nothing of their own without one', async () => {
    const { seen, wrap } = harness();
    wrap(<Slow />);
    await screen.findByText('loaded');
    await waitFor(() => expect(seen.some((op) => op.kind === 'mutation')).toBe(true));
    const query = seen.find((op) => op.kind === 'query') as Operation;
    const mutation = seen.find((op) => op.kind === 'mutation') as Operation;
    expect(fetchOptionsOf(query)).toEqual({ ...GRAPHQL_FETCH_OPTIONS, timeoutMs: 30_000 });
    expect(fetchOptionsOf(mutation)).toEqual({ ...GRAPHQL_FETCH_OPTIONS, timeoutMs: 60_000 });

    const plain = harness();
    plain.wrap(<Plain />);
    await screen.findByText('plain loaded');
    expect(fetchOptionsOf(plain.seen[0])).toBe(GRAPHQL_FETCH_OPTIONS);
  });
});
