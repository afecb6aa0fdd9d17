import { act, cleanup, render } from '@testing-library/react';
import { Client, Provider, subscriptionExchange } from 'urql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActivityItem } from './dashboard';
import { useLiveDashboard } from './use-live-dashboard';

afterEach(cleanup);

type Sink = { next: (value: unknown) => void; complete: () => void };

/** A urql client whose subscriptions are answered by the test: one sink per open subscription. */
function fakeClient() {
  const sinks = new Map<string, Sink>();
  const client = new Client({
    url: '/graphql',
    exchanges: [
      subscriptionExchange({
        forwardSubscription(request) {
          const name = /subscription (\w+)/.exec(request.query ?? '')?.[1] ?? '?';
          return {
            subscribe(sink) {
              sinks.set(name, sink as Sink);
              return { unsubscribe: () => sinks.delete(name) };
            },
          };
        },
      }),
    ],
  });
  return { client, sinks };
}

const item = (id: string, description: string): ActivityItem => ({
  id,
  type: 'UserRegistered',
  description,
  timestamp: '2024-01-05T10:00:00.000Z',
});

function Live(props: { onActivity: (items: ActivityItem[]) => void; onChange: () => void; pause?: boolean }) {
  useLiveDashboard(props, props.pause);
  return null;
}

describe('useLiveDashboard', () => {
  it('hands over each pushed activity line (newest first) and asks for fresh figures', async () => {
    const { client, sinks } = fakeClient();
    const onActivity = vi.fn();
    const onChange = vi.fn();
    render(
      <Provider value={client}>
        <Live onActivity={onActivity} onChange={onChange} />
      </Provider>,
    );
    await vi.waitFor(() =>
      expect([...sinks.keys()].sort()).toEqual(['DashboardActivityAdded', 'DashboardUserChanged']),
    );

    await act(async () =>
      sinks.get('DashboardActivityAdded')?.next({ data: { activityAdded: item('1', 'A') } }),
    );
    expect(onActivity).toHaveBeenLastCalledWith([expect.objectContaining({ id: '1', description: 'A' })]);
    expect(onChange).toHaveBeenCalledTimes(1);

    // Two pushes before React renders: both arrive, newest first.
    await act(async () => {
      sinks.get('DashboardActivityAdded')?.next({ data: { activityAdded: item('2', 'B') } });
      sinks.get('DashboardActivityAdded')?.next({ data: { activityAdded: item('3', 'C') } });
    });
    const delivered = onActivity.mock.calls
      .slice(1)
      .flatMap(([items]) => items.map((i: ActivityItem) => i.id));
    expect(delivered.sort()).toEqual(['2', '3']);
    expect(onActivity.mock.calls.at(-1)?.[0][0].id).toBe('3');

    // A change of the users read model alone also refreshes the figures.
    const changes = onChange.mock.calls.length;
    await act(async () =>
      sinks.get('DashboardUserChanged')?.next({ data: { userChanged: { id: 5, type: 'deactivated' } } }),
    );
    expect(onChange).toHaveBeenCalledTimes(changes + 1);
  });

  it('opens no subscription while paused', async () => {
    const { client, sinks } = fakeClient();
    render(
      <Provider value={client}>
        <Live onActivity={vi.fn()} onChange={vi.fn()} pause />
      </Provider>,
    );
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(sinks.size).toBe(0);
  });
});
