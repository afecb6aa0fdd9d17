import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EMPTY_USER_FORM, UserForm } from './user-form';

// Radix measures the switch thumb; jsdom has no ResizeObserver.
vi.stubGlobal(
  'ResizeObserver',
  class {
    observe() {}
    unobserve() {}
    disconnect() {}
  },
);

afterEach(cleanup);

describe('UserForm', () => {
  it('create: shows the spec messages and submits only valid values, role USER and active by default', async () => {
    const onSubmit = vi.fn(async () => {});
    render(
      <UserForm
        mode="create"
        initial={EMPTY_USER_FORM}
        submitLabel="Create User"
        busyLabel="Creating..."
        onSubmit={onSubmit}
        onCancel={vi.fn()}
      />,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Create User' }));
    expect(screen.getByText('Please enter a valid email address')).toBeTruthy();
    expect(screen.getByText('Password must be at least 8 characters')).toBeTruthy();
    expect(screen.getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Email'), 'new@billflow.test');
    await user.type(screen.getByLabelText('Password'), '12345678');
    await user.type(screen.getByLabelText('First Name'), 'Ada');
    await user.click(screen.getByRole('button', { name: 'Create User' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({
      email: 'new@billflow.test',
      password: '12345678',
      currentPassword: '',
      firstName: 'Ada',
      lastName: '',
      role: 'USER',
      isActive: true,
    });
    expect(screen.queryByText('Please enter a valid email address')).toBeNull();
  });

  it('edit: has no password field, toggles active and shows server field errors', async () => {
    const onSubmit = vi.fn(async () => {});
    render(
      <UserForm
        mode="edit"
        initial={{ ...EMPTY_USER_FORM, email: 'x@billflow.test', role: 'GUEST' }}
        submitLabel="Save Changes"
        busyLabel="Saving..."
        serverErrors={{ email: 'Email already in use' }}
        onSubmit={onSubmit}
        onCancel={vi.fn()}
      />,
    );
    expect(screen.queryByLabelText('Password')).toBeNull();
    expect(screen.getByText('Email already in use')).toBeTruthy();
    const user = userEvent.setup();
    await user.click(screen.getByRole('switch', { name: 'Active' }));
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ role: 'GUEST', isActive: false }));
  });

  it('edit of one’s own account: a new address asks for the current password', async () => {
    const onSubmit = vi.fn(async () => {});
    render(
      <UserForm
        mode="edit"
        ownAccount
        initial={{ ...EMPTY_USER_FORM, email: 'me@billflow.test', role: 'ADMIN' }}
        submitLabel="Save Changes"
        busyLabel="Saving..."
        onSubmit={onSubmit}
        onCancel={vi.fn()}
      />,
    );
    expect(screen.queryByLabelText('Current Password')).toBeNull();
    const user = userEvent.setup();
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'new.me@billflow.test');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(screen.getByText('Enter your current password to change your email')).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText('Current Password'), 'my-secret');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ email: 'new.me@billflow.test', currentPassword: 'my-secret' }),
    );
  });
});
