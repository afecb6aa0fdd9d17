import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { useSubscription } from 'urql';
import { afterEach, describe, expect, it } from 'vitest';
import { createGraphQLMock, GraphQLTestProvider, gqlError, networkError } from '../testing/graphql-mock';
import { rootFieldsOf } from './document-cache';
import type { ApiError } from './errors';
import { graphql } from './graphql';
import { useGqlMutation, useGqlQuery } from './use-graphql';

const Pending = graphql(`
  query CacheTestPending {
    dashboardStats {
      pendingApprovals
    }
  }
`);
const Chart = graphql(`
  query CacheTestChart($days: Int) {
    dashboardApprovalsByStatus(days: $days) {
      date
      pending
    }
  }
`);
const Managers = graphql(`
  query CacheTestManagers {
    managers {
      total
    }
  }
`);
const ApprovalPushed = graphql(`
  subscription CacheTestApprovalChanged {
    approvalChanged {
      id
      type
    }
  }
`);
const DeleteManager = graphql(`
  mutation CacheTestDeleteManager($id: Int!) {
    deleteManager(id: $id)
  }
`);

function Screen() {
  const pending = useGqlQuery(Pending, {});
  const chart = useGqlQuery(Chart, { days: 30 });
  const managers = useGqlQuery(Managers, {}, { fallback: 'Failed to fetch managers' });
  useSubscription({ query: ApprovalPushed });
  const remove = useGqlMutation(DeleteManager, 'Failed to delete manager');
  const [failure, setFailure] = useState('');
  return (
    <div>
      <p>pending {pending.data?.dashboardStats.pendingApprovals ?? '…'}</p>
      <p>chart {chart.data?.dashboardApprovalsByStatus[0]?.pending ?? '…'}</p>
      <p>managers {managers.data?.managers.total ?? managers.error?.message ?? '…'}</p>
      <button
        type="button"
        onClick={() =>
          remove({ id: 7 }).catch((e: ApiError) => setFailure(`${e.status} ${e.message} ${e.fieldErrors.id}`))
        }
      >
        delete
      </button>
      <p>failure {failure}</p>
    </div>
  );
}

const PolicyPushed = graphql(`
  subscription CacheTestPolicyChanged {
    approvalPolicyChanged {
      companyId
    }
  }
`);

function PolicyPushes() {
  useSubscription({ query: PolicyPushed });
  return null;
}

/** Records what its subscription hands the screen. */
function Pushes({ into }: { into: unknown[] }) {
  const [sub] = useSubscription({ query: ApprovalPushed });
  if (sub.data !== undefined || sub.error) into.push(sub.data ?? sub.error);
  return null;
}

/** Two reads, one that fails once (retried after 60 ms) while the other answers meanwhile. */
function Retried() {
  const managers = useGqlQuery(Managers, {}, { retryDelayMs: 60 });
  const pending = useGqlQuery(Pending, {});
  return (
    <p>
      {managers.data?.managers.total ?? managers.error?.message ?? '…'} /{' '}
      {pending.data?.dashboardStats.pendingApprovals ?? '…'}
    </p>
  );
}

afterEach(cleanup);

