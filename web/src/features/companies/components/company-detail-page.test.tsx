// The company detail over GraphQL: the company, its inline assignments (what a change sends, and
// a long name cut inside its field with the whole name in the title, so the selects never overlap), a push
// re-reading the company, and its Recent Activity (the company's lines, "Show more", a push of a new line
// re-reading them).
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { CompaniesChanged } from '../../../hooks/use-company-changed';
import { createGraphQLMock, type GraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { BankingChangeControlQuery } from '../api/banking-control';
import {
  ChangeCompanyAssignments,
  type Company,
  CompanyQuery,
  ManagerChoicesQuery,
  UserChoicesQuery,
} from '../api/companies';
import { CompanyActivityAdded, CompanyActivityQuery } from '../api/company-activity';
import { CompanyDetailPage } from './company-detail-page';

// Radix measures the switch thumb; jsdom has no ResizeObserver.
vi.stubGlobal(
  'ResizeObserver',
  class {
    observe() {}
    unobserve() {}
    disconnect() {}
  },
);

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
afterEach(cleanup);

const LONG = 'Maximiliana Alexandrovna Featherstonehaugh-Cholmondeley';
const company: Company = {
  id: 7,
  name: 'Sunrise Bakery LLC',
  email: null,
  phone: null,
  website: null,
  address: null,
  description: null,
  industry: 'Retail',
  status: 'ACTIVE',
  isActive: true,
  qbRealmId: null,
  qbConnectionStatus: null,
  qbLastRefresh: null,
  qbPaymentAccountReference: null,
  managerId: 3,
  processorId: null,
  approverId: null,
  accountantId: null,
  manager: { id: 3, firstName: 'Maximiliana', lastName: 'Featherstonehaugh', email: 'max@example.com' },
  processor: null,
  approver: null,
  accountant: null,
  nachaConfigured: false,
  bankRoutingNumber: null,
  bankAccountNumber: null,
  bankAccountType: null,
  bankName: null,
  originatorStatusCode: null,
  companyTaxId: null,
  achCompanyId: null,
  immediateDestinationName: null,
  immediateOriginName: null,
  companyEntryDescription: null,
  companyDiscretionaryData: null,
  balancedFile: null,
  sameDayAch: false,
  bankConnection: {
    mode: 'manual',
    host: null,
    port: null,
    username: null,
    passwordSet: false,
    keySet: false,
    inbox: null,
    outbox: null,
    hostKeyFingerprint: null,
    windows: ['10:15', '14:30', '16:30'],
    lastCheck: null,
  },
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
};

function mock() {
  return createGraphQLMock()
    .on(CompanyQuery, { company })
    .on(ManagerChoicesQuery, {
      managers: {
        data: [{ id: 3, firstName: 'Maximiliana', lastName: 'Featherstonehaugh', email: 'max@example.com' }],
      },
    })
    .on(UserChoicesQuery, {
      users: {
        data: [
          {
            id: 9,
            firstName: LONG,
            lastName: null,
            email: 'a-very-long-address-indeed@accounts.example.com',
            role: 'USER',
            isActive: true,
          },
          {
            id: 10,
            firstName: 'Guest',
            lastName: null,
            email: 'g@example.com',
            role: 'GUEST',
            isActive: true,
          },
        ],
      },
    })
    .on(ChangeCompanyAssignments, { changeCompanyAssignments: { id: 7 } })
    .on(CompanyActivityQuery, { companyActivity: lines(2) })
    .on(BankingChangeControlQuery, { bankingChangeControl: { companyId: 7, enabled: true, flagDays: 30 } });
}

/** Activity lines of the company, newest first. */
const lines = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({
    id: `line-${from + i}`,
    type: 'ApprovalCreated',
    description: `Ada Admin created an approval for Sunrise Bakery LLC (1 bill, $${from + i + 1}.00)`,
    timestamp: '2026-11-20T10:00:00.000Z',
  }));

function open(gql: GraphQLMock) {
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/companies/7']}>
        <Routes>
          <Route path="/companies/:id" element={<CompanyDetailPage />} />
        </Routes>
      </MemoryRouter>
      <Toaster />
    </GraphQLTestProvider>,
  );
}

