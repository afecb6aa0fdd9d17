import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/errors';
import { sampleUser } from '../../../testing/fetch-mock';
import { FAILED_ATTEMPTS_HINT, LoginForm } from './login-form';

afterEach(cleanup);

const invalid = () =>
  new ApiError('Invalid email or password', {
    status: 401,
    body: { success: false, error: 'Invalid email or password' },
  });

async function fill(email: string, password: string) {
  const user = userEvent.setup();
  await user.clear(screen.getByLabelText('Email'));
  if (email) await user.type(screen.getByLabelText('Email'), email);
  await user.clear(screen.getByLabelText('Password'));
  if (password) await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('LoginForm', () => {
  it('validates on the client before calling the server', async () => {
    const signIn = vi.fn();
    render(<LoginForm signIn={signIn} />);
    await fill('nope', '123');
    expect(screen.getByText('Please enter a valid email address')).toBeTruthy();
    expect(screen.getByText('Password must be at least 6 characters')).toBeTruthy();
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(screen.getByLabelText('Email'));
    expect(signIn).not.toHaveBeenCalled();
  });

  it('re-validates as the user corrects the fields', async () => {
    render(<LoginForm signIn={vi.fn()} />);
    const user = await fill('', '');
    await user.type(screen.getByLabelText('Email'), 'ada@billflow.test');
    expect(screen.queryByText('Please enter a valid email address')).toBeNull();
    expect(screen.getByText('Password must be at least 6 characters')).toBeTruthy();
  });

  it('shows "Signing in..." while busy and reports success', async () => {
    let resolve!: (u: typeof sampleUser) => void;
    const signIn = vi.fn(() => new Promise<typeof sampleUser>((r) => (resolve = r)));
    const onSuccess = vi.fn();
    render(<LoginForm signIn={signIn} onSuccess={onSuccess} />);
    await fill(' ada@billflow.test ', 'secret1');
    const button = screen.getByRole('button', { name: 'Signing in...' });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(signIn).toHaveBeenCalledWith('ada@billflow.test', 'secret1');
    await act(async () => resolve(sampleUser));
    expect(onSuccess).toHaveBeenCalledWith(sampleUser);
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeTruthy();
  });

  it('shows the error, focuses the e-mail after invalid credentials, and hints after 3 failures', async () => {
    const signIn = vi.fn(async () => {
      throw invalid();
    });
    render(<LoginForm signIn={signIn} />);
    const user = await fill('ada@billflow.test', 'wrong-1');
    expect(screen.getByRole('alert').textContent).toBe(
      'Invalid email or password. Please check your credentials and try again.',
    );
    // The focus moves in an effect after the failure renders: wait for it rather than race it.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Email')));
    expect(screen.queryByText(FAILED_ATTEMPTS_HINT)).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.queryByText(FAILED_ATTEMPTS_HINT)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(
      screen.getByText('Multiple failed attempts detected. Please double-check your credentials.'),
    ).toBeTruthy();
    expect(signIn).toHaveBeenCalledTimes(3);
  });

  it('resets the failure count after a success', async () => {
    const signIn = vi
      .fn<(e: string, p: string) => Promise<typeof sampleUser>>()
      .mockRejectedValueOnce(invalid())
      .mockRejectedValueOnce(invalid())
      .mockResolvedValueOnce(sampleUser)
      .mockRejectedValueOnce(invalid());
    render(<LoginForm signIn={signIn} />);
    const user = await fill('ada@billflow.test', 'secret1');
    for (let i = 0; i < 3; i++) await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.queryByText(FAILED_ATTEMPTS_HINT)).toBeNull();
  });

  it('does not move focus for other failures', async () => {
    const signIn = vi.fn(async () => {
      throw new ApiError('Too many', { status: 429, body: { success: false, error: 'Too many' } });
    });
    render(<LoginForm signIn={signIn} />);
    await fill('ada@billflow.test', 'secret1');
    expect(screen.getByRole('alert').textContent).toBe(
      'Too many login attempts. Please wait a few minutes before trying again.',
    );
    expect(document.activeElement).not.toBe(screen.getByLabelText('Email'));
  });
});
