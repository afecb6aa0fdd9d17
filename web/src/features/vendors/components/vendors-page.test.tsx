// /vendors over GraphQL: 20 a page with the filters as variables, the company choices,
// the empty state's words, and vendorChanged pushes re-reading the page through the cache.
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VendorsChanged } from '../../../hooks/use-vendor-changed';
import { createGraphQLMock, type GraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { CompanyChoicesQuery, type Vendor, VendorsQuery } from '../api/vendors';
import { VendorsPage } from './vendors-page';

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
afterEach(cleanup);

const vendor = (id: number, name: string, more: Partial<Vendor> = {}): Vendor => ({
  id,
  name,
  companyId: 3,
  companyName: 'Sunrise Bakery',
  qbVendorId: String(id),
  email: null,
  phone: null,
  active: true,
  hasBankingInfo: false,
  routingNumber: null,
  accountNumber: null,
  accountType: null,
  bankName: null,
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
  qbSyncedAt: '2026-11-01T10:00:00.000Z',
  isUnmasked: false,
  bankingBlock: null,
  remittanceAdvice: true,
  ...more,
});

const page = (data: Vendor[]) => ({
  vendors: { data, total: data.length, page: 1, limit: 20, totalPages: 1 },
});

function open(gql: GraphQLMock) {
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter>
        <VendorsPage />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

describe('VendorsPage', () => {
  it('reads the page with the filters as variables and shows the masked account', async () => {
    const gql = createGraphQLMock()
      .on(CompanyChoicesQuery, {
        companies: { data: [{ id: 3, name: 'Sunrise Bakery', qbConnectionStatus: 'connected' }] },
      })
      .on(VendorsQuery, (v) =>
        page(
          v.hasBanking === true
            ? [
                vendor(2, 'Acme Paper', {
                  hasBankingInfo: true,
                  bankName: 'Chase',
                  accountType: 'checking',
                  accountNumber: '*****4321',
                }),
              ]
            : [vendor(1, 'Harbor Lumber', { email: 'ap@harbor.example' })],
        ),
      );
    open(gql);
    const row = await screen.findByTestId('vendor-row-1');
    expect(row.textContent).toContain('ap@harbor.example');
    expect(within(row).getByText('Missing Banking Info')).toBeTruthy();
    expect(
      within(row).getByRole('link', { name: 'Edit banking of Harbor Lumber' }).getAttribute('href'),
    ).toBe('/vendors/1/edit-banking');
    expect(gql.calls(VendorsQuery)[0]).toEqual({
      search: null,
      companyId: null,
      hasBanking: null,
      active: null,
      page: 1,
      limit: 20,
    });
    expect(gql.calls(CompanyChoicesQuery)).toEqual([{ limit: 1000 }]);

    const user = userEvent.setup();
    await user.click(screen.getByRole('combobox', { name: 'Banking' }));
    await user.click(await screen.findByRole('option', { name: 'Has banking' }));
    const banked = await screen.findByTestId('vendor-row-2');
    expect(banked.textContent).toContain('Checking *****4321');
    expect(gql.calls(VendorsQuery).at(-1)).toMatchObject({ hasBanking: true, page: 1 });
  });

  it('shows in red, on its row, a vendor the bank returned a payment for', async () => {
    const message = 'Payments blocked: R03 No account/unable to locate account — change the bank details';
    const gql = createGraphQLMock()
      .on(CompanyChoicesQuery, { companies: { data: [] } })
      .on(
        VendorsQuery,
        page([
          vendor(3, 'Returned Rugs', {
            hasBankingInfo: true,
            bankingBlock: {
              returnCode: 'R03',
              description: 'No account/unable to locate account',
              traceNumber: '011000010000001',
              since: '2026-12-06T10:00:00.000Z',
              message,
            },
          }),
          vendor(4, 'Paid Pottery', { hasBankingInfo: true }),
        ]),
      );
    open(gql);
    const row = await screen.findByTestId('vendor-row-3');
    expect(within(row).getByRole('alert').textContent).toBe(message);
    expect(within(await screen.findByTestId('vendor-row-4')).queryByRole('alert')).toBeNull();
  });

  it('says how to bring vendors in when there are none, and re-reads on a push', async () => {
    const gql = createGraphQLMock()
      .on(CompanyChoicesQuery, { companies: { data: [] } })
      .on(VendorsQuery, page([]));
    open(gql);
    await screen.findByText('No vendors found');
    expect(
      screen.getByText('Sync a connected company from QuickBooks to bring its vendors in.'),
    ).toBeTruthy();
    await waitFor(() => expect(gql.subscribed(VendorsChanged)).toBe(1));
    gql.on(VendorsQuery, page([vendor(5, 'New Vendor')]));
    act(() => {
      gql.push(VendorsChanged, { vendorChanged: { id: 5, type: 'VendorSynced' } });
    });
    await screen.findByTestId('vendor-row-5');
  });
});
