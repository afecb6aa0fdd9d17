// The banking form over GraphQL: the vendor read, the form's messages, what is sent, and
// one message a field — an empty account number or a server refusal never shows twice (a field carries one message at a time);
// a change held for a second look is said to be held, not updated.
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { UpdateVendorBanking, VendorQuery } from '../api/vendors';
import { sampleChange, sampleVendor } from '../testing/sample-vendor';
import { VendorEditBankingPage } from './vendor-edit-banking-page';

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => resetToasts());
afterEach(cleanup);

const vendor = sampleVendor({
  email: null,
  hasBankingInfo: false,
  routingNumber: null,
  accountNumber: null,
  accountType: null,
  bankName: null,
});

function open(gql: GraphQLMock) {
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/vendors/12/edit-banking']}>
        <Routes>
          <Route path="/vendors/:id/edit-banking" element={<VendorEditBankingPage />} />
          <Route path="/vendors/:id" element={<h1>Vendor page</h1>} />
        </Routes>
      </MemoryRouter>
      <Toaster />
    </GraphQLTestProvider>,
  );
}

describe('VendorEditBankingPage', () => {
  it('gives an empty account number one message and sends nothing', async () => {
    const gql = createGraphQLMock().on(VendorQuery, { vendor });
    open(gql);
    await screen.findByRole('heading', { name: 'Harbor Lumber' });
    expect(gql.calls(VendorQuery)).toEqual([{ id: 12 }]);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Routing Number'), '021000021');
    await user.click(screen.getByRole('button', { name: 'Save Banking Information' }));
    expect(screen.getAllByText(/Account number/).map((e) => e.textContent)).toEqual([
      'Account number is required',
    ]);
    expect(screen.getByLabelText('Account Number').getAttribute('aria-invalid')).toBe('true');
    expect(gql.calls(UpdateVendorBanking)).toEqual([]);
  });

  it('shows a refusal that names its field at the field only, not again in a toast', async () => {
    const gql = createGraphQLMock()
      .on(VendorQuery, { vendor })
      .on(
        UpdateVendorBanking,
        gqlError('Routing number is not valid (check digit)', {
          fieldErrors: [{ field: 'routingNumber', message: 'Routing number is not valid (check digit)' }],
        }),
      );
    open(gql);
    await screen.findByRole('heading', { name: 'Harbor Lumber' });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Routing Number'), '021000022');
    await user.type(screen.getByLabelText('Account Number'), '000987654321');
    await user.click(screen.getByRole('button', { name: 'Save Banking Information' }));
    await waitFor(() =>
      expect(document.getElementById('routingNumber-error')?.textContent).toBe(
        'Routing number is not valid (check digit)',
      ),
    );
    expect(screen.getAllByText('Routing number is not valid (check digit)')).toHaveLength(1);
    expect(gql.calls(UpdateVendorBanking)).toEqual([
      {
        id: 12,
        input: {
          routingNumber: '021000022',
          accountNumber: '000987654321',
          accountType: 'checking',
          bankName: null,
        },
      },
    ]);
  });

  it('saves, says so and goes back to the vendor', async () => {
    const gql = createGraphQLMock()
      .on(VendorQuery, { vendor })
      .on(UpdateVendorBanking, { updateVendorBanking: { id: 12, pendingBankingChange: null } });
    open(gql);
    await screen.findByRole('heading', { name: 'Harbor Lumber' });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Routing Number'), '021000021');
    await user.type(screen.getByLabelText('Account Number'), '000987654321');
    await user.type(screen.getByLabelText('Bank Name (optional)'), ' Chase ');
    await user.click(screen.getByRole('button', { name: 'Save Banking Information' }));
    await screen.findByRole('heading', { name: 'Vendor page' });
    await screen.findByText('Banking information updated successfully');
    expect(gql.calls(UpdateVendorBanking)).toEqual([
      {
        id: 12,
        input: {
          routingNumber: '021000021',
          accountNumber: '000987654321',
          accountType: 'checking',
          bankName: 'Chase',
        },
      },
    ]);
  });

  it('says a held change is held, not updated', async () => {
    const gql = createGraphQLMock()
      .on(VendorQuery, { vendor })
      .on(UpdateVendorBanking, {
        updateVendorBanking: { id: 12, pendingBankingChange: sampleChange({ previousAccountNumber: null }) },
      });
    open(gql);
    await screen.findByRole('heading', { name: 'Harbor Lumber' });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Routing Number'), '021000021');
    await user.type(screen.getByLabelText('Account Number'), '66666666666');
    await user.click(screen.getByRole('button', { name: 'Save Banking Information' }));
    await screen.findByRole('heading', { name: 'Vendor page' });
    await screen.findByText(
      'Bank details change saved: it goes live once another ADMIN or MODERATOR approves it, or the vendor confirms the micro-deposits',
    );
    expect(screen.queryByText('Banking information updated successfully')).toBeNull();
  });

  it('says a change already waits for approval, and that saving replaces it', async () => {
    const gql = createGraphQLMock().on(VendorQuery, {
      vendor: sampleVendor({ pendingBankingChange: sampleChange() }),
    });
    open(gql);
    await screen.findByRole('heading', { name: 'Harbor Lumber' });
    expect(screen.getByRole('note').textContent).toBe(
      'A change to account *******6666 is waiting for approval. Saving new details replaces it, and the new change waits for approval in turn.',
    );
  });
});
