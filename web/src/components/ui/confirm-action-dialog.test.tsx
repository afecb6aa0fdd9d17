import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmActionDialog, type ConfirmActionDialogProps } from './confirm-action-dialog';
import Toaster from './toaster';
import { resetToasts } from './use-toast';

afterEach(() => {
  cleanup();
  resetToasts();
});

/** The dialog as a feature holds it: open until it closes itself. */
function Harness(props: Pick<ConfirmActionDialogProps, 'run' | 'onDone' | 'errorTitle' | 'errorFallback'>) {
  const [open, setOpen] = useState(true);
  return (
    <>
      <ConfirmActionDialog
        open={open}
        onOpenChange={setOpen}
        title="Delete Manager"
        description="Are you sure you want to delete Ada Lovelace?"
        actionLabel="Delete Manager"
        busyLabel="Deleting..."
        successMessage="Manager deleted successfully"
        {...props}
      />
      <Toaster />
    </>
  );
}

/** A promise the test settles by hand, to look at the dialog while the action runs. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('ConfirmActionDialog', () => {
  it('runs the action once, cannot be dismissed while it runs, then closes with the answer as a toast', async () => {
    const answer = deferred<{ message?: string }>();
    const run = vi.fn(() => answer.promise);
    const onDone = vi.fn();
    render(<Harness run={run} onDone={onDone} />);
    const user = userEvent.setup();
    expect(screen.getByRole('alertdialog', { name: 'Delete Manager' })).toBeTruthy();
    expect(screen.getByText('Are you sure you want to delete Ada Lovelace?')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Delete Manager' }));
    const busy = screen.getByRole('button', { name: 'Deleting...' }) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Cancel' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(busy);
    await user.keyboard('{Escape}');
    expect(screen.getByRole('alertdialog')).toBeTruthy();
    expect(run).toHaveBeenCalledTimes(1);
    expect(onDone).not.toHaveBeenCalled();

    answer.resolve({ message: 'Manager removed' });
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(await screen.findByText('Manager removed')).toBeTruthy();
    expect(onDone).toHaveBeenCalledTimes(1);
  });

  it('says its own success message when the answer has none', async () => {
    render(<Harness run={async () => ({})} />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Delete Manager' }));
    expect(await screen.findByText('Manager deleted successfully')).toBeTruthy();
  });

  it('stays open on a failure, shows the error, and can be tried again', async () => {
    let calls = 0;
    const run = vi.fn(async () => {
      calls++;
      if (calls === 1) throw new Error('Manager has pending approvals');
      return { message: 'Manager removed' };
    });
    const onDone = vi.fn();
    render(<Harness run={run} onDone={onDone} errorTitle="Failed to delete manager" />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete Manager' }));
    expect(await screen.findByText('Manager has pending approvals')).toBeTruthy();
    expect(screen.getByText('Failed to delete manager')).toBeTruthy();
    expect(screen.getByRole('alertdialog')).toBeTruthy();
    expect(onDone).not.toHaveBeenCalled();

    const again = screen.getByRole('button', { name: 'Delete Manager' }) as HTMLButtonElement;
    expect(again.disabled).toBe(false);
    await user.click(again);
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(run).toHaveBeenCalledTimes(2);
    expect(onDone).toHaveBeenCalledTimes(1);
  });

  it('falls back to its own error text when what was thrown is not an Error', async () => {
    render(
      <Harness
        run={async () => {
          throw 'network down';
        }}
        errorFallback="Failed to delete manager"
      />,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Delete Manager' }));
    expect(await screen.findByText('Failed to delete manager')).toBeTruthy();
    expect(screen.getByText('Error')).toBeTruthy();
  });
});
