import { act, cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManagersChanged } from '../../../hooks/use-manager-changed';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { type Manager, ManagersQuery, UnlinkManagerUser } from '../api/managers';
import { ManagersPage } from './managers-page';

const manager = (id: number, over: Partial<Manager> = {}): Manager => ({
  id,
  firstName: `First${id}`,
  lastName: `Last${id}`,
  email: `m${id}@billflow.test`,
  phone: null,
  title: null,
  status: 'ACTIVE',
  isActive: true,
  userId: null,
  user: null,
  createdAt: '2024-01-05T10:00:00.000Z',
  updatedAt: '2024-01-05T10:00:00.000Z',
  ...over,
});

const page = (data: Manager[], over: { page?: number; total?: number } = {}) => ({
  managers: {
    data,
    total: over.total ?? data.length,
    page: over.page ?? 1,
    limit: 10,
    totalPages: Math.max(1, Math.ceil((over.total ?? data.length) / 10)),
  },
});

let gql: GraphQLMock;
const renderPage = () =>
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/managers']}>
        <ManagersPage />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );

beforeEach(() => {
  gql = createGraphQLMock();
});
afterEach(cleanup);

describe('ManagersPage', () => {
  it('lists the managers with their linked user, 10 a page, and pages on', async () => {
    const linked = manager(2, {
      userId: 7,
      user: { id: 7, firstName: 'Uma', lastName: 'Patel', email: 'uma@billflow.test', role: 'USER' },
    });
    gql.on(ManagersQuery, (v) =>
      v.page === 2 ? page([manager(11)], { page: 2, total: 11 }) : page([manager(1), linked], { total: 11 }),
    );
    renderPage();
    const row = await screen.findByTestId('manager-row-2');
    expect(within(row).getByText('Uma Patel')).toBeTruthy();
    expect(within(screen.getByTestId('manager-row-1')).getByText('Not linked')).toBeTruthy();
    expect(screen.getByText('Showing 1 to 10 of 11 managers')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Next/ }));
    await screen.findByTestId('manager-row-11');
    expect(gql.calls(ManagersQuery)).toEqual([
      { page: 1, limit: 10 },
      { page: 2, limit: 10 },
    ]);
  });

  it('says so when there is none, and shows the error with Retry', async () => {
    gql.on(ManagersQuery, gqlError('Insufficient permissions', { code: 'FORBIDDEN' }));
    renderPage();
    expect((await screen.findByRole('alert')).textContent).toContain(
      'Error loading managers: Insufficient permissions',
    );
    gql.on(ManagersQuery, page([]));
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('No managers found');
  });

  it('unlinks from the row menu, and re-reads the list when a change is pushed', async () => {
    let linkedUser: Manager['user'] = {
      id: 7,
      firstName: 'Uma',
      lastName: 'Patel',
      email: 'uma@billflow.test',
      role: 'USER',
    };
    gql
      .on(ManagersQuery, () => page([manager(2, { userId: linkedUser?.id ?? null, user: linkedUser })]))
      .on(UnlinkManagerUser, () => {
        linkedUser = null;
        return { unlinkManagerUser: { id: 2 } };
      });
    renderPage();
    const row = await screen.findByTestId('manager-row-2');
    await userEvent.click(within(row).getByRole('button', { name: 'Actions for First2 Last2' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Unlink User' }));
    await within(row).findByText('Not linked');
    expect(gql.calls(UnlinkManagerUser)).toEqual([{ id: 2 }]);

    // Another session renames the manager: the push re-reads the page.
    gql.on(ManagersQuery, page([manager(2, { firstName: 'Renamed' })]));
    expect(gql.subscribed(ManagersChanged)).toBe(1);
    act(() => {
      gql.push(ManagersChanged, { managerChanged: { id: 2, type: 'ManagerUpdated' } });
    });
    await screen.findByText('Renamed Last2');
  });
});
