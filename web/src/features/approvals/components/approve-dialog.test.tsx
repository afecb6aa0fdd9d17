import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApproveDialog } from './approve-dialog';

afterEach(cleanup);

const bill = (id: string, totalAmt: number) => ({
  id,
  docNumber: `INV-${id}`,
  totalAmt,
  vendorName: 'Acme',
});

describe('ApproveDialog', () => {
  it('starts with every bill, sends the chosen subset, and refuses none', async () => {
    const onSubmit = vi.fn(async () => {});
    const onOpenChange = vi.fn();
    render(
      <ApproveDialog
        open
        onOpenChange={onOpenChange}
        bills={[bill('1', 100), bill('2', 50.5)]}
        onSubmit={onSubmit}
      />,
    );
    const user = userEvent.setup();
    expect(screen.getByText('$150.50')).toBeTruthy();
    await user.click(screen.getByLabelText('Approve bill 2'));
    expect(screen.getByText('$100.00')).toBeTruthy();
    await user.click(screen.getByLabelText('Approve bill 1'));
    expect((screen.getByRole('button', { name: 'Approve 0 bills' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    await user.click(screen.getByLabelText('Approve bill 2'));
    await user.click(screen.getByRole('button', { name: 'Approve 1 bill' }));
    // No date chosen: the default (the next banking day).
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith(['2'], undefined));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it('sends the effective date chosen; its earliest is tomorrow, today for a Same-Day company', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // Monday 2026-12-07, 9:00 New York.
    vi.setSystemTime(new Date('2026-12-07T14:00:00Z'));
    try {
      const onSubmit = vi.fn(async () => {});
      const { rerender } = render(
        <ApproveDialog open onOpenChange={() => {}} bills={[bill('1', 100)]} onSubmit={onSubmit} />,
      );
      const field = screen.getByLabelText('Effective date (optional)') as HTMLInputElement;
      expect(field.type).toBe('date');
      expect(field.value).toBe('');
      expect(field.min).toBe('2026-12-08');
      const user = userEvent.setup();
      await user.type(field, '2026-12-10');
      await user.click(screen.getByRole('button', { name: 'Approve 1 bill' }));
      await waitFor(() => expect(onSubmit).toHaveBeenCalledWith(['1'], '2026-12-10'));
      rerender(
        <ApproveDialog
          open
          onOpenChange={() => {}}
          bills={[bill('1', 100)]}
          onSubmit={onSubmit}
          sameDayAch
        />,
      );
      expect((screen.getByLabelText('Effective date (optional)') as HTMLInputElement).min).toBe('2026-12-07');
    } finally {
      vi.useRealTimers();
    }
  });
});
