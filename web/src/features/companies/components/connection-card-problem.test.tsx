// The connection card when QuickBooks refuses the app's credentials: the grant is
// not lost, so the card says what the connection's recorded problem is (the app's client id or
// secret), not that the company must connect again.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import type { Company, TokenStatus } from '../api/companies';
import { ConnectionCard } from './connection-card';

afterEach(cleanup);

// The card's Refresh Token is a mutation: it needs a client, though these tests never press it.
const gql = createGraphQLMock();

const company = {
  id: 7,
  name: 'Sunrise Bakery LLC',
  qbRealmId: '9130357000000',
  qbConnectionStatus: 'error',
  qbLastRefresh: null,
} as Company;

function card(status: TokenStatus) {
  render(
    <GraphQLTestProvider mock={gql}>
      <ConnectionCard
        company={company}
        status={{ data: status, error: null, loading: false, reload: vi.fn() }}
        canManage
        onConnect={vi.fn()}
      />
    </GraphQLTestProvider>,
  );
}

describe('ConnectionCard with a recorded problem', () => {
  it('says the app credentials are wrong when QuickBooks answered invalid_client', () => {
    const problem =
      "QuickBooks refused this company's app credentials (invalid_client): the client id or secret is wrong or was rotated. Enter the app's current credentials.";
    card({
      hasTokens: true,
      isExpired: false,
      expiresIn: 3000,
      reconsentBy: null,
      reconsentDue: false,
      problem,
    });
    const issue = screen.getByTestId('connection-issue');
    expect(issue.textContent).toBe(problem);
    expect(issue.textContent).not.toMatch(/revoked or has expired/);
  });

  it('keeps the lost-grant text when no problem was recorded', () => {
    card({
      hasTokens: true,
      isExpired: false,
      expiresIn: 3000,
      reconsentBy: null,
      reconsentDue: false,
      problem: null,
    });
    expect(screen.getByTestId('connection-issue').textContent).toMatch(/revoked or has expired/);
  });
});
