import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleUser } from '../../../testing/fetch-mock';
import { createGraphQLMock, GraphQLTestProvider, gqlError } from '../../../testing/graphql-mock';
import { ChangeOwnPassword, SetUserPassword } from '../api/users';
import { ChangePasswordDialog } from './change-password-dialog';

const gql = createGraphQLMock();
const wrap = (ui: ReactNode) => render(<GraphQLTestProvider mock={gql}>{ui}</GraphQLTestProvider>);
const sent = () => gql.operations.filter((o) => o.kind === 'mutation');

afterEach(cleanup);

describe('ChangePasswordDialog', () => {
  it('validates, then sends the new password and closes', async () => {
    gql.operations.length = 0;
    gql.on(SetUserPassword, { setUserPassword: true });
    const onOpenChange = vi.fn();
    wrap(<ChangePasswordDialog user={{ ...sampleUser, id: 7 }} open onOpenChange={onOpenChange} />);
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
    expect(sent()).toHaveLength(0);

    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), '123456');
    await user.click(submit);
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(sent()).toHaveLength(1);
    expect(gql.calls(SetUserPassword)).toEqual([{ id: 7, newPassword: '123456' }]);
  });

  it('keeps the dialog open when the server refuses', async () => {
    gql.operations.length = 0;
    gql.on(SetUserPassword, gqlError('User not found', { code: 'NOT_FOUND' }));
    const onOpenChange = vi.fn();
    wrap(<ChangePasswordDialog user={sampleUser} open onOpenChange={onOpenChange} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New Password'), 'abcdef');
    await user.type(screen.getByLabelText('Confirm Password'), 'abcdef');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    await waitFor(() => expect(sent()).toHaveLength(1));
    await waitFor(() =>
      expect((screen.getByRole('button', { name: 'Change Password' }) as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    expect(screen.getByLabelText('New Password')).toBeTruthy();
    expect(onOpenChange).not.toHaveBeenCalledWith(false);
  });

  it('on one’s own account: asks for the current password and uses the own-password mutation', async () => {
    gql.operations.length = 0;
    gql.on(
      ChangeOwnPassword,
      gqlError('Current password is incorrect', {
        fieldErrors: [{ field: 'currentPassword', message: 'Current password is incorrect' }],
      }),
    );
    const onOpenChange = vi.fn();
    wrap(<ChangePasswordDialog user={sampleUser} own open onOpenChange={onOpenChange} />);
    const user = userEvent.setup();
    const submit = screen.getByRole('button', { name: 'Change Password' });
    await user.type(screen.getByLabelText('New Password'), 'Tidal-2026');
    await user.type(screen.getByLabelText('Confirm Password'), 'Tidal-2026');
    await user.click(submit);
    expect(screen.getByText('Current password is required')).toBeTruthy();
    expect(sent()).toHaveLength(0);
    await user.type(screen.getByLabelText('Current Password'), 'not-it');
    await user.click(submit);
    await waitFor(() => expect(sent()).toHaveLength(1));
    expect(gql.calls(ChangeOwnPassword)).toEqual([{ currentPassword: 'not-it', newPassword: 'Tidal-2026' }]);
    // The server's field error shows under its field; the dialog stays open.
    await waitFor(() =>
      expect(screen.getAllByText('Current password is incorrect').length).toBeGreaterThan(0),
    );
    expect(onOpenChange).not.toHaveBeenCalledWith(false);
  });
});
