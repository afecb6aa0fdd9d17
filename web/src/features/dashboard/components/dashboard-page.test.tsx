import { act, cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApprovalsChanged } from '../../../hooks/use-approval-changed';
import { sessionStore } from '../../../lib/session-store';
import { sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
  networkError,
} from '../../../testing/graphql-mock';
import {
  type ActivityItem,
  type DashboardStats,
  DashboardStatsQuery,
  type SystemHealth,
  SystemHealthQuery,
} from '../api/dashboard';
import { DashboardActivityAdded } from '../api/use-live-dashboard';

// The approvals chart is its own lazy chunk with its own query (approvals-chart.tsx).
vi.mock('./approvals-chart', () => ({ default: () => null }));

const { DashboardPage, DASHBOARD_WELCOME } = await import('./dashboard-page');

const activity = (n: number): ActivityItem[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `a${n - i}`,
    type: 'UserSignedIn',
    description: `Person ${n - i} signed in`,
    timestamp: new Date(Date.UTC(2024, 0, 5, 10, n - i)).toISOString(),
  }));

const stats = (over: Partial<DashboardStats> = {}): DashboardStats => ({
  totalCompanies: 12,
  activeUsers: 34,
  pendingApprovals: 5,
  paymentsNeedingAttention: 0,
  paymentsWaiting: 0,
  totalApiKeys: 0,
  recentActivity: activity(7),
  ...over,
});

const health = (status = 'healthy'): SystemHealth => ({
  status,
  uptime: 3725,
  version: '2.4.1',
  database: { status: 'connected', responseTime: 1 },
  api: { status: 'operational', responseTime: 1 },
  memory: { used: 1, total: 2, percentage: 50 },
  disk: { used: 1, total: 2, percentage: 50 },
});

let gql: GraphQLMock;