describe('the document cache', () => {
  it('names the root fields a document reads', () => {
    expect(rootFieldsOf(Chart)).toEqual(['dashboardApprovalsByStatus']);
  });

  it('re-reads the stats and the chart together when an approval change is pushed', async () => {
    let pending = 1;
    const gql = createGraphQLMock()
      .on(Pending, () => ({ dashboardStats: { pendingApprovals: pending } }))
      .on(Chart, () => ({ dashboardApprovalsByStatus: [{ date: '2024-01-05', pending }] }))
      .on(Managers, { managers: { total: 3 } })
      .on(DeleteManager, { deleteManager: true });
    render(
      <GraphQLTestProvider mock={gql}>
        <Screen />
      </GraphQLTestProvider>,
    );
    await screen.findByText('pending 1');
    await screen.findByText('chart 1');
    expect(gql.subscribed(ApprovalPushed)).toBe(1);

    pending = 2;
    act(() => {
      gql.push(ApprovalPushed, { approvalChanged: { id: 'a1', type: 'ApprovalCreated' } });
    });
    await screen.findByText('pending 2');
    await screen.findByText('chart 2');
    // The managers list does not depend on approvals.
    expect(gql.calls(Managers)).toHaveLength(1);
    expect(gql.calls(Chart)).toEqual([{ days: 30 }, { days: 30 }]);
  });

  it('re-reads what a subscription covers once it is live, and keeps that word from the screen', async () => {
    // The screen read before the gateway took its subscription: a change made in between was never
    // pushed, so the SUBSCRIBED message re-reads the stats and the chart (not the managers).
    let pending = 1;
    const gql = createGraphQLMock()
      .on(Pending, () => ({ dashboardStats: { pendingApprovals: pending } }))
      .on(Chart, () => ({ dashboardApprovalsByStatus: [{ date: '2024-01-05', pending }] }))
      .on(Managers, { managers: { total: 3 } });
    const pushes: unknown[] = [];
    render(
      <GraphQLTestProvider mock={gql}>
        <Screen />
        <Pushes into={pushes} />
      </GraphQLTestProvider>,
    );
    await screen.findByText('pending 1');
    await screen.findByText('chart 1');
    pending = 2;
    // Two words of going live at once (a screen's subscriptions start together): one re-read.
    act(() => {
      expect(gql.live(ApprovalPushed)).toBe(1);
      gql.live(ApprovalPushed);
    });
    await screen.findByText('pending 2');
    await screen.findByText('chart 2');
    await new Promise((r) => setTimeout(r, 50));
    expect(gql.calls(Pending)).toHaveLength(2);
    expect(gql.calls(Chart)).toHaveLength(2);
    expect(gql.calls(Managers)).toHaveLength(1);
    expect(pushes).toEqual([]);
    // Later pushes reach the screen (urql carries the word's extensions into them).
    act(() => {
      gql.push(ApprovalPushed, { approvalChanged: { id: 'a1', type: 'ApprovalCreated' } });
    });
    await waitFor(() => expect(pushes.at(-1)).toMatchObject({ approvalChanged: { id: 'a1' } }));
  });

  it('waits for the words of all the screen’s subscriptions, then re-reads once', async () => {
    let pending = 1;
    const gql = createGraphQLMock()
      .on(Pending, () => ({ dashboardStats: { pendingApprovals: pending } }))
      .on(Chart, () => ({ dashboardApprovalsByStatus: [] }))
      .on(Managers, { managers: { total: 3 } });
    render(
      <GraphQLTestProvider mock={gql}>
        <Screen />
        <Pushes into={[]} />
        <PolicyPushes />
      </GraphQLTestProvider>,
    );
    await screen.findByText('pending 1');
    pending = 2;
    act(() => {
      gql.live(ApprovalPushed);
    });
    // The policy subscription (which covers the stats too) is not live yet: no read so far.
    await new Promise((r) => setTimeout(r, 60));
    expect(gql.calls(Pending)).toHaveLength(1);
    act(() => {
      gql.live(PolicyPushed);
    });
    await screen.findByText('pending 2');
    await new Promise((r) => setTimeout(r, 300));
    expect(gql.calls(Pending)).toHaveLength(2);
  });

  it('reads a query being re-read once more after a burst, never once per push', async () => {
    let pending = 0;
    let release: () => void = () => {};
    const gql = createGraphQLMock()
      .on(Pending, async () => {
        if (pending > 0) await new Promise<void>((r) => (release = r));
        return { dashboardStats: { pendingApprovals: pending } };
      })
      .on(Chart, { dashboardApprovalsByStatus: [] })
      .on(Managers, { managers: { total: 3 } });
    render(
      <GraphQLTestProvider mock={gql}>
        <Screen />
      </GraphQLTestProvider>,
    );
    await screen.findByText('pending 0');
    pending = 5;
    act(() => {
      gql.push(ApprovalPushed, { approvalChanged: { id: 'a0', type: 'x' } });
    });
    await waitFor(() => expect(gql.calls(Pending)).toHaveLength(2));
    // Four more while that read is on its way: one more read after it, not four.
    act(() => {
      for (let i = 1; i < 5; i++) gql.push(ApprovalPushed, { approvalChanged: { id: `a${i}`, type: 'x' } });
    });
    await act(async () => release());
    await waitFor(() => expect(gql.calls(Pending)).toHaveLength(3));
    await act(async () => release());
    await screen.findByText('pending 5');
    expect(gql.calls(Pending)).toHaveLength(3);
  });

  it('re-reads the managers after a delete (a Boolean answer), and keeps the server message of a failure', async () => {
    let total = 3;
    const gql = createGraphQLMock()
      .on(Pending, { dashboardStats: { pendingApprovals: 0 } })
      .on(Chart, { dashboardApprovalsByStatus: [] })
      .on(Managers, () => ({ managers: { total } }))
      .on(DeleteManager, () => {
        total = 2;
        return { deleteManager: true };
      });
    render(
      <GraphQLTestProvider mock={gql}>
        <Screen />
      </GraphQLTestProvider>,
    );
    await screen.findByText('managers 3');
    act(() => screen.getByRole('button', { name: 'delete' }).click());
    await screen.findByText('managers 2');
    expect(gql.calls(DeleteManager)).toEqual([{ id: 7 }]);

    gql.on(
      DeleteManager,
      gqlError('Manager is still assigned', {
        code: 'CONFLICT',
        fieldErrors: [{ field: 'id', message: 'Assigned to 2 companies' }],
      }),
    );
    act(() => screen.getByRole('button', { name: 'delete' }).click());
    await screen.findByText('failure 409 Assigned to 2 companies Assigned to 2 companies');
  });

  it('shows the REST texts for masked and network failures', async () => {
    const gql = createGraphQLMock()
      .on(Pending, { dashboardStats: { pendingApprovals: 0 } })
      .on(Chart, { dashboardApprovalsByStatus: [] })
      .on(Managers, networkError('Failed to fetch'))
      .on(DeleteManager, gqlError('Unexpected error.', { code: '' }));
    render(
      <GraphQLTestProvider mock={gql}>
        <Screen />
      </GraphQLTestProvider>,
    );
    await screen.findByText('managers Failed to fetch');
    act(() => screen.getByRole('button', { name: 'delete' }).click());
    await screen.findByText('failure 500 Internal server error undefined');
  });

  it('tries a failed read once more, even when other answers re-render the screen meanwhile', async () => {
    let failures = 1;
    const gql = createGraphQLMock()
      .on(Managers, () =>
        failures-- > 0 ? networkError('Failed to fetch', 503) : { managers: { total: 4 } },
      )
      .on(Pending, async () => {
        await new Promise((r) => setTimeout(r, 20));
        return { dashboardStats: { pendingApprovals: 1 } };
      });
    render(
      <GraphQLTestProvider mock={gql}>
        <Retried />
      </GraphQLTestProvider>,
    );
    await screen.findByText('4 / 1');
    expect(gql.calls(Managers)).toHaveLength(2);
  });
});
