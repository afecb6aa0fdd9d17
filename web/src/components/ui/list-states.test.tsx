import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Button } from './button';
import { EmptyState, LoadError } from './list-states';

afterEach(cleanup);

describe('list states', () => {
  it('a load error is an alert with its words and a retry', async () => {
    const onRetry = vi.fn();
    render(<LoadError title="Error loading users: timed out" onRetry={onRetry} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Error loading users: timed out');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('a load error can carry the message apart and its own retry label', () => {
    render(
      <LoadError
        title="Failed to load vendors"
        detail="timed out"
        retryLabel="Try Again"
        onRetry={() => {}}
      />,
    );
    expect(screen.getByText('Failed to load vendors')).toBeTruthy();
    expect(screen.getByText('timed out')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeTruthy();
  });

  it('an empty state says what is missing, and why or what next', () => {
    render(
      <EmptyState
        title="No users found"
        description="No user matches these filters."
        action={<Button>Create a user</Button>}
      />,
    );
    expect(screen.getByText('No users found')).toBeTruthy();
    expect(screen.getByText('No user matches these filters.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Create a user' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
