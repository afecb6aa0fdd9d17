// The vendor's page with a held change of its bank details: said plainly (the last four digits before
// and after, source, maker and when, who must act), Approve and Reject with a reason for the roles
// that decide, Approve not offered to the maker, the server's refusal shown as it words it; the list
// of every change; the history as the server words it.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { sessionStore } from '../../../lib/session-store';
import { captureDownloads } from '../../../testing/downloads';
import { mockFetch, sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import type { Role } from '../../../types/api';
import {
  ApproveVendorBankingChange,
  RejectVendorBankingChange,
  SetVendorRemittanceAdvice,
  StartVendorMicroDeposits,
  VendorBankingChangesQuery,
  VendorHistoryQuery,
  VendorQuery,
} from '../api/vendors';
import { sampleChange, sampleVendor } from '../testing/sample-vendor';
import { VendorDetailPage } from './vendor-detail-page';

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => {
  resetToasts();
  sessionStore.clear();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const MAKER = 41;
const signIn = (role: Role, id = 7) => sessionStore.setUser({ ...sampleUser, id, role });

const pending = sampleChange();
const approved = sampleChange({
  changeId: '11111111-2222-4333-8444-555555555555',
  status: 'approved',
  source: 'csv',
  routingNumber: '*****0025',
  accountNumber: '*******1004',
  previousRoutingNumber: null,
  previousAccountNumber: null,
  requestedByName: 'Uma User',
  requestedAt: '2026-11-20T09:00:00.000Z',
  decidedById: 7,
  decidedByName: 'Ada Admin',
  decidedAt: '2026-11-20T10:00:00.000Z',
  verifiedBy: 'second-person',
  reason: 'Called the vendor on the number we had',
  awaiting: null,
});

function mock(vendor = sampleVendor({ pendingBankingChange: pending })) {
  return createGraphQLMock()
    .on(VendorQuery, { vendor })
    .on(VendorBankingChangesQuery, { vendorBankingChanges: [pending, approved] })
    .on(VendorHistoryQuery, {
      vendorHistory: [
        {
          action: 'Bank details change held for approval',
          at: '2026-12-05T15:30:00.000Z',
          userId: MAKER,
          userName: 'Morgan Moderator',
          details:
            'From the banking form; account ending 1004 → account ending 6666 (checking); routing ending 0021',
        },
      ],
    });
}

function open(gql: GraphQLMock) {
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/vendors/12']}>
        <Routes>
          <Route path="/vendors/:id" element={<VendorDetailPage />} />
        </Routes>
      </MemoryRouter>
      <Toaster />
    </GraphQLTestProvider>,
  );
}

describe('VendorDetailPage: the bank’s answers', () => {
  it('says in red that payments are blocked after a return, why and since when', async () => {
    signIn('ADMIN');
    open(
      mock(
        sampleVendor({
          bankingBlock: {
            returnCode: 'R03',
            description: 'No account/unable to locate account',
            traceNumber: '011000010000001',
            since: '2026-12-06T10:00:00.000Z',
            message: 'Payments blocked: R03 No account/unable to locate account — change the bank details',
          },
        }),
      ),
    );
    const alert = await screen.findByText(/^Payments blocked: R03/);
    expect(alert.closest('[role="alert"]')?.textContent).toMatch(
      /^Payments blocked: R03 No account\/unable to locate account — change the bank detailsSince .+: no NACHA file pays this vendor\.$/,
    );
  });

  it('offers a MODERATOR no Approve of a bank’s notification of change, and no micro-deposit check', async () => {
    signIn('MODERATOR');
    const noc = sampleChange({
      source: 'noc',
      requestedById: null,
      requestedByName: null,
      contactNotice: null,
      awaiting: "The bank's notification of change: an ADMIN must approve or reject it",
    });
    open(mock(sampleVendor({ pendingBankingChange: noc })));
    const held = await screen.findByTestId('pending-banking-change');
    expect(within(held).getByText('Notification of change')).toBeTruthy();
    expect(within(held).getByText(/^The system · /)).toBeTruthy();
    expect(within(held).queryByRole('button', { name: 'Approve Change' })).toBeNull();
    expect(within(held).getByRole('button', { name: 'Reject Change' })).toBeTruthy();
    expect(within(held).queryByRole('button', { name: /micro-deposit/i })).toBeNull();
  });
});

describe('VendorDetailPage: a held bank details change', () => {
  it('says it plainly and offers Approve and Reject to another MODERATOR', async () => {
    signIn('MODERATOR');
    open(mock());
    const held = await screen.findByTestId('pending-banking-change');
    expect(within(held).getByRole('heading', { name: 'Bank details change pending approval' })).toBeTruthy();
    expect(within(held).getByTestId('pending-account').textContent).toBe('*******1004 → *******6666');
    expect(within(held).getByTestId('pending-routing').textContent).toBe('*****0025 → *****0021');
    expect(within(held).getByText('Banking form')).toBeTruthy();
    expect(within(held).getByText(/^Morgan Moderator · /)).toBeTruthy();
    expect(within(held).getByTestId('pending-awaiting').textContent).toBe(
      'An ADMIN or MODERATOR other than Morgan Moderator must approve or reject it, or the vendor confirm the micro-deposits',
    );
    expect(within(held).getByRole('button', { name: 'Approve Change' })).toBeTruthy();
    expect(within(held).getByRole('button', { name: 'Reject Change' })).toBeTruthy();
    // The live numbers stay the ones paid.
    expect(screen.getByTestId('account-number').textContent).toBe('*******1004');
  });

  it('does not offer Approve to its maker, who may still reject it', async () => {
    signIn('MODERATOR', MAKER);
    open(mock());
    const held = await screen.findByTestId('pending-banking-change');
    expect(within(held).queryByRole('button', { name: 'Approve Change' })).toBeNull();
    expect(within(held).getByRole('button', { name: 'Reject Change' })).toBeTruthy();
    expect(within(held).getByText(/You made this change/)).toBeTruthy();
  });

  it('offers a frozen change only for rejection, and says why it is frozen', async () => {
    signIn('ADMIN');
    open(
      mock(
        sampleVendor({
          pendingBankingChange: sampleChange({
            status: 'frozen',
            awaiting: "The vendor's contact reported it as not theirs: an ADMIN or MODERATOR must reject it",
          }),
        }),
      ),
    );
    const held = await screen.findByTestId('pending-banking-change');
    expect(within(held).getByRole('heading', { name: 'Bank details change frozen' })).toBeTruthy();
    expect(within(held).queryByRole('button', { name: 'Approve Change' })).toBeNull();
    expect(within(held).getByRole('button', { name: 'Reject Change' })).toBeTruthy();
  });

  it('approves with a reason, and re-reads the vendor and its changes', async () => {
    signIn('MODERATOR');
    const gql = mock().on(ApproveVendorBankingChange, {
      approveVendorBankingChange: { id: 12, pendingBankingChange: null },
    });
    open(gql);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve Change' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve Bank Details Change' });
    const submit = within(dialog).getByRole('button', { name: 'Approve Change' });
    expect((submit as HTMLButtonElement).disabled).toBe(true);
    await user.type(within(dialog).getByLabelText('Reason *'), 'Confirmed by phone with the known contact');
    const reads = gql.calls(VendorQuery).length;
    await user.click(submit);
    await screen.findByText('Bank details change approved: it is live');
    expect(gql.calls(ApproveVendorBankingChange)).toEqual([
      { id: 12, changeId: pending.changeId, reason: 'Confirmed by phone with the known contact' },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(gql.calls(VendorQuery).length).toBeGreaterThan(reads));
    expect(gql.calls(VendorBankingChangesQuery).length).toBeGreaterThanOrEqual(2);
  });

  it("shows the server's refusal as it words it and keeps the dialog open", async () => {
    signIn('ADMIN');
    const gql = mock().on(
      ApproveVendorBankingChange,
      gqlError('A bank detail change must be approved by someone other than its maker', {
        code: 'FORBIDDEN',
      }),
    );
    open(gql);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve Change' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Reason *'), 'Looks right');
    await user.click(within(dialog).getByRole('button', { name: 'Approve Change' }));
    await screen.findByText('A bank detail change must be approved by someone other than its maker');
    expect(screen.getByRole('dialog')).toBeTruthy();
  });

  it('rejects with a reason', async () => {
    signIn('MODERATOR', MAKER);
    const gql = mock().on(RejectVendorBankingChange, {
      rejectVendorBankingChange: { id: 12, pendingBankingChange: null },
    });
    open(gql);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reject Change' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject Bank Details Change' });
    await user.type(within(dialog).getByLabelText('Reason *'), 'Typed the wrong account');
    await user.click(within(dialog).getByRole('button', { name: 'Reject Change' }));
    await screen.findByText('Bank details change rejected');
    expect(gql.calls(RejectVendorBankingChange)).toEqual([
      { id: 12, changeId: pending.changeId, reason: 'Typed the wrong account' },
    ]);
  });

  it('lists every bank detail change with how it ended, and the history as the server words it', async () => {
    signIn('MODERATOR');
    open(mock());
    const list = await screen.findByTestId('banking-changes');
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(within(items[0]).getByText('Pending approval')).toBeTruthy();
    expect(within(items[0]).getByText('*******1004 → *******6666')).toBeTruthy();
    expect(within(items[0]).getByText(/^An ADMIN or MODERATOR other than Morgan Moderator/)).toBeTruthy();
    expect(within(items[1]).getByText('Approved')).toBeTruthy();
    expect(within(items[1]).getByText('None → *******1004')).toBeTruthy();
    expect(within(items[1]).getByText(/^CSV import · by Uma User · /)).toBeTruthy();
    expect(
      within(items[1]).getByText(/^Approved by Ada Admin · .* · “Called the vendor on the number we had”$/),
    ).toBeTruthy();
    const history = await screen.findByTestId('vendor-history');
    expect(within(history).getByText('Bank details change held for approval')).toBeTruthy();
    expect(within(history).getByText(/account ending 1004 → account ending 6666/)).toBeTruthy();
  });

  it('shows no held change, and no buttons, when there is none', async () => {
    signIn('ADMIN');
    open(mock(sampleVendor()).on(VendorBankingChangesQuery, { vendorBankingChanges: [] }));
    await screen.findByText('No bank detail changes yet');
    expect(screen.queryByTestId('pending-banking-change')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Approve Change' })).toBeNull();
  });

  it('says the vendor was told, and sends micro-deposits after asking', async () => {
    signIn('MODERATOR');
    const sent = sampleChange({
      microDeposits: {
        verificationId: 'v-1',
        status: 'sent',
        triesLeft: 3,
        fileName: 'ACH_20261207_9_PENNY.txt',
        effectiveDate: '2026-12-07',
        sentAt: '2026-12-06T10:00:00.000Z',
        expiresAt: '2026-12-20T10:00:00.000Z',
        startedById: 7,
        startedByName: 'Ada Admin',
        fileUrl: '/api/vendors/12/banking-changes/x/micro-deposits/file',
        linkUndelivered: false,
      },
    });
    let current = pending;
    const gql = mock()
      .on(VendorQuery, () => ({ vendor: sampleVendor({ pendingBankingChange: current }) }))
      .on(StartVendorMicroDeposits, () => {
        current = sent;
        return { startVendorMicroDeposits: { id: 12, pendingBankingChange: sent } };
      });
    open(gql);
    const held = await screen.findByTestId('pending-banking-change');
    expect(within(held).getByTestId('contact-notice').textContent).toMatch(
      /^The vendor’s e-mail on record before the change was told/,
    );
    const user = userEvent.setup();
    await user.click(within(held).getByRole('button', { name: 'Send Micro-Deposits' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(
      within(confirm).getByText(/Two credits under \$1\.00 go to Harbor Lumber’s new account \(\*+6666\)/),
    ).toBeTruthy();
    await user.click(within(confirm).getByRole('button', { name: 'Send Micro-Deposits' }));
    await screen.findByText(/^Micro-deposit check started: download its file for the bank/);
    expect(gql.calls(StartVendorMicroDeposits)).toEqual([{ id: 12, changeId: pending.changeId }]);
    // Re-read: its state, and the file to upload (never the amounts).
    await within(held).findByText('Micro-deposits: Sent: waiting for the vendor to enter the amounts');
    expect(
      within(held).getByText(/Started by Ada Admin · .* · credits from 2026-12-07 · 3 tries left/),
    ).toBeTruthy();
    expect(within(held).queryByRole('button', { name: /^Send Micro-Deposits/ })).toBeNull();

    const { calls } = mockFetch(
      () =>
        new Response('101 ...', {
          status: 200,
          headers: { 'content-disposition': 'attachment; filename="ACH_20261207_9_PENNY.txt"' },
        }),
    );
    const saved = captureDownloads();
    await user.click(within(held).getByRole('button', { name: 'Download Micro-Deposit File' }));
    await screen.findByText('Micro-deposit file download started');
    expect(calls.map((c) => c.url)).toEqual(['/api/vendors/12/banking-changes/x/micro-deposits/file']);
    expect(saved).toEqual(['ACH_20261207_9_PENNY.txt']);
  });

  it('says nobody could be told when the vendor had no e-mail, and offers no micro-deposits', async () => {
    signIn('ADMIN');
    open(mock(sampleVendor({ pendingBankingChange: sampleChange({ contactNotice: 'no-contact' }) })));
    const held = await screen.findByTestId('pending-banking-change');
    expect(within(held).getByTestId('contact-notice').textContent).toMatch(
      /^The vendor had no e-mail on record/,
    );
    expect(within(held).queryByRole('button', { name: /Send Micro-Deposits/ })).toBeNull();
    expect(within(held).getByRole('button', { name: 'Approve Change' })).toBeTruthy();
  });

  it('warns when the notice or the micro-deposit link was not delivered, with what to do', async () => {
    signIn('MODERATOR');
    open(
      mock(
        sampleVendor({
          pendingBankingChange: sampleChange({
            contactNotice: 'undelivered',
            microDeposits: {
              verificationId: 'v-2',
              status: 'sent',
              triesLeft: 3,
              fileName: 'ACH_20261207_9_PENNY.txt',
              effectiveDate: '2026-12-07',
              sentAt: '2026-12-06T10:00:00.000Z',
              expiresAt: '2026-12-20T10:00:00.000Z',
              startedById: 7,
              startedByName: 'Ada Admin',
              fileUrl: '/api/vendors/12/banking-changes/x/micro-deposits/file',
              linkUndelivered: true,
            },
          }),
        }),
      ),
    );
    const held = await screen.findByTestId('pending-banking-change');
    const [notice, link] = within(held).getAllByRole('alert');
    expect(notice.textContent).toMatch(
      /^The notice to the vendor’s e-mail on record was not delivered: the vendor may not know of this change/,
    );
    expect(link.textContent).toMatch(/^The e-mail with the vendor’s micro-deposit link was not delivered/);
    expect(link.getAttribute('data-testid')).toBe('micro-deposit-link-undelivered');
  });
});

describe('VendorDetailPage: remittance advice', () => {
  it('lets staff turn it off, re-reading the vendor, and says what the vendor is then no longer told', async () => {
    signIn('MODERATOR');
    const gql = mock(sampleVendor()).on(SetVendorRemittanceAdvice, {
      setVendorRemittanceAdvice: { id: 12, remittanceAdvice: false },
    });
    open(gql);
    const user = userEvent.setup();
    const toggle = await screen.findByRole('switch', { name: 'Send remittance advice' });
    expect(toggle.getAttribute('aria-checked')).toBe('true');
    expect(screen.getByText(/its e-mail on record is told the amount, the bills paid/)).toBeTruthy();
    const reads = gql.calls(VendorQuery).length;
    await user.click(toggle);
    await screen.findByText('Remittance advice turned off');
    expect(gql.calls(SetVendorRemittanceAdvice)).toEqual([{ id: 12, enabled: false }]);
    await waitFor(() => expect(gql.calls(VendorQuery).length).toBeGreaterThan(reads));
  });

  it('shows a vendor turned off, and one without an e-mail, as they are; a USER cannot change it', async () => {
    signIn('USER');
    open(mock(sampleVendor({ remittanceAdvice: false })));
    const toggle = await screen.findByRole('switch', { name: 'Send remittance advice' });
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    expect((toggle as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/^Off: the vendor is not told/)).toBeTruthy();
    cleanup();
    signIn('ADMIN');
    open(mock(sampleVendor({ email: null })));
    await screen.findByText(/no e-mail on record in QuickBooks: nobody is told/);
  });
});
