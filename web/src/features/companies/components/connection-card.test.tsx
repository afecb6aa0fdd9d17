// The connection card's QuickBooks edges: when re-consent will be needed
// and the warning the refresh job records a week before, and a lost grant never shown as connected.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import type { Company, TokenStatus } from '../api/companies';
import { ConnectionCard } from './connection-card';

afterEach(cleanup);

// The card's Refresh Token is a mutation: it needs a client, though these tests never press it.
const gql = createGraphQLMock();

const company = (over: Partial<Company> = {}) =>
  ({
    id: 7,
    name: 'Sunrise Bakery LLC',
    qbRealmId: '9130357000000',
    qbConnectionStatus: 'connected',
    qbLastRefresh: null,
    ...over,
  }) as Company;

const remote = (data: TokenStatus) => ({
  data,
  error: null,
  loading: false,
  reload: vi.fn(),
});

const live: TokenStatus = {
  hasTokens: true,
  isExpired: false,
  expiresIn: 3000,
  reconsentBy: null,
  reconsentDue: false,
  problem: null,
};

function card(c: Company, status: TokenStatus) {
  render(
    <GraphQLTestProvider mock={gql}>
      <ConnectionCard company={c} status={remote(status)} canManage onConnect={vi.fn()} />
    </GraphQLTestProvider>,
  );
}

describe('ConnectionCard', () => {
  it('shows when re-consent will be needed, and no warning while it is far', () => {
    card(company(), { ...live, reconsentBy: '2031-11-27T10:00:00.000Z', reconsentDue: false });
    expect(screen.getByText('Re-consent needed by')).toBeTruthy();
    expect(screen.getByTestId('reconsent-by').textContent).toMatch(/2031/);
    expect(screen.queryByTestId('reconsent-warning')).toBeNull();
  });

  it('warns once the refresh job found re-consent less than a week away', () => {
    card(company(), { ...live, reconsentBy: '2026-12-02T10:00:00.000Z', reconsentDue: true });
    expect(screen.getByTestId('reconsent-warning').textContent).toMatch(/Reconnect QuickBooks before then/);
  });

  it('never shows a lost grant as connected, whatever the stored token says', () => {
    card(company({ qbConnectionStatus: 'disconnected' }), live);
    expect(screen.getByTestId('connection-badge').textContent).toBe('Reconnect Needed');
    expect(screen.getByTestId('connection-card').getAttribute('data-state')).toBe('reconnect');
    expect(screen.queryByText('Refresh Token')).toBeNull();
    expect(screen.getByRole('button', { name: /Reconnect QuickBooks/ })).toBeTruthy();
  });
});
