import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchActivationBar } from './batch-activation-bar';
import Toaster from './toaster';
import { resetToasts } from './use-toast';

afterEach(() => {
  cleanup();
  resetToasts();
});

const acme = { id: 1, name: 'Acme LLC' };
const bolt = { id: 2, name: 'Bolt Inc' };
const crest = { id: 3, name: 'Crest Co' };

describe('BatchActivationBar', () => {
  it('shows nothing with nothing selected and no batch', () => {
    const { container } = render(
      <BatchActivationBar
        selected={[]}
        noun="companies"
        setActive={async () => {}}
        describe={(c: typeof acme) => c.name}
        onClear={() => {}}
        onFinished={() => {}}
      />,
    );
    expect(container.innerHTML).toBe('');
  });

  it('runs the action item by item, lists each result, sums up in a toast and hands back', async () => {
    const calls: Array<[number, boolean]> = [];
    const setActive = vi.fn(async (c: typeof acme, active: boolean) => {
      calls.push([c.id, active]);
      if (c.id === bolt.id) throw new Error('Company has pending approvals');
    });
    const onFinished = vi.fn();
    const onClear = vi.fn();
    const { rerender } = render(
      <>
        <BatchActivationBar
          selected={[acme, bolt, crest]}
          noun="companies"
          setActive={setActive}
          describe={(c) => c.name}
          onClear={onClear}
          onFinished={onFinished}
        />
        <Toaster />
      </>,
    );
    const user = userEvent.setup();
    expect(screen.getByText('3 selected')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Deactivate Selected' }));

    const results = await screen.findByRole('region', { name: 'Batch results' });
    await waitFor(() => expect(within(results).getByText(/Deactivate finished/)).toBeTruthy());
    expect(calls).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
    expect(within(results).getByText('Deactivate finished: 2 succeeded, 1 failed')).toBeTruthy();
    const items = within(screen.getByTestId('batch-results')).getAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([
      'Acme LLC: Deactivated',
      'Bolt Inc: Company has pending approvals',
      'Crest Co: Deactivated',
    ]);
    expect(await screen.findByText('2 of 3 companies deactivated; 1 failed')).toBeTruthy();
    expect(onFinished).toHaveBeenCalledTimes(1);

    // The page clears its selection: the results stay until dismissed.
    rerender(
      <>
        <BatchActivationBar
          selected={[]}
          noun="companies"
          setActive={setActive}
          describe={(c) => c.name}
          onClear={onClear}
          onFinished={onFinished}
        />
        <Toaster />
      </>,
    );
    expect(screen.queryByRole('button', { name: 'Activate Selected' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('batch-bar')).toBeNull();
    expect(onClear).not.toHaveBeenCalled();
  });

  it('says all succeeded in a success toast, and clears the selection on request', async () => {
    const onClear = vi.fn();
    render(
      <>
        <BatchActivationBar
          selected={[acme, crest]}
          noun="users"
          setActive={async () => {}}
          describe={(c) => c.name}
          onClear={onClear}
          onFinished={() => {}}
        />
        <Toaster />
      </>,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Activate Selected' }));
    expect(await screen.findByText('2 of 2 users activated')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Clear Selection' }));
    expect(onClear).toHaveBeenCalledTimes(1);
  });
});
