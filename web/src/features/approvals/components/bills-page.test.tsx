// /bills in jsdom with a scripted fetch: a MODERATOR picks a manager from the staff picker (never the
// ADMIN-only managers list), a company's many bills are paged, and the selection outlives the page.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sessionStore } from '../../../lib/session-store';
import { json, mockFetch, sampleUser } from '../../../testing/fetch-mock';
import { BillsPage } from './bills-page';

// Radix Select asks the DOM for pointer capture and scrolling, which jsdom does not have.
beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => sessionStore.setUser({ ...sampleUser, role: 'MODERATOR' }));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const bill = (i: number) => ({
  id: String(100 + i),
  docNumber: `INV-${i}`,
  txnDate: '2026-11-01',
  dueDate: `2026-12-${String((i % 28) + 1).padStart(2, '0')}`,
  amount: 10 + i,
  balance: 10 + i,
  vendorQbId: '5',
  vendorName: `Vendor ${i}`,
  vendorId: null,
  bankingReady: false,
  inOpenApproval: false,
  openApprovalId: null,
  possibleDuplicate: false,
  duplicateOf: null,
});
const BILLS = Array.from({ length: 30 }, (_, i) => bill(i));

describe('BillsPage', () => {
  it('pages many bills, keeps the selection across pages, and lets a MODERATOR pick a manager', async () => {
    const { calls } = mockFetch((call) => {
      if (call.url.startsWith('/api/company'))
        return json(200, { success: true, data: [{ id: 3, name: 'Juniper' }] });
      if (call.url.startsWith('/api/bill-approval/manager-options'))
        return json(200, {
          success: true,
          data: [{ id: 9, displayName: 'Dana Whitfield', email: 'dana@example.com' }],
        });
      if (call.url.startsWith('/api/bill-approval/bills')) return json(200, { success: true, data: BILLS });
      if (call.method === 'POST')
        return json(201, { success: true, data: { id: 'aaaaaaaa-1111-2222-3333-444444444444' } });
      return json(404, { success: false, message: 'unexpected' });
    });
    render(
      <MemoryRouter initialEntries={['/bills?companyId=3']}>
        <BillsPage />
      </MemoryRouter>,
    );
    const user = userEvent.setup();
    await screen.findByTestId('bill-row-100');
    // Ten rows a page (the list's default), with the list's footer.
    expect(screen.getAllByTestId(/^bill-row-/)).toHaveLength(10);
    expect(screen.getByTestId('page-summary').textContent).toBe('Page 1 of 3 • Total: 30 bills');

    await user.click(within(screen.getByTestId('bill-row-100')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Page 3' }));
    await screen.findByTestId('bill-row-129');
    expect(screen.queryByTestId('bill-row-100')).toBeNull();
    await user.click(within(screen.getByTestId('bill-row-129')).getByRole('checkbox'));
    expect(screen.getByTestId('selection-summary').textContent).toBe('2 selected · $49.00');
    // The header box selects this page only; the bill on page 1 stays selected.
    await user.click(screen.getByRole('checkbox', { name: 'Select all bills on this page' }));
    expect(screen.getByTestId('selection-summary').textContent).toMatch(/^11 selected/);
    await user.click(screen.getByRole('checkbox', { name: 'Select all bills on this page' }));
    expect(screen.getByTestId('selection-summary').textContent).toBe('1 selected · $10.00');
    await user.click(within(screen.getByTestId('bill-row-129')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'First' }));
    expect(
      (within(screen.getByTestId('bill-row-100')).getByRole('checkbox') as HTMLInputElement).checked,
    ).toBe(true);

    // The manager picker is open to a MODERATOR and filled from the staff picker.
    const manager = screen.getByRole('combobox', { name: 'Manager' });
    expect((manager as HTMLButtonElement).disabled).toBe(false);
    await user.click(manager);
    await user.click(await screen.findByRole('option', { name: 'Dana Whitfield' }));
    await user.click(screen.getByRole('button', { name: 'Create Approval' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url).toBe('/api/bill-approval/approvals');
    expect(post.body).toEqual({
      companyId: 3,
      billIds: ['100', '129'],
      managerId: 9,
      priority: 'MEDIUM',
      confirmDuplicates: [],
    });
    expect(calls.some((c) => c.url.startsWith('/api/manager/managers'))).toBe(false);
  });

  it('shows why a bill Billflow cannot pay is refused, and leaves it out of the selection', async () => {
    const refused = {
      ...bill(1),
      amount: 9e15,
      refusedReason: 'its total is above $99,999,999.99, the most one ACH payment carries',
    };
    mockFetch((call) => {
      if (call.url.startsWith('/api/company'))
        return json(200, { success: true, data: [{ id: 3, name: 'Juniper' }] });
      if (call.url.startsWith('/api/bill-approval/manager-options'))
        return json(200, { success: true, data: [] });
      if (call.url.startsWith('/api/bill-approval/bills'))
        return json(200, { success: true, data: [bill(0), refused] });
      return json(404, { success: false, message: 'unexpected' });
    });
    render(
      <MemoryRouter initialEntries={['/bills?companyId=3']}>
        <BillsPage />
      </MemoryRouter>,
    );
    const user = userEvent.setup();
    const row = await screen.findByTestId('bill-row-101');
    expect(within(row).getByTestId('refused-flag').textContent).toContain('$99,999,999.99');
    expect((within(row).getByRole('checkbox') as HTMLInputElement).disabled).toBe(true);
    await user.click(screen.getByRole('checkbox', { name: 'Select all bills on this page' }));
    expect(screen.getByTestId('selection-summary').textContent).toBe('1 selected · $10.00');
  });
});
