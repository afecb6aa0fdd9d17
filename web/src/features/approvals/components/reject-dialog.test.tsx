import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { RejectDialog } from './reject-dialog';

afterEach(() => {
  cleanup();
  resetToasts();
});

describe('RejectDialog', () => {
  it('keeps submit disabled while empty, refuses a blank reason with the toast, sends a trimmed one', async () => {
    const onSubmit = vi.fn(async () => {});
    const onOpenChange = vi.fn();
    render(
      <>
        <RejectDialog open onOpenChange={onOpenChange} onSubmit={onSubmit} />
        <Toaster />
      </>,
    );
    const user = userEvent.setup();
    const reason = screen.getByLabelText('Rejection Reason *');
    expect(reason.getAttribute('rows')).toBe('4');
    const submit = screen.getByRole('button', { name: 'Reject Approval' });
    expect((submit as HTMLButtonElement).disabled).toBe(true);

    await user.type(reason, '   ');
    await user.click(submit);
    await screen.findByText('Rejection reason required');
    expect(screen.getByText('Please provide a reason for rejection')).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(reason, 'Wrong amount  ');
    await user.click(submit);
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith('Wrong amount'));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it('stays open when the server refuses', async () => {
    const onOpenChange = vi.fn();
    render(
      <RejectDialog
        open
        onOpenChange={onOpenChange}
        onSubmit={async () => {
          throw new Error('refused');
        }}
      />,
    );
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Rejection Reason *'), 'No');
    await user.click(screen.getByRole('button', { name: 'Reject Approval' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Reject Approval' })).toBeTruthy());
    expect(onOpenChange).not.toHaveBeenCalledWith(false);
  });
});