function renderPage(props: { healthRefreshMs?: number } = {}) {
  return render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/dashboard']}>
        <DashboardPage {...props} />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

const statsCalls = () => gql.calls(DashboardStatsQuery).length;
const healthCalls = () => gql.calls(SystemHealthQuery).length;

const statValue = (title: string) =>
  within(screen.getByRole('group', { name: title })).getByTestId(/stat-.*-value/).textContent;

beforeEach(() => {
  sessionStore.setUser(sampleUser);
  gql = createGraphQLMock();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('DashboardPage', () => {
  it('shows the heading, welcome, figures, health, the 5 newest events and quick actions', async () => {
    gql
      .on(DashboardStatsQuery, { dashboardStats: stats() })
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeTruthy();
    expect(screen.getByText(DASHBOARD_WELCOME)).toBeTruthy();

    await screen.findByText('Person 7 signed in');
    expect(statValue('Total Companies')).toBe('12');
    expect(statValue('Active Users')).toBe('34');
    expect(statValue('Pending Approvals')).toBe('5');
    expect(screen.getByText('Active business accounts')).toBeTruthy();
    expect(screen.getByText('Registered users')).toBeTruthy();
    expect(screen.getByText('Awaiting review')).toBeTruthy();

    const items = within(screen.getByRole('group', { name: 'Recent Activity' })).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('[data-testid="activity-description"]')?.textContent)).toEqual([
      'Person 7 signed in',
      'Person 6 signed in',
      'Person 5 signed in',
      'Person 4 signed in',
      'Person 3 signed in',
    ]);
    expect(items[0].querySelector('time')?.textContent).toBe(
      new Date(Date.UTC(2024, 0, 5, 10, 7)).toLocaleString(),
    );

    const status = await screen.findByTestId('health-status');
    expect(status.textContent).toBe('HEALTHY');
    expect(status.getAttribute('data-variant')).toBe('default');
    expect(screen.getByTestId('health-uptime').textContent).toBe('1h 2m');
    expect(screen.getByTestId('health-version').textContent).toBe('2.4.1');

    const links = within(screen.getByRole('group', { name: 'Quick Actions' })).getAllByRole('link');
    expect(links.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Add New Company', '/companies/new'],
      ['Create User Account', '/users/new'],
      ['Review Approvals', '/approvals'],
    ]);
    expect(
      gql.operations
        .filter((o) => o.kind === 'query')
        .map((o) => o.name)
        .sort(),
    ).toEqual(['DashboardStats', 'SystemHealth']);
    expect(gql.subscribed(DashboardActivityAdded)).toBe(1);
  });

  it("uses the destructive badge for a status other than 'healthy', and shows an empty feed", async () => {
    gql
      .on(DashboardStatsQuery, { dashboardStats: stats({ recentActivity: [] }) })
      .on(SystemHealthQuery, { systemHealth: health('degraded') });
    renderPage();
    const status = await screen.findByTestId('health-status');
    expect(status.textContent).toBe('DEGRADED');
    expect(status.getAttribute('data-variant')).toBe('destructive');
    expect(await screen.findByText('No recent activity')).toBeTruthy();
  });

  it('retries a failed stats call once, then shows zero figures and the error with Retry', async () => {
    let fail = true;
    gql
      .on(DashboardStatsQuery, () =>
        fail ? gqlError('Stats store down', { code: 'UNAVAILABLE' }) : { dashboardStats: stats() },
      )
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    const alert = await screen.findByText('Error loading dashboard stats: Stats store down', undefined, {
      timeout: 10_000,
    });
    expect(statsCalls()).toBe(2);
    expect(statValue('Total Companies')).toBe('0');
    expect(statValue('Active Users')).toBe('0');
    expect(statValue('Pending Approvals')).toBe('0');
    expect(screen.getByText('No recent activity')).toBeTruthy();

    fail = false;
    await act(async () =>
      within(alert.closest('[role="alert"]') as HTMLElement)
        .getByRole('button')
        .click(),
    );
    await screen.findByText('Person 7 signed in');
    expect(statValue('Active Users')).toBe('34');
    expect(screen.queryByTestId('stats-error')).toBeNull();
  });

  it('falls back to the generic message when the server gives none', async () => {
    gql
      .on(DashboardStatsQuery, networkError('Bad Gateway', 502))
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    expect(
      await screen.findByText('Error loading dashboard stats: Failed to fetch dashboard stats', undefined, {
        timeout: 10_000,
      }),
    ).toBeTruthy();
  });

  it('refetches system health every 30 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: false });
    let uptime = 3600;
    gql.on(DashboardStatsQuery, { dashboardStats: stats() }).on(SystemHealthQuery, () => {
      uptime += 60;
      return { systemHealth: { ...health(), uptime } };
    });
    renderPage();
    await act(() => vi.advanceTimersByTimeAsync(10));
    expect(healthCalls()).toBe(1);
    expect(screen.getByTestId('health-uptime').textContent).toBe('1h 1m');
    await act(() => vi.advanceTimersByTimeAsync(29_900));
    expect(healthCalls()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(healthCalls()).toBe(2);
    expect(screen.getByTestId('health-uptime').textContent).toBe('1h 2m');
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    expect(healthCalls()).toBe(3);
    // The figures are not polled.
    expect(statsCalls()).toBe(1);
  });

  it('shows live activity on top at once and re-reads the figures', async () => {
    let active = 34;
    gql
      .on(DashboardStatsQuery, () => ({ dashboardStats: stats({ activeUsers: active }) }))
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    await screen.findByText('Person 7 signed in');

    active = 35;
    const pushed: ActivityItem = {
      id: 'new-1',
      type: 'UserRegistered',
      description: 'Ada Lovelace created user Bob Stone',
      timestamp: new Date().toISOString(),
    };
    act(() => {
      gql.push(DashboardActivityAdded, { activityAdded: pushed });
    });
    const items = () =>
      within(screen.getByRole('group', { name: 'Recent Activity' }))
        .getAllByTestId('activity-description')
        .map((e) => e.textContent);
    expect(items()[0]).toBe('Ada Lovelace created user Bob Stone');
    expect(items()).toHaveLength(5);
    await vi.waitFor(() => expect(statValue('Active Users')).toBe('35'));
    expect(statsCalls()).toBe(2);
    expect(items()).toEqual([
      'Ada Lovelace created user Bob Stone',
      'Person 7 signed in',
      'Person 6 signed in',
      'Person 5 signed in',
      'Person 4 signed in',
    ]);
  });

  it("shows approvals' and companies' events with the sign-ins, a pushed approval on top", async () => {
    const lines: ActivityItem[] = [
      {
        id: 'c1',
        type: 'CompanyQbConnected',
        description: 'Ada Admin connected Acme Ltd to QuickBooks',
        timestamp: new Date(Date.UTC(2024, 0, 5, 10, 3)).toISOString(),
      },
      {
        id: 'r1',
        type: 'ApprovalRejected',
        description: 'Mona Staff rejected an approval for Acme Ltd',
        timestamp: new Date(Date.UTC(2024, 0, 5, 10, 2)).toISOString(),
      },
      ...activity(1),
    ];
    gql
      .on(DashboardStatsQuery, { dashboardStats: stats({ recentActivity: lines }) })
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    await screen.findByText('Mona Staff rejected an approval for Acme Ltd');
    act(() => {
      gql.push(DashboardActivityAdded, {
        activityAdded: {
          id: 'p1',
          type: 'ApprovalCreated',
          description: 'Ada Admin created an approval for Acme Ltd (2 bills, $4,693.45)',
          timestamp: new Date().toISOString(),
        },
      });
    });
    expect(
      within(screen.getByRole('group', { name: 'Recent Activity' }))
        .getAllByTestId('activity-description')
        .map((e) => e.textContent),
    ).toEqual([
      'Ada Admin created an approval for Acme Ltd (2 bills, $4,693.45)',
      'Ada Admin connected Acme Ltd to QuickBooks',
      'Mona Staff rejected an approval for Acme Ltd',
      'Person 1 signed in',
    ]);
  });

  it('moves Pending Approvals as soon as an approval change is pushed', async () => {
    let pending = 5;
    gql
      .on(DashboardStatsQuery, () => ({ dashboardStats: stats({ pendingApprovals: pending }) }))
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    await screen.findByText('Person 7 signed in');
    expect(statValue('Pending Approvals')).toBe('5');
    pending = 6;
    act(() => {
      gql.push(ApprovalsChanged, {
        approvalChanged: { id: 'apr-1', type: 'ApprovalCreated', status: 'PENDING' },
      });
    });
    await vi.waitFor(() => expect(statValue('Pending Approvals')).toBe('6'));
    expect(statsCalls()).toBe(2);
  });

  it('counts the payments needing attention apart from those waiting for the next banking day, each linking to the list so filtered, and follows pushes', async () => {
    let attention = 3;
    gql
      .on(DashboardStatsQuery, () => ({
        dashboardStats: stats({ paymentsNeedingAttention: attention, paymentsWaiting: 2 }),
      }))
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    await screen.findByText('Person 7 signed in');
    const card = screen.getByRole('group', { name: 'Payments needing attention' });
    const value = within(card).getByRole('link', { name: 'Payments needing attention: 3, show them' });
    expect(value.textContent).toBe('3');
    expect(value.getAttribute('href')).toBe('/approvals?problem=any');
    const waiting = within(card).getByTestId('stat-payments-waiting');
    expect(waiting.textContent).toBe('2 waiting for the next banking day');
    expect(waiting.getAttribute('href')).toBe('/approvals?problem=waiting');
    attention = 2;
    act(() => {
      gql.push(ApprovalsChanged, {
        approvalChanged: { id: 'apr-1', type: 'PaymentJobRecovered', status: null },
      });
    });
    await vi.waitFor(() => expect(statValue('Payments needing attention')).toBe('2'));
  });

  it('shows no waiting line when no file waits', async () => {
    gql
      .on(DashboardStatsQuery, { dashboardStats: stats() })
      .on(SystemHealthQuery, { systemHealth: health() });
    renderPage();
    await screen.findByText('Person 7 signed in');
    expect(statValue('Payments needing attention')).toBe('0');
    expect(screen.queryByTestId('stat-payments-waiting')).toBeNull();
  });

  it('does not open the activity feed for a non-admin', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'USER' });
    gql
      .on(DashboardStatsQuery, { dashboardStats: stats() })
      .on(SystemHealthQuery, gqlError('Insufficient permissions', { code: 'FORBIDDEN' }));
    renderPage();
    await screen.findByText('Person 7 signed in');
    expect(gql.subscribed(DashboardActivityAdded)).toBe(0);
    expect(gql.subscribed(ApprovalsChanged)).toBe(1);
  });
});
