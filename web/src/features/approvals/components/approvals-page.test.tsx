// The list in jsdom against the typed fake GraphQL server (the e2e test drives the real one): the load
// error with Retry, the columns' derived values, the paging footer, a USER without actions, the live
// pushes re-reading the list and its figures together, bulk actions, and the CSV export (REST).
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { ApprovalsChanged } from '../../../hooks/use-approval-changed';
import { ApprovalPolicyChanged } from '../../../hooks/use-approval-policy-changed';
import { sessionStore } from '../../../lib/session-store';
import { captureDownloads } from '../../../testing/downloads';
import { json, mockFetch, sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import {
  type ApprovalRow,
  type ApprovalStats,
  ApprovalStatsQuery,
  ApprovalsQuery,
  BulkApprove,
  CompanyChoicesQuery,
  type PaymentProblem,
} from '../api/approvals';
import { RegenerateNacha } from '../api/payments';
import { ApprovalsPage } from './approvals-page';

const approval = (i: number, over: Partial<ApprovalRow> = {}): ApprovalRow => ({
  id: `${String(i).padStart(8, '0')}-1111-2222-3333-444444444444`,
  companyId: 3,
  companyName: 'Juniper',
  status: 'PENDING',
  priority: 'HIGH',
  billIds: ['1', '2', '3'],
  billCount: 3,
  approvedBillCount: 0,
  totalAmount: 1234.5,
  approvedAmount: 0,
  managerId: null,
  managerName: null,
  managerEmail: null,
  awaitingSecondApproval: false,
  viewerMayApprove: true,
  approveBlockedReason: null,
  paymentProblem: null,
  bankingFlags: [],
  bankPaymentState: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  ...over,
});

const problem = (
  kind: PaymentProblem['kind'],
  message: string,
  retry: PaymentProblem['retry'],
): PaymentProblem => ({ kind, message, retry, at: null, queue: null, jobId: null });

const STATS: ApprovalStats = {
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

const pageOf = (rows: ApprovalRow[], page = 1, total = rows.length, totalPages = 1) => ({
  approvals: { data: rows, total, page, limit: 10, totalPages },
});

let gql: GraphQLMock;

function serve(rows: (page: number) => ReturnType<typeof pageOf>) {
  gql.on(ApprovalStatsQuery, { approvalStats: STATS });
  gql.on(CompanyChoicesQuery, { companies: { data: [{ id: 3, name: 'Juniper' }] } });
  gql.on(ApprovalsQuery, (v) => rows(v.page ?? 1));
}

function renderPage(path = '/approvals') {
  return render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={[path]}>
        <ApprovalsPage />
        <Toaster />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => {
  gql = createGraphQLMock();
  sessionStore.setUser(sampleUser);
});
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('ApprovalsPage', () => {
  it('says why the list failed and loads again on Retry', async () => {
    serve(() => pageOf([]));
    gql.on(ApprovalsQuery, gqlError('limit must be 5, 10, 25, 50 or 100'));
    renderPage();
    await screen.findByText('Error loading approvals: limit must be 5, 10, 25, 50 or 100');
    gql.on(ApprovalsQuery, pageOf([]));
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('No approvals found');
    expect(screen.getByTestId('page-summary').textContent).toBe('Page 1 of 1 • Total: 0 approvals');
    expect(gql.calls(ApprovalsQuery)[0]).toEqual({
      search: null,
      companyId: null,
      status: null,
      priority: null,
      problem: null,
      page: 1,
      limit: 10,
      sortBy: 'createdAt',
      sortOrder: 'desc',
    });
  });

  it('shows the derived columns, the figures and up to 5 page buttons; a page button asks for that page', async () => {
    serve((page) =>
      pageOf(
        [
          approval(page, { approvedBillCount: 2, managerEmail: 'm@x.test' }),
          approval(page + 100, { status: 'REJECTED' }),
        ],
        page,
        72,
        8,
      ),
    );
    renderPage();
    const first = await screen.findByTestId(`approval-row-${approval(1).id}`);
    expect(within(first).getByText('00000001')).toBeTruthy();
    expect(within(first).getByTestId('approved-bills').textContent).toBe('2 (67%)');
    // The amount in its column, and again under the ID for a phone (where the column is hidden).
    expect(within(first).getAllByText('$1,234.50')).toHaveLength(2);
    expect(within(first).getByText('m@x.test')).toBeTruthy();
    const second = screen.getByTestId(`approval-row-${approval(101).id}`);
    expect(within(second).getByText('Not assigned')).toBeTruthy();
    // Only the PENDING row has approve and reject, and only it may be selected.
    expect(within(first).getByRole('button', { name: 'Approve approval 00000001' })).toBeTruthy();
    expect(within(second).queryByRole('button', { name: /^Approve approval/ })).toBeNull();
    expect((within(second).getByRole('checkbox') as HTMLInputElement).disabled).toBe(true);

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
    expect(gql.calls(ApprovalsQuery).some((v) => v.page === 8 && v.limit === 10)).toBe(true);
  });

  it('flags a row whose vendor’s bank details changed recently or wait for a second look', async () => {
    const flag = {
      kind: 'PENDING_CHANGE' as const,
      vendorId: 31,
      qbVendorId: '56',
      vendorName: 'Harbor Lumber',
      changeId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      source: 'FORM' as const,
      routingNumber: '*****0021',
      accountNumber: '*******6666',
      previousRoutingNumber: '*****0025',
      previousAccountNumber: '*******1004',
      changedById: 41,
      changedByName: 'Mia Maker',
      changedAt: '2026-12-05T15:30:00.000Z',
      liveAt: null,
      verifiedBy: null,
      verifiedByName: null,
      flaggedUntil: null,
      awaiting: 'An ADMIN or MODERATOR other than Mia Maker must approve it',
      message: 'Harbor Lumber: bank details change pending, by Mia Maker',
    };
    serve(() => pageOf([approval(1, { bankingFlags: [flag] }), approval(2)]));
    renderPage();
    const marker = await screen.findByTestId(`approval-banking-flag-${approval(1).id}`);
    expect(marker.closest('[data-testid="status"]')).toBeTruthy();
    expect(marker.textContent).toContain('Bank change pending: Harbor Lumber');
    expect(marker.getAttribute('title')).toBe('Harbor Lumber: bank details change pending, by Mia Maker');
    expect(screen.queryByTestId(`approval-banking-flag-${approval(2).id}`)).toBeNull();
  });

  it('says beside the status when the bank returned a payment, in full or in part', async () => {
    serve(() =>
      pageOf([
        approval(1, { status: 'PAYMENT_COMPLETED', bankPaymentState: 'PARTLY_RETURNED' }),
        approval(2, { status: 'PAYMENT_COMPLETED', bankPaymentState: 'RETURNED' }),
        approval(3, { status: 'PAYMENT_COMPLETED' }),
      ]),
    );
    renderPage();
    await screen.findAllByText('Payment Completed');
    const states = screen.getAllByTestId('bank-payment-state');
    expect(states.map((s) => s.textContent)).toEqual(['Partly returned', 'Returned']);
    for (const s of states) expect(s.closest('[data-testid="status"]')).toBeTruthy();
  });

  it('on a phone shows ID (with the company and amount under it), status and actions; Created is a column of its own, never pinned over another', async () => {
    serve(() => pageOf([approval(1)]));
    renderPage();
    const row = await screen.findByTestId(`approval-row-${approval(1).id}`);
    const cellOf = (testId: string) => within(row).getByTestId(testId).closest('td') as HTMLElement;
    // Always shown: no class hides these at any width.
    for (const cell of [cellOf('status'), within(row).getByText('00000001').closest('td') as HTMLElement])
      expect(cell.className).not.toMatch(/(^|\s)hidden(\s|$)/);
    const actions = within(row)
      .getByRole('button', { name: 'Actions for approval 00000001' })
      .closest('td') as HTMLElement;
    expect(actions.className).not.toMatch(/(^|\s)hidden(\s|$)|sticky/);
    // Under the ID until their own columns show: the company (to 768 px) and the amount (to 640 px).
    const idCell = within(row).getByText('00000001').closest('td') as HTMLElement;
    expect(within(idCell).getByTestId('row-company').textContent).toBe('Juniper');
    expect(within(idCell).getByTestId('row-company').className).toMatch(/(^|\s)md:hidden(\s|$)/);
    expect(within(idCell).getByTestId('row-amount').textContent).toBe('$1,234.50');
    expect(within(idCell).getByTestId('row-amount').className).toMatch(/(^|\s)sm:hidden(\s|$)/);
    expect(cellOf('row-company').className).not.toMatch(/(^|\s)hidden(\s|$)/);
    // The other columns wait for the room they need; Created shows from 1024 px on, beside Actions.
    expect(cellOf('processed-bills').className).toMatch(/hidden xl:table-cell/);
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent?.trim());
    expect(headers.slice(-2)).toEqual(['Created', 'Actions']);
    const created = screen.getAllByRole('columnheader').at(-2) as HTMLElement;
    expect(created.className).toMatch(/hidden lg:table-cell/);
    expect(created.className).not.toMatch(/sticky/);
  });

  it("reads the list and its figures again when an approval or a company's approval policy changes", async () => {
    let mayApprove = true;
    serve(() =>
      pageOf([
        approval(1, {
          viewerMayApprove: mayApprove,
          approveBlockedReason: mayApprove ? null : 'The creator of an approval may not approve it',
        }),
      ]),
    );
    renderPage();
    const button = await screen.findByRole('button', { name: 'Approve approval 00000001' });
    expect((button as HTMLButtonElement).disabled).toBe(false);
    await waitFor(() => expect(gql.subscribed(ApprovalPolicyChanged)).toBe(1));
    await waitFor(() => expect(gql.calls(ApprovalStatsQuery)).toHaveLength(1));
    const lists = () => gql.calls(ApprovalsQuery).length;
    const stats = () => gql.calls(ApprovalStatsQuery).length;
    const [listsBefore, statsBefore] = [lists(), stats()];
    mayApprove = false;
    act(() => void gql.push(ApprovalPolicyChanged, { approvalPolicyChanged: { companyId: 3 } }));
    await waitFor(() =>
      expect(
        (screen.getByRole('button', { name: 'Approve approval 00000001' }) as HTMLButtonElement).disabled,
      ).toBe(true),
    );
    await waitFor(() => expect(stats()).toBe(statsBefore + 1));
    expect(lists()).toBe(listsBefore + 1);

    // An approval decided elsewhere: the row and the figures move together, no 15 s wait.
    serve(() => pageOf([approval(1, { status: 'APPROVED', approvedBillCount: 3 })]));
    gql.on(ApprovalStatsQuery, { approvalStats: { ...STATS, pending: 19, approved: 5 } });
    act(
      () =>
        void gql.push(ApprovalsChanged, {
          approvalChanged: { id: approval(1).id, type: 'ApprovalApproved', status: 'APPROVED' },
        }),
    );
    await waitFor(() => expect(screen.getByTestId('stat-pending-value').textContent).toBe('19'));
    expect(screen.getByTestId('status').textContent).toContain('Approved');
  });

  it('offers a USER no selection, no row actions and no new approval', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'USER' });
    serve(() => pageOf([approval(1)]));
    renderPage();
    await screen.findByTestId(`approval-row-${approval(1).id}`);
    expect(screen.queryAllByRole('checkbox')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: /^(Approve|Reject) approval/ })).toBeNull();
    expect(screen.queryByRole('link', { name: 'New Approval' })).toBeNull();
  });

  it('disables a row’s approve for a viewer the server says may not, with the reason as its title', async () => {
    serve(() =>
      pageOf([
        approval(1, {
          viewerMayApprove: false,
          approveBlockedReason: 'You created this approval; this company requires a different approver.',
        }),
        approval(2, { viewerMayApprove: true, approveBlockedReason: null }),
      ]),
    );
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

  it('bulk approves the selected rows and shows a result per row', async () => {
    serve(() => pageOf([approval(1), approval(2)]));
    gql.on(BulkApprove, (v) => ({
      bulkApproveApprovals: {
        processed: v.ids.length,
        succeeded: 1,
        failed: 1,
        results: [
          { id: approval(1).id, success: true, status: 'APPROVED' as const, error: null },
          { id: approval(2).id, success: false, status: null, error: 'Approval is not pending' },
        ],
      },
    }));
    renderPage();
    const user = userEvent.setup();
    await screen.findByTestId(`approval-row-${approval(1).id}`);
    await user.click(screen.getByRole('checkbox', { name: 'Select all pending approvals' }));
    expect(within(screen.getByRole('region', { name: 'Bulk actions' })).getByText('2 selected')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Approve selected' }));
    await waitFor(() =>
      expect(screen.getByTestId('bulk-summary').textContent).toBe('1 approval approved, 1 failed'),
    );
    expect(gql.calls(BulkApprove)).toEqual([{ ids: [approval(1).id, approval(2).id] }]);
    expect(screen.getByTestId(`bulk-result-${approval(2).id}`).textContent).toContain(
      'Failed: Approval is not pending',
    );
    expect(screen.queryByRole('region', { name: 'Bulk actions' })).toBeNull();
  });

  it('offers Regenerate NACHA in the row menu from APPROVED through PAYMENT_COMPLETED, disabled with the reason once the file is at the bank; it posts and says so', async () => {
    const statuses = [
      'APPROVED',
      'NACHA_PENDING',
      'NACHA_GENERATED',
      'BANK_UPLOADED',
      'PAYMENT_COMPLETED',
    ] as const;
    serve(() =>
      pageOf([
        ...statuses.map((status, i) => approval(i + 1, { status })),
        approval(8, { status: 'PENDING' }),
        approval(9, { status: 'REJECTED' }),
      ]),
    );
    gql.on(RegenerateNacha, {
      regenerateNacha: {
        message: 'NACHA file version 2 requested',
        approval: { id: approval(3).id, status: 'NACHA_PENDING' },
      },
    });
    renderPage();
    const user = userEvent.setup();
    await screen.findByTestId(`approval-row-${approval(1).id}`);
    const atBank = 'The NACHA file is already at the bank: a second file would pay the vendors twice';
    for (const i of [1, 2, 3, 4, 5, 8, 9]) {
      await user.click(screen.getByRole('button', { name: `Actions for approval 0000000${i}` }));
      const item = screen.queryByRole('menuitem', { name: /^Regenerate NACHA/ });
      expect(Boolean(item), `row ${i}`).toBe(i <= 5);
      // BANK_UPLOADED and PAYMENT_COMPLETED: shown, disabled, the reason written under it.
      if (item) expect(item.getAttribute('aria-disabled'), `row ${i}`).toBe(i >= 4 ? 'true' : null);
      if (item)
        expect(item.textContent, `row ${i}`).toBe(i >= 4 ? `Regenerate NACHA${atBank}` : 'Regenerate NACHA');
      await user.keyboard('{Escape}');
    }
    await user.click(screen.getByRole('button', { name: 'Actions for approval 00000005' }));
    await user.click(screen.getByRole('menuitem', { name: /^Regenerate NACHA/ }));
    await user.keyboard('{Escape}');
    expect(gql.calls(RegenerateNacha)).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Actions for approval 00000003' }));
    await user.click(screen.getByRole('menuitem', { name: 'Regenerate NACHA' }));
    await screen.findByText('NACHA file regenerated successfully');
    expect(screen.getByText('NACHA file version 2 requested')).toBeTruthy();
    expect(gql.calls(RegenerateNacha)).toEqual([{ id: approval(3).id }]);
  });

  it('says under a row’s status what holds its payment: a warning, or a calm wait for the next banking day', async () => {
    const fix = 'The NACHA file could not be made: The company has no NACHA settings';
    const day = 'Today’s 36 NACHA files are made; this one will be made on Dec 8, 2026';
    serve(() =>
      pageOf([
        approval(1, { status: 'NACHA_PENDING', paymentProblem: problem('NACHA', fix, 'REGENERATE') }),
        approval(2, { status: 'NACHA_PENDING', paymentProblem: problem('WAITING', day, null) }),
        approval(3, { status: 'APPROVED' }),
      ]),
    );
    renderPage();
    const first = await screen.findByTestId(`approval-row-${approval(1).id}`);
    const marker = within(within(first).getByTestId('status')).getByTestId('payment-problem');
    // Readable as text (a screen reader, a phone), not only as an icon's tooltip.
    expect(marker.textContent).toBe(`NACHA file needs a fix: ${fix}`);
    expect(marker.getAttribute('title')).toBe(fix);
    expect(marker.className).toMatch(/text-red-800/);
    const second = screen.getByTestId(`approval-row-${approval(2).id}`);
    const waiting = within(second).getByTestId('payment-problem');
    expect(waiting.textContent).toBe(`Waiting for the next banking day: ${day}`);
    expect(waiting.className).toMatch(/text-sky-900/);
    const third = screen.getByTestId(`approval-row-${approval(3).id}`);
    expect(within(third).queryByTestId('payment-problem')).toBeNull();
  });

  it('filters by every status, the payment statuses too, and by what holds the payment', async () => {
    serve(() => pageOf([]));
    renderPage();
    const user = userEvent.setup();
    await screen.findByText('No approvals found');
    await user.click(screen.getByRole('button', { name: 'Filters' }));
    await user.click(screen.getByRole('combobox', { name: 'Status' }));
    await screen.findByRole('option', { name: 'Bank Uploaded' });
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      'All',
      'Pending',
      'Approved',
      'Rejected',
      'Expired',
      'NACHA Pending',
      'NACHA Generated',
      'Bank Uploaded',
      'Payment Completed',
    ]);
    await user.click(screen.getByRole('option', { name: 'Bank Uploaded' }));
    await waitFor(() => expect(gql.calls(ApprovalsQuery).at(-1)?.status).toBe('BANK_UPLOADED'));
    await user.click(screen.getByRole('combobox', { name: 'Payment' }));
    await screen.findByRole('option', { name: 'NACHA file stuck' });
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      'All',
      'Needs attention',
      'NACHA file stuck',
      'QuickBooks sync failed',
      'Waiting for the next banking day',
    ]);
    await user.click(screen.getByRole('option', { name: 'QuickBooks sync failed' }));
    await waitFor(() =>
      expect(gql.calls(ApprovalsQuery).at(-1)).toMatchObject({ status: 'BANK_UPLOADED', problem: 'SYNC' }),
    );
  });

  it('opens filtered from a link (?problem=any): the filter shows it, and the export carries it', async () => {
    serve(() => pageOf([]));
    const { calls } = mockFetch(
      () =>
        new Response('ID\n', {
          status: 200,
          headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="a.csv"' },
        }),
    );
    captureDownloads();
    renderPage('/approvals?problem=any');
    await screen.findByText('No approvals found');
    expect(gql.calls(ApprovalsQuery)).toHaveLength(1);
    expect(gql.calls(ApprovalsQuery)[0]).toMatchObject({ problem: 'ANY', status: null });
    expect(screen.getByRole('combobox', { name: 'Payment' }).textContent).toBe('Needs attention');
    expect(screen.getByTestId('filters-active')).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Export CSV' }));
    await screen.findByText('Download started');
    expect(calls.map((c) => c.url)).toEqual(['/api/bill-approval/approvals/export?problem=any&format=csv']);
  });

  it('exports the filtered list as a file through the REST export; a failure says why', async () => {
    serve(() => pageOf([]));
    let exportAnswer: () => Response = () =>
      new Response('ID,Company\n', {
        status: 200,
        headers: {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': 'attachment; filename="approvals-export.csv"',
        },
      });
    const { calls } = mockFetch((call) => {
      if (call.url.startsWith('/api/bill-approval/approvals/export')) return exportAnswer();
      return json(404, { success: false, message: 'unexpected' });
    });
    const saved = captureDownloads();
    renderPage();
    const user = userEvent.setup();
    await screen.findByText('No approvals found');
    await user.click(screen.getByRole('button', { name: 'Filters' }));
    await user.type(screen.getByLabelText('Search'), 'INV-1');
    await waitFor(() => expect(gql.calls(ApprovalsQuery).some((v) => v.search === 'INV-1')).toBe(true));
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
