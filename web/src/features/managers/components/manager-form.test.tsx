import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UserChoice } from '../api/managers';
import { EMPTY_MANAGER_FORM, toManagerPayload } from '../utils/manager-rules';
import { ManagerForm } from './manager-form';

vi.stubGlobal(
  'ResizeObserver',
  class {
    observe() {}
    unobserve() {}
    disconnect() {}
  },
);

afterEach(cleanup);

const users: UserChoice[] = [
  {
    id: 7,
    email: 'uma@example.com',
    firstName: 'Uma',
    lastName: 'Patel',
  },
];

describe('ManagerForm', () => {
  it('shows the spec’s messages, follows the typing in the preview, and submits valid values only', async () => {
    const onSubmit = vi.fn(async () => {});
    render(
      <ManagerForm
        heading="Create Manager"
        initial={EMPTY_MANAGER_FORM}
        users={users}
        submitLabel="Create Manager"
        busyLabel="Creating..."
        onSubmit={onSubmit}
        onCancel={vi.fn()}
      />,
    );
    const preview = within(screen.getByTestId('manager-preview'));
    expect(preview.getByText('New Manager')).toBeTruthy();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Create Manager' }));
    expect(screen.getByText('First name is required')).toBeTruthy();
    expect(screen.getByText('Last name is required')).toBeTruthy();
    expect(screen.getByText('Please enter a valid email address')).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('First Name'), 'Mia');
    await user.type(screen.getByLabelText('Last Name'), 'Ross');
    await user.type(screen.getByLabelText('Email Address *'), 'mia@example.com');
    await user.type(screen.getByLabelText('Title'), 'CFO');
    expect(preview.getByText('Mia Ross')).toBeTruthy();
    expect(preview.getByText('MR')).toBeTruthy();
    expect(preview.getByText('CFO')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Create Manager' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({
      firstName: 'Mia',
      lastName: 'Ross',
      email: 'mia@example.com',
      phone: '',
      title: 'CFO',
      userId: 'none',
    });
  });

  it('sends an empty phone or title and the user "none" as absent, a chosen user as an integer', () => {
    expect(
      toManagerPayload({
        firstName: ' Mia ',
        lastName: 'Ross',
        email: 'm@x.io ',
        phone: ' ',
        title: '',
        userId: 'none',
      }),
    ).toEqual({ firstName: 'Mia', lastName: 'Ross', email: 'm@x.io' });
    expect(
      toManagerPayload({
        firstName: 'Mia',
        lastName: 'Ross',
        email: 'm@x.io',
        phone: '555',
        title: 'CFO',
        userId: '7',
      }),
    ).toEqual({ firstName: 'Mia', lastName: 'Ross', email: 'm@x.io', phone: '555', title: 'CFO', userId: 7 });
  });
});
