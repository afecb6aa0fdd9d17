import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionStore } from '../../../lib/session-store';
import { sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { DeactivateUser, type User, UserOverviewStatsQuery, UsersQuery } from '../api/users';
import { UsersPage } from './users-page';

const user = (id: number, over: Partial<User> = {}): User => ({
  id,
  email: `u${id}@billflow.test`,
  firstName: `First${id}`,
  lastName: 'Person',
  role: 'USER',
  isActive: true,
  createdAt: '2024-01-05T10:00:00.000Z',
  updatedAt: '2024-01-05T10:00:00.000Z',
  ...over,
});

const stats = {
  userOverviewStats: {
    totalUsers: 3,
    activeUsers: 2,
    newUsersThisMonth: 1,
    usersByRole: { ADMIN: 1, MODERATOR: 0, USER: 2, GUEST: 0 },
  },
};

let gql: GraphQLMock;
const renderPage = () =>
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/users']}>
        <UsersPage />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );

beforeEach(() => {
  sessionStore.setUser(sampleUser);
  gql = createGraphQLMock();
});
afterEach(cleanup);

describe('UsersPage', () => {
  it('shows the overview and the rows; Deactivate sends the mutation and the list re-reads', async () => {
    let active = true;
    gql
      .on(UserOverviewStatsQuery, stats)
      .on(UsersQuery, () => ({
        users: { data: [user(5, { isActive: active })], total: 1, page: 1, limit: 10, totalPages: 1 },
      }))
      .on(DeactivateUser, (v) => {
        active = false;
        return { deactivateUser: user(v.id, { isActive: false }) };
      });
    renderPage();
    const row = await screen.findByTestId('user-row-5');
    expect(within(row).getByText('First5 Person')).toBeTruthy();
    expect(screen.getByTestId('stat-total-users').textContent).toBe('3');
    await userEvent.click(within(row).getByRole('button', { name: 'Actions for u5@billflow.test' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Deactivate' }));
    await waitFor(() => expect(within(row).getByTestId('status-badge').textContent).toBe('Inactive'));
    expect(gql.calls(DeactivateUser)).toEqual([{ id: 5 }]);
    expect(gql.calls(UsersQuery)).toHaveLength(2);
  });

  it('falls back to the sample figures when the overview cannot be read', async () => {
    gql
      .on(UserOverviewStatsQuery, gqlError('Service temporarily unavailable', { code: 'UNAVAILABLE' }))
      .on(UsersQuery, { users: { data: [], total: 0, page: 1, limit: 10, totalPages: 1 } });
    renderPage();
    await screen.findByText('No users found');
    await waitFor(() => expect(screen.getByTestId('stat-total-users').textContent).toBe('1247'));
    expect(gql.calls(UserOverviewStatsQuery)).toHaveLength(2);
  });
});
