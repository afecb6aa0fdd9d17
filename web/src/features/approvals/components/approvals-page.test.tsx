// The list's states in jsdom with a scripted fetch (the e2e test drives the real server): the load
// error with Retry, the columns' derived values, the paging footer, and a USER without actions.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { sessionStore } from '../../../lib/session-store';
import { json, mockFetch, sampleUser } from '../../../testing/fetch-mock';

// The subscription socket is not part of these tests (the e2e test covers the live path).
vi.mock('../../../hooks/use-approval-changed', () => ({ useApprovalChanged: () => {} }));
// The policy push's callback, held so a test can play a pushed change.
const policyPush: { onChange: ((companyId: number) => void) | null } = { onChange: null };
vi.mock('../../../hooks/use-approval-policy-changed', () => ({
  useApprovalPolicyChanged: (_companyId: number | null, onChange: (companyId: number) => void) => {
    policyPush.onChange = onChange;
  },
}));
const { ApprovalsPage } = await import('./approvals-page');

const approval = (i: number, over: Record<string, unknown> = {}) => ({
  id: `${String(i).padStart(8, '0')}-1111-2222-3333-444444444444`,
  companyId: 3,
  companyName: 'Juniper',
  company: { id: 3, name: 'Juniper' },
  status: 'PENDING',
  priority: 'HIGH',
  billIds: '1,2,3',
  approvedBillIds: '',
  billIdList: ['1', '2', '3'],
  approvedBillIdList: [],
  billCount: 3,
  approvedBillCount: 0,
  approvalRate: 0,
  totalAmount: 1234.5,
  approvedAmount: 0,
  managerName: null,
  managerEmail: null,
  awaitingSecondApproval: false,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  ...over,
});

const STATS = {
  total: 27,
  pending: 20,
  approved: 4,
  rejected: 2,
  expired: 1,
  processedBills: 30,
  approvedBills: 10,
  processedTotalAmount: 1000,
  approvedTotalAmount: 250,
};

function renderPage() {
  return render(
    <MemoryRouter initialEntries={['/approvals']}>
      <ApprovalsPage />
      <Toaster />
    </MemoryRouter>,
  );
}