describe('CompanyDetailPage', () => {
  it('changes an assignment inline: sends it, says so, and re-reads the company', async () => {
    const gql = mock();
    open(gql);
    await screen.findByRole('heading', { name: 'Sunrise Bakery LLC', level: 1 });
    expect(gql.calls(CompanyQuery)).toEqual([{ id: 7 }]);
    const processor = screen.getByRole('combobox', { name: 'Processor' });
    await waitFor(() => expect((processor as HTMLButtonElement).disabled).toBe(false));
    const user = userEvent.setup();
    await user.click(processor);
    // Only ADMIN, MODERATOR and USER may hold a company role.
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual([
      'Unassigned',
      `${LONG} (a-very-long-address-indeed@accounts.example.com)`,
    ]);
    await user.click(options[1]);
    await screen.findByText('Processor updated');
    expect(gql.calls(ChangeCompanyAssignments)).toEqual([{ id: 7, input: { processorId: 9 } }]);
    // The write makes the company stale: it is read again through the cache.
    await waitFor(() => expect(gql.calls(CompanyQuery).length).toBeGreaterThanOrEqual(2));
  });

  it('cuts a long assignee inside its field and keeps the whole name in its title', async () => {
    const gql = mock().on(CompanyQuery, {
      company: {
        ...company,
        approverId: 9,
        approver: {
          id: 9,
          firstName: LONG,
          lastName: null,
          email: 'a-very-long-address-indeed@accounts.example.com',
        },
      },
    });
    open(gql);
    await screen.findByRole('heading', { name: 'Sunrise Bakery LLC', level: 1 });
    const approver = screen.getByTestId('assign-approverId-trigger');
    await waitFor(() =>
      expect(approver.getAttribute('title')).toBe(
        `${LONG} (a-very-long-address-indeed@accounts.example.com)`,
      ),
    );
    // The field may shrink (min-w-0) and its value ends in an ellipsis (truncate), so it never
    // pushes into the select beside it; the layout itself is measured in e2e/companies.e2e.test.ts.
    expect(approver.className).toMatch(/\bmin-w-0\b/);
    expect(approver.className).toMatch(/\[&>span\]:truncate/);
    expect(approver.closest('.grid')?.className).toMatch(/\bmin-w-0\b/);
  });

  it('re-reads the company when a push says it changed', async () => {
    const gql = mock();
    open(gql);
    await screen.findByRole('heading', { name: 'Sunrise Bakery LLC', level: 1 });
    await waitFor(() => expect(gql.subscribed(CompaniesChanged)).toBe(1));
    gql.on(CompanyQuery, { company: { ...company, name: 'Sunrise Bakery Inc' } });
    act(() => {
      gql.push(CompaniesChanged, { companyChanged: { id: 7, type: 'CompanyUpdated' } });
    });
    await screen.findByRole('heading', { name: 'Sunrise Bakery Inc', level: 1 });
  });

  it("shows the company's activity, newest first, and a pushed line re-reads it", async () => {
    const gql = mock();
    open(gql);
    const card = await screen.findByRole('group', { name: 'Recent Activity' });
    await waitFor(() =>
      expect(
        within(card)
          .getAllByTestId('company-activity-description')
          .map((e) => e.textContent),
      ).toEqual([
        'Ada Admin created an approval for Sunrise Bakery LLC (1 bill, $1.00)',
        'Ada Admin created an approval for Sunrise Bakery LLC (1 bill, $2.00)',
      ]),
    );
    expect(gql.calls(CompanyActivityQuery)).toEqual([{ companyId: 7, limit: 20 }]);
    expect(screen.queryByText('Activity timeline coming soon...')).toBeNull();
    expect(within(card).queryByRole('button', { name: 'Show more' })).toBeNull();
    await waitFor(() => expect(gql.subscribed(CompanyActivityAdded)).toBe(1));
    gql.on(CompanyActivityQuery, {
      companyActivity: [
        {
          id: 'line-new',
          type: 'ApprovalApproved',
          description: 'Mona Staff approved an approval for Sunrise Bakery LLC',
          timestamp: '2026-11-21T10:00:00.000Z',
        },
        ...lines(2),
      ],
    });
    act(() => {
      gql.push(CompanyActivityAdded, { activityAdded: { id: 'line-new' } });
    });
    await within(card).findByText('Mona Staff approved an approval for Sunrise Bakery LLC');
  });

  it('offers "Show more" when a page is full, and reads 20 more', async () => {
    const gql = mock().on(CompanyActivityQuery, { companyActivity: lines(20) });
    open(gql);
    const card = await screen.findByRole('group', { name: 'Recent Activity' });
    const more = await within(card).findByRole('button', { name: 'Show more' });
    gql.on(CompanyActivityQuery, { companyActivity: lines(25) });
    await userEvent.setup().click(more);
    await waitFor(() => expect(within(card).getAllByTestId('company-activity-description')).toHaveLength(25));
    expect(gql.calls(CompanyActivityQuery).at(-1)).toEqual({ companyId: 7, limit: 40 });
    expect(within(card).queryByRole('button', { name: 'Show more' })).toBeNull();
  });

  it('says when there is no activity yet', async () => {
    const gql = mock().on(CompanyActivityQuery, { companyActivity: [] });
    open(gql);
    const card = await screen.findByRole('group', { name: 'Recent Activity' });
    await within(card).findByText('No recent activity');
  });
});
