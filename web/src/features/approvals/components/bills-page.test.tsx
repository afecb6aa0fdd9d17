// /bills in jsdom against the typed fake GraphQL server: a MODERATOR picks a manager from the staff
// picker (never the ADMIN-only managers list), a company's many bills are paged, the selection
// outlives the page, and a bill refused as already in an open approval leaves the selection, is not
// counted, and leaves Create disabled when nothing that may go remains; while
// QuickBooks asks to wait, a calm notice says the bills are Billflow's copy and as of when.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { sessionStore } from '../../../lib/session-store';
import { sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import {
  type BillCandidate,
  BillCandidatesQuery,
  CompanyChoicesQuery,
  CreateApproval,
  type ManagerOption,
  ManagerOptionsQuery,
} from '../api/approvals';
import { BillsPage } from './bills-page';

// Radix Select asks the DOM for pointer capture and scrolling, which jsdom does not have.
beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
let gql: GraphQLMock;
beforeEach(() => {
  gql = createGraphQLMock();
  sessionStore.setUser({ ...sampleUser, role: 'MODERATOR' });
});
afterEach(() => {
  cleanup();
  resetToasts();
});

const bill = (i: number, over: Partial<BillCandidate> = {}): BillCandidate => ({
  id: String(100 + i),
  docNumber: `INV-${i}`,
  dueDate: `2026-12-${String((i % 28) + 1).padStart(2, '0')}`,
  amount: 10 + i,
  vendorName: `Vendor ${i}`,
  bankingReady: false,
  inOpenApproval: false,
  openApprovalId: null,
  possibleDuplicate: false,
  duplicateOfBillId: null,
  duplicateOfPaid: false,
  refusedReason: null,
  source: 'quickbooks',
  copyAsOf: '2026-12-01T09:00:00.000Z',
  quickbooksRetryAfterSeconds: null,
  bankingFlags: [],
  ...over,
});
const BILLS = Array.from({ length: 30 }, (_, i) => bill(i));

function serve(
  bills: BillCandidate[] | (() => BillCandidate[]),
  managers: ManagerOption[] = [
    { id: 9, displayName: 'Dana Whitfield', email: 'dana@example.com', companyManager: false },
  ],
) {
  gql.on(CompanyChoicesQuery, { companies: { data: [{ id: 3, name: 'Juniper' }] } });
  gql.on(ManagerOptionsQuery, { approvalManagerOptions: managers });
  gql.on(BillCandidatesQuery, () => ({
    approvalBillCandidates: typeof bills === 'function' ? bills() : bills,
  }));
}

function renderPage() {
  return render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/bills?companyId=3']}>
        <BillsPage />
        <Toaster />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

describe('BillsPage', () => {
  it('pages many bills, keeps the selection across pages, and lets a MODERATOR pick a manager', async () => {
    serve(BILLS);
    gql.on(CreateApproval, { createApproval: { id: 'aaaaaaaa-1111-2222-3333-444444444444' } });
    renderPage();
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
    await waitFor(() => expect(gql.calls(CreateApproval)).toHaveLength(1));
    expect(gql.calls(CreateApproval)[0]).toEqual({
      input: {
        companyId: 3,
        billIds: ['100', '129'],
        managerId: 9,
        priority: 'MEDIUM',
        confirmDuplicates: [],
      },
    });
    expect(gql.calls(BillCandidatesQuery)[0]).toEqual({ companyId: 3 });
    // The staff picker only; the managers list is ADMIN's.
    expect(gql.operations.some((o) => o.name === 'Managers')).toBe(false);
  });

  it('says calmly that QuickBooks asked to wait and as of when the bills are shown; they can still be chosen', async () => {
    // A local time the reader's clock shows as 14:07, whatever the test host's zone.
    const asOf = new Date(2026, 11, 1, 14, 7, 30).toISOString();
    const fromCopy = { source: 'copy' as const, copyAsOf: asOf, quickbooksRetryAfterSeconds: 60 };
    serve([bill(0, fromCopy), bill(1, fromCopy)], []);
    gql.on(CreateApproval, { createApproval: { id: 'cccccccc-1111-2222-3333-444444444444' } });
    renderPage();
    const user = userEvent.setup();
    const notice = await screen.findByTestId('quickbooks-wait-notice');
    expect(notice.textContent).toBe('QuickBooks asked us to wait; showing bills as of 14:07');
    expect(notice.getAttribute('role')).toBe('status');
    // Not an error: the list is there and a bill can go in an approval.
    expect(screen.queryByText(/Error loading bills/)).toBeNull();
    await user.click(within(screen.getByTestId('bill-row-100')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Create Approval' }));
    await waitFor(() => expect(gql.calls(CreateApproval)).toHaveLength(1));
  });

  it('shows no notice while the bills are as QuickBooks confirmed them', async () => {
    serve([bill(0), bill(1)], []);
    renderPage();
    await screen.findByTestId('bill-row-100');
    expect(screen.queryByTestId('quickbooks-wait-notice')).toBeNull();
  });

  it('flags a bill whose vendor’s bank details changed recently', async () => {
    const changed = bill(1, {
      vendorName: 'Birch Paper',
      bankingReady: true,
      bankingFlags: [
        {
          kind: 'RECENT_CHANGE',
          vendorId: 32,
          qbVendorId: '57',
          vendorName: 'Birch Paper',
          changeId: '11111111-2222-4333-8444-555555555555',
          source: 'CSV',
          routingNumber: '*****0021',
          accountNumber: '*******6666',
          previousRoutingNumber: null,
          previousAccountNumber: null,
          changedById: 41,
          changedByName: 'Mia Maker',
          changedAt: '2026-12-04T10:00:00.000Z',
          liveAt: '2026-12-04T11:00:00.000Z',
          verifiedBy: 'second-person',
          verifiedByName: 'Cody Checker',
          flaggedUntil: '2027-01-03T11:00:00.000Z',
          awaiting: null,
          message: 'Birch Paper: bank details changed on Dec 4 by Mia Maker, approved by Cody Checker',
        },
      ],
    });
    serve([bill(0), changed], []);
    renderPage();
    const row = await screen.findByTestId('bill-row-101');
    const marker = within(row).getByTestId('bill-banking-flag-101');
    expect(marker.textContent).toContain('Bank details changed: Birch Paper');
    expect(marker.getAttribute('title')).toBe(
      'Birch Paper: bank details changed on Dec 4 by Mia Maker, approved by Cody Checker',
    );
    expect(within(screen.getByTestId('bill-row-100')).queryByTestId('bill-banking-flag-100')).toBeNull();
    // A flag warns; it does not stop the bill from being chosen.
    expect((within(row).getByRole('checkbox') as HTMLInputElement).disabled).toBe(false);
  });

  it('shows why a bill Billflow cannot pay is refused, and leaves it out of the selection', async () => {
    const refused = bill(1, {
      amount: 9e15,
      refusedReason: 'its total is above $99,999,999.99, the most one ACH payment carries',
    });
    serve([bill(0), refused], []);
    renderPage();
    const user = userEvent.setup();
    const row = await screen.findByTestId('bill-row-101');
    expect(within(row).getByTestId('refused-flag').textContent).toContain('$99,999,999.99');
    expect((within(row).getByRole('checkbox') as HTMLInputElement).disabled).toBe(true);
    await user.click(screen.getByRole('checkbox', { name: 'Select all bills on this page' }));
    expect(screen.getByTestId('selection-summary').textContent).toBe('1 selected · $10.00');
  });

  it('drops a bill refused as already in an open approval from the selection and the count; Create waits for a valid choice', async () => {
    let taken = false;
    serve(() => [
      bill(0),
      bill(1, taken ? { inOpenApproval: true, openApprovalId: 'bbbbbbbb-1111-2222-3333-444444444444' } : {}),
    ]);
    gql.on(CreateApproval, () => {
      // Another session took bill 101 meanwhile.
      taken = true;
      return gqlError('Bill 101 is already in an open approval', { code: 'CONFLICT' });
    });
    renderPage();
    const user = userEvent.setup();
    const create = () => screen.getByRole('button', { name: 'Create Approval' }) as HTMLButtonElement;
    const row = await screen.findByTestId('bill-row-101');
    expect(create().disabled).toBe(true);
    await user.click(within(row).getByRole('checkbox'));
    expect(screen.getByTestId('selection-summary').textContent).toBe('1 selected · $11.00');
    expect(create().disabled).toBe(false);

    await user.click(create());
    await screen.findByText('Bill 101 is already in an open approval');
    // The bills are read again: 101 is now in an approval, cannot be ticked, and is neither
    // selected nor counted; nothing valid is left, so Create is disabled.
    await within(screen.getByTestId('bill-row-101')).findByText('In approval #bbbbbbbb');
    const box = within(screen.getByTestId('bill-row-101')).getByRole('checkbox') as HTMLInputElement;
    expect(box.disabled).toBe(true);
    expect(box.checked).toBe(false);
    expect(screen.getByTestId('selection-summary').textContent).toBe('0 selected · $0.00');
    expect(create().disabled).toBe(true);
    // The header box ticks only what may go.
    await user.click(screen.getByRole('checkbox', { name: 'Select all bills on this page' }));
    expect(screen.getByTestId('selection-summary').textContent).toBe('1 selected · $10.00');
    expect(create().disabled).toBe(false);
  });

  it('starts with the company’s assigned manager; one picked on the screen stays until another company', async () => {
    const options = (companyId: number | null | undefined): ManagerOption[] => [
      { id: 9, displayName: 'Dana Whitfield', email: 'dana@example.com', companyManager: false },
      { id: 12, displayName: 'Miles Manning', email: 'miles@example.com', companyManager: companyId === 3 },
      { id: 14, displayName: 'Nora North', email: 'nora@example.com', companyManager: companyId === 4 },
    ];
    serve(BILLS);
    gql.on(CompanyChoicesQuery, {
      companies: {
        data: [
          { id: 3, name: 'Juniper' },
          { id: 4, name: 'Kestrel' },
        ],
      },
    });
    gql.on(ManagerOptionsQuery, (vars) => ({ approvalManagerOptions: options(vars.companyId) }));
    gql.on(CreateApproval, { createApproval: { id: 'dddddddd-1111-2222-3333-444444444444' } });
    renderPage();
    const user = userEvent.setup();
    const manager = () => screen.getByRole('combobox', { name: 'Manager' });
    // The picker asks for the company's options and shows its manager, not 'Not assigned'.
    await waitFor(() => expect(manager().textContent).toBe('Miles Manning'));
    expect(gql.calls(ManagerOptionsQuery)).toContainEqual({ companyId: 3 });
    await user.click(within(await screen.findByTestId('bill-row-100')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Create Approval' }));
    await waitFor(() => expect(gql.calls(CreateApproval)).toHaveLength(1));
    expect(gql.calls(CreateApproval)[0].input.managerId).toBe(12);

    // A choice made by hand is kept; another company starts with its own manager.
    await user.click(manager());
    await user.click(await screen.findByRole('option', { name: 'Not assigned' }));
    expect(manager().textContent).toBe('Not assigned');
    await user.click(screen.getByRole('combobox', { name: 'Company' }));
    await user.click(await screen.findByRole('option', { name: 'Kestrel' }));
    await waitFor(() => expect(manager().textContent).toBe('Nora North'));
  });
});