beforeEach(() => sessionStore.setUser(sampleUser));
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('ApprovalsPage', () => {
  it('says why the list failed and loads again on Retry', async () => {
    let fail = true;
    const { calls } = mockFetch((call) => {
      if (call.url.startsWith('/api/bill-approval/approvals/stats'))
        return json(200, { success: true, data: STATS });
      if (call.url.startsWith('/api/company')) return json(200, { success: true, data: [] });
      if (fail) return json(400, { success: false, message: 'limit must be 5, 10, 25, 50 or 100' });
      return json(200, {
        success: true,
        data: [],
        meta: { pagination: { total: 0, page: 1, limit: 10, totalPages: 1 } },
      });
    });
    renderPage();
    await screen.findByText('Error loading approvals: limit must be 5, 10, 25, 50 or 100');
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('No approvals found');
    expect(screen.getByTestId('page-summary').textContent).toBe('Page 1 of 1 • Total: 0 approvals');
    const list = calls.filter((c) => c.url.startsWith('/api/bill-approval/approvals?'));
    expect(list[0].url).toContain('page=1&limit=10&sortBy=createdAt&sortOrder=desc');
  });

  it('shows the derived columns, the figures and up to 5 page buttons; a page button asks for that page', async () => {
    const { calls } = mockFetch((call) => {
      if (call.url.startsWith('/api/bill-approval/approvals/stats'))
        return json(200, { success: true, data: STATS });
      if (call.url.startsWith('/api/company')) return json(200, { success: true, data: [] });
      const page = Number(new URL(call.url, 'http://x').searchParams.get('page'));
      return json(200, {
        success: true,
        data: [
          approval(page, { approvedBillCount: 2, approvedBillIds: '1,2', managerEmail: 'm@x.test' }),
          approval(page + 100, { status: 'REJECTED' }),
        ],
        meta: { pagination: { total: 72, page, limit: 10, totalPages: 8 } },
      });
    });
    renderPage();
    const first = await screen.findByTestId(`approval-row-${approval(1).id}`);
    expect(within(first).getByText('00000001')).toBeTruthy();
    expect(within(first).getByTestId('approved-bills').textContent).toBe('2 (67%)');
    expect(within(first).getByText('$1,234.50')).toBeTruthy();
    expect(within(first).getByText('m@x.test')).toBeTruthy();
    const second = screen.getByTestId(`approval-row-${approval(101).id}`);
    expect(within(second).getByText('Not assigned')).toBeTruthy();
    // Only the PENDING row has approve and reject.
    expect(within(first).getByRole('button', { name: 'Approve approval 00000001' })).toBeTruthy();
    expect(within(second).queryByRole('button', { name: /^Approve approval/ })).toBeNull();

    await waitFor(() => expect(screen.getByTestId('stat-total-value').textContent).toBe('27'));
    expect(screen.getByTestId('stat-approved-bills').textContent).toContain('33% approval rate');
    expect(screen.getByTestId('stat-approved-amount').textContent).toContain('25% of total');

    const pageButtons = screen.getAllByRole('button', { name: /^Page \d+$/ }).map((b) => b.textContent);
    expect(pageButtons).toEqual(['1', '2', '3', '4', '5']);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Last' }));
    await screen.findByText('Page 8 of 8 • Total: 72 approvals');
    expect(screen.getAllByRole('button', { name: /^Page \d+$/ }).map((b) => b.textContent)).toEqual([
      '4',
      '5',
      '6',
      '7',
      '8',
    ]);
    expect(calls.some((c) => c.url.includes('page=8&limit=10'))).toBe(true);
  });

  it("reads the list and its figures again when a company's approval policy changes", async () => {
    let mayApprove = true;
    const { calls } = mockFetch((call) => {
      if (call.url.startsWith('/api/bill-approval/approvals/stats'))
        return json(200, { success: true, data: STATS });
      if (call.url.startsWith('/api/company')) return json(200, { success: true, data: [] });
      return json(200, {
        success: true,
        data: [
          approval(1, {
            viewerMayApprove: mayApprove,
            approveBlockedReason: mayApprove ? null : 'The creator of an approval may not approve it',
          }),
        ],
        meta: { pagination: { total: 1, page: 1, limit: 10, totalPages: 1 } },
      });
    });
    renderPage();
    const button = await screen.findByRole('button', { name: 'Approve approval 00000001' });
    expect((button as HTMLButtonElement).disabled).toBe(false);
    const lists = () => calls.filter((c) => c.url.startsWith('/api/bill-approval/approvals?')).length;
    const stats = () => calls.filter((c) => c.url.startsWith('/api/bill-approval/approvals/stats')).length;
    const [listsBefore, statsBefore] = [lists(), stats()];
    mayApprove = false;
    policyPush.onChange?.(3);
    await waitFor(() =>
      expect(
        (screen.getByRole('button', { name: 'Approve approval 00000001' }) as HTMLButtonElement).disabled,
      ).toBe(true),
    );
    expect(lists()).toBe(listsBefore + 1);
    expect(stats()).toBe(statsBefore + 1);
  });

  it('offers a USER no selection, no row actions and no new approval', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'USER' });
    mockFetch((call) => {
      if (call.url.startsWith('/api/bill-approval/approvals/stats'))
        return json(200, { success: true, data: STATS });
      if (call.url.startsWith('/api/company')) return json(200, { success: true, data: [] });
      return json(200, {
        success: true,
        data: [approval(1)],
        meta: { pagination: { total: 1, page: 1, limit: 10, totalPages: 1 } },
      });
    });
    renderPage();
    await screen.findByTestId(`approval-row-${approval(1).id}`);
    expect(screen.queryAllByRole('checkbox')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: /^(Approve|Reject) approval/ })).toBeNull();
    expect(screen.queryByRole('link', { name: 'New Approval' })).toBeNull();
  });

  it('disables a row’s approve for a viewer the server says may not, with the reason as its title', async () => {
    mockFetch((call) => {
      if (call.url.startsWith('/api/bill-approval/approvals/stats'))
        return json(200, { success: true, data: STATS });
      if (call.url.startsWith('/api/company')) return json(200, { success: true, data: [] });
      return json(200, {
        success: true,
        data: [
          approval(1, {
            viewerMayApprove: false,
            approveBlockedReason: 'You created this approval; this company requires a different approver.',
          }),
          approval(2, { viewerMayApprove: true, approveBlockedReason: null }),
        ],
        meta: { pagination: { total: 2, page: 1, limit: 10, totalPages: 1 } },
      });
    });
    renderPage();
    const blocked = within(await screen.findByTestId(`approval-row-${approval(1).id}`)).getByRole('button', {
      name: 'Approve approval 00000001',
    }) as HTMLButtonElement;
    expect(blocked.disabled).toBe(true);
    expect(blocked.title).toBe('You created this approval; this company requires a different approver.');
    const open = within(screen.getByTestId(`approval-row-${approval(2).id}`)).getByRole('button', {
      name: 'Approve approval 00000002',
    }) as HTMLButtonElement;
    expect(open.disabled).toBe(false);
    expect(open.title).toBe('Approve all bills');
    // Reject stays available on the blocked row.
    expect(
      (
        within(screen.getByTestId(`approval-row-${approval(1).id}`)).getByRole('button', {
          name: 'Reject approval 00000001',
        }) as HTMLButtonElement
      ).disabled,
    ).toBe(false);
  });

  it('exports the filtered list as a file through the REST export; a failure says why', async () => {
    let exportAnswer: () => Response = () =>
      new Response('ID,Company\n', {
        status: 200,
        headers: {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': 'attachment; filename="approvals-export.csv"',
        },
      });
    const { calls } = mockFetch((call) => {
      if (call.url.startsWith('/api/bill-approval/approvals/stats'))
        return json(200, { success: true, data: STATS });
      if (call.url.startsWith('/api/bill-approval/approvals/export')) return exportAnswer();
      if (call.url.startsWith('/api/company')) return json(200, { success: true, data: [] });
      return json(200, {
        success: true,
        data: [],
        meta: { pagination: { total: 0, page: 1, limit: 10, totalPages: 1 } },
      });
    });
    const saved: string[] = [];
    URL.createObjectURL = vi.fn(() => 'blob:approvals');
    URL.revokeObjectURL = vi.fn();
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    renderPage();
    const user = userEvent.setup();
    await screen.findByText('No approvals found');
    await user.click(screen.getByRole('button', { name: 'Filters' }));
    await user.type(screen.getByLabelText('Search'), 'INV-1');
    await waitFor(() => expect(calls.some((c) => c.url.includes('search=INV-1'))).toBe(true));
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await screen.findByText('Download started');
    const exported = calls.filter((c) => c.url.startsWith('/api/bill-approval/approvals/export'));
    expect(exported).toHaveLength(1);
    expect(exported[0].url).toBe('/api/bill-approval/approvals/export?search=INV-1&format=csv');
    expect(saved).toEqual(['approvals-export.csv']);

    exportAnswer = () =>
      json(403, { success: false, message: 'You do not have permission to perform this action' });
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await screen.findByText('Export failed');
    expect(screen.getByText('You do not have permission to perform this action')).toBeTruthy();
    expect(saved).toHaveLength(1);
  });
});
