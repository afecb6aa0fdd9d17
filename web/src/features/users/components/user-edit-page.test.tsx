// Editing a user over GraphQL: one's own new e-mail address is sent with the current password in
// updateUser's input (no REST call), and the server's refusal of a wrong one shows on the field.
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sessionStore } from '../../../lib/session-store';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { UpdateUser, type User, UserQuery } from '../api/users';
import { UserEditPage } from './user-edit-page';

// Radix measures the switch thumb; jsdom has no ResizeObserver.
vi.stubGlobal(
  'ResizeObserver',
  class {
    observe() {}
    unobserve() {}
    disconnect() {}
  },
);

const me: User = {
  id: 1,
  email: 'ada@billflow.test',
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'ADMIN',
  isActive: true,
  createdAt: '2024-01-05T10:00:00.000Z',
  updatedAt: '2024-01-05T10:00:00.000Z',
};

let gql: GraphQLMock;
const fetchSpy = vi.fn();

function renderPage() {
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/users/1/edit']}>
        <Routes>
          <Route path="/users/:id/edit" element={<UserEditPage />} />
          <Route path="/users/:id" element={<p>User detail</p>} />
        </Routes>
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

beforeEach(() => {
  sessionStore.setUser(me);
  gql = createGraphQLMock().on(UserQuery, { user: me });
  fetchSpy.mockReset();
  vi.stubGlobal('fetch', fetchSpy);
});
afterEach(cleanup);

describe('UserEditPage', () => {
  it('sends one’s own new e-mail with the current password through updateUser', async () => {
    gql.on(UpdateUser, (v) => ({ updateUser: { ...me, email: v.input.email ?? me.email } }));
    renderPage();
    const user = userEvent.setup();
    const email = await screen.findByLabelText('Email');
    await user.clear(email);
    await user.type(email, 'ada.new@billflow.test');
    await user.type(screen.getByLabelText('Current Password'), 'my-secret');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('User detail');
    expect(gql.calls(UpdateUser)).toEqual([
      {
        id: 1,
        input: expect.objectContaining({ email: 'ada.new@billflow.test', currentPassword: 'my-secret' }),
      },
    ]);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('shows the server’s refusal of a wrong current password on its field', async () => {
    gql.on(
      UpdateUser,
      gqlError('Current password is incorrect', {
        fieldErrors: [{ field: 'currentPassword', message: 'Current password is incorrect' }],
      }),
    );
    renderPage();
    const user = userEvent.setup();
    const email = await screen.findByLabelText('Email');
    await user.clear(email);
    await user.type(email, 'ada.new@billflow.test');
    await user.type(screen.getByLabelText('Current Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() =>
      expect(screen.getByLabelText('Current Password').getAttribute('aria-invalid')).toBe('true'),
    );
    expect(screen.getAllByText('Current password is incorrect').length).toBeGreaterThan(0);
    expect(screen.queryByText('User detail')).toBeNull();
  });

  it('sends no password for a change that is not one’s own address', async () => {
    gql.on(UpdateUser, (v) => ({ updateUser: { ...me, firstName: v.input.firstName ?? null } }));
    renderPage();
    const user = userEvent.setup();
    const first = await screen.findByLabelText('First Name');
    await user.clear(first);
    await user.type(first, 'Augusta');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('User detail');
    expect(gql.calls(UpdateUser)[0]?.input).not.toHaveProperty('currentPassword');
  });
});
