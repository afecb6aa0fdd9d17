import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, sampleUser } from '../../../testing/fetch-mock';
import { ChangePasswordDialog } from './change-password-dialog';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('ChangePasswordDialog', () => {
  it('validates, then sends the new password and closes', async () => {
    const { calls } = mockFetch(() =>
      json(200, { success: true, data: null, message: 'Password changed successfully' }),
    );
    const onOpenChange = vi.fn();
    render(<ChangePasswordDialog user={{ ...sampleUser, id: 7 }} open onOpenChange={onOpenChange} />);
    const user = userEvent.setup();
    const submit = screen.getByRole('button', { name: 'Change Password' });

    await user.click(submit);
    expect(screen.getByText('Please enter a new password')).toBeTruthy();
    expect(screen.getByLabelText('New Password').getAttribute('aria-invalid')).toBe('true');

    await user.type(screen.getByLabelText('New Password'), '12345');
    await user.click(submit);
    expect(screen.getByText('Password must be at least 6 characters long')).toBeTruthy();

    await user.type(screen.getByLabelText('New Password'), '6');
    await user.type(screen.getByLabelText('Confirm Password'), '654321');
    await user.click(submit);
    expect(screen.getByText('Passwords do not match')).toBeTruthy();
    expect(calls).toHaveLength(0);

    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), '123456');
    await user.click(submit);
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('PUT');
    expect(calls[0].url).toBe('/api/user/users/7/change-password');
    expect(calls[0].body).toEqual({ newPassword: '123456' });
  });

  it('keeps the dialog open when the server refuses', async () => {
    const { calls } = mockFetch(() => json(404, { success: false, error: { message: 'User not found' } }));
    const onOpenChange = vi.fn();
    render(<ChangePasswordDialog user={sampleUser} open onOpenChange={onOpenChange} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New Password'), 'abcdef');
    await user.type(screen.getByLabelText('Confirm Password'), 'abcdef');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    await waitFor(() =>
      expect((screen.getByRole('button', { name: 'Change Password' }) as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    expect(screen.getByLabelText('New Password')).toBeTruthy();
    expect(onOpenChange).not.toHaveBeenCalledWith(false);
  });

  it('on one’s own account: asks for the current password and uses the own-password route', async () => {
    const { calls } = mockFetch(() =>
      json(400, {
        success: false,
        error: 'Current password is incorrect',
        errors: [{ field: 'currentPassword', message: 'Current password is incorrect' }],
      }),
    );
    const onOpenChange = vi.fn();
    render(<ChangePasswordDialog user={sampleUser} own open onOpenChange={onOpenChange} />);
    const user = userEvent.setup();
    const submit = screen.getByRole('button', { name: 'Change Password' });
    await user.type(screen.getByLabelText('New Password'), 'Tidal-2026');
    await user.type(screen.getByLabelText('Confirm Password'), 'Tidal-2026');
    await user.click(submit);
    expect(screen.getByText('Current password is required')).toBeTruthy();
    expect(calls).toHaveLength(0);
    await user.type(screen.getByLabelText('Current Password'), 'not-it');
    await user.click(submit);
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].url).toBe('/api/user/password');
    expect(calls[0].body).toEqual({ currentPassword: 'not-it', newPassword: 'Tidal-2026' });
    // The server's field error shows under its field; the dialog stays open.
    await waitFor(() =>
      expect(screen.getAllByText('Current password is incorrect').length).toBeGreaterThan(0),
    );
    expect(onOpenChange).not.toHaveBeenCalledWith(false);
  });
});
