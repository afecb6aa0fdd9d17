// /companies over GraphQL: the page read with its filters, the row menu's
// writes and their texts, and a push re-reading the list through the cache.
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { CompaniesChanged } from '../../../hooks/use-company-changed';
import { createGraphQLMock, type GraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { CompaniesQuery, type Company, DeactivateCompany } from '../api/companies';
import { CompaniesPage } from './companies-page';

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
afterEach(cleanup);

const base = {
  email: null,
  phone: null,
  website: null,
  address: null,
  description: null,
  status: 'ACTIVE',
  isActive: true,
  qbRealmId: null,
  qbConnectionStatus: null,
  qbLastRefresh: null,
  qbPaymentAccountReference: null,
  managerId: null,
  processorId: null,
  approverId: null,
  accountantId: null,
  manager: null,
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
  createdAt: '2026-01-05T10:00:00.000Z',
  updatedAt: '2026-01-05T10:00:00.000Z',
} satisfies Omit<Company, 'id' | 'name' | 'industry'>;

const rows: Company[] = [
  { ...base, id: 1, name: 'Sunrise Bakery', industry: 'Retail', email: 'hi@sunrise.example' },
  {
    ...base,
    id: 2,
    name: 'Pinecrest Dental',
    industry: null,
    qbRealmId: '9130',
    qbConnectionStatus: 'error',
  },
];

function page(data: Company[]) {
  return { companies: { data, total: data.length, page: 1, limit: 10, totalPages: 1 } };
}

function open(gql: GraphQLMock) {
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter>
        <CompaniesPage />
      </MemoryRouter>
      <Toaster />
    </GraphQLTestProvider>,
  );
}

describe('CompaniesPage', () => {
  it('lists a page with its columns and reads again with the search', async () => {
    const gql = createGraphQLMock().on(CompaniesQuery, (v) =>
      page(v.search ? rows.filter((c) => c.name.includes(v.search as string)) : rows),
    );
    open(gql);
    const first = await screen.findByTestId('company-row-1');
    expect(within(first).getByRole('link', { name: 'Sunrise Bakery' }).getAttribute('href')).toBe(
      '/companies/1',
    );
    expect(first.textContent).toContain('hi@sunrise.example');
    expect(first.textContent).toContain('Jan 05, 2026');
    expect(within(screen.getByTestId('company-row-2')).getByText('Error')).toBeTruthy();
    expect(within(screen.getByTestId('company-row-2')).getAllByText('N/A')).toHaveLength(2);
    expect(gql.calls(CompaniesQuery)[0]).toEqual({
      search: null,
      status: null,
      qbConnectionStatus: null,
      page: 1,
      limit: 10,
    });

    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Filters' }));
    await user.type(screen.getByLabelText('Search'), 'Pine');
    await waitFor(() => expect(screen.queryByTestId('company-row-1')).toBeNull());
    expect(gql.calls(CompaniesQuery).at(-1)).toMatchObject({ search: 'Pine', page: 1 });
  });

  it('deactivates from the row menu with the REST text, and a push re-reads the list', async () => {
    const gql = createGraphQLMock()
      .on(CompaniesQuery, page(rows))
      .on(DeactivateCompany, { deactivateCompany: { id: 1 } });
    open(gql);
    await screen.findByTestId('company-row-1');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Actions for Sunrise Bakery' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Deactivate' }));
    await screen.findByText('Company deactivated successfully');
    expect(gql.calls(DeactivateCompany)).toEqual([{ id: 1 }]);

    await waitFor(() => expect(gql.subscribed(CompaniesChanged)).toBe(1));
    gql.on(CompaniesQuery, page([{ ...rows[0], name: 'Sunrise Bakery Inc' }]));
    act(() => {
      gql.push(CompaniesChanged, { companyChanged: { id: 1, type: 'CompanyUpdated' } });
    });
    await screen.findByRole('link', { name: 'Sunrise Bakery Inc' });
  });
});
