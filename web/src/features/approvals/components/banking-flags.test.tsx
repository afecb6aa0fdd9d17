// Bank detail changes where money is decided: the list row's and candidate's marker (the worst flag,
// every message in its title), the detail's banner naming each vendor, who changed it and when, and
// who must act; once approved, the vendors the file holds out with the server's reason, and Approve
// Again for staff when the API offers it (the new tails shown first, the server's message after).
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
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
import type { Role } from '../../../types/api';
import { type Approval, ApprovalHistoryQuery, ApprovalQuery, type BankingFlag } from '../api/approvals';
import { ApproveBankingAgain } from '../api/payments';
import { ID, sampleApproval } from '../testing/sample-approval';
import { ApprovalDetailPage } from './approval-detail-page';
import { BankingFlagMarker } from './banking-flags';

const flag = (over: Partial<BankingFlag> = {}): BankingFlag => ({
  kind: 'PENDING_CHANGE',
  vendorId: 31,
  qbVendorId: '56',
  vendorName: 'Harbor Lumber',
  changeId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  source: 'FORM',
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
  awaiting:
    'An ADMIN or MODERATOR other than Mia Maker must approve or reject it, or the vendor confirm the micro-deposits',
  message: 'Harbor Lumber: bank details change pending (account *******1004 → *******6666) by Mia Maker',
  ...over,
});

const recent = flag({
  kind: 'RECENT_CHANGE',
  vendorId: 32,
  qbVendorId: '57',
  vendorName: 'Birch Paper',
  changeId: '11111111-2222-4333-8444-555555555555',
  source: 'CSV',
  liveAt: '2026-12-04T11:00:00.000Z',
  verifiedBy: 'second-person',
  verifiedByName: 'Cody Checker',
  flaggedUntil: '2027-01-03T11:00:00.000Z',
  awaiting: null,
  message: 'Birch Paper: bank details changed on Dec 4 by Mia Maker, approved by Cody Checker',
});

let gql: GraphQLMock;
const signIn = (role: Role) => sessionStore.setUser({ ...sampleUser, role });

function open(approval: Approval) {
  gql.on(ApprovalQuery, { approval });
  gql.on(ApprovalHistoryQuery, { approvalHistory: [] });
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={[`/approvals/${ID}`]}>
        <Routes>
          <Route path="/approvals/:id" element={<ApprovalDetailPage />} />
        </Routes>
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
  signIn('MODERATOR');
});
afterEach(() => {
  cleanup();
  resetToasts();
});

describe('BankingFlagMarker', () => {
  it('says the worst flag in a line, with every message in its title', () => {
    render(<BankingFlagMarker flags={[recent, flag()]} testId="marker" />);
    const marker = screen.getByTestId('marker');
    expect(marker.querySelector('.font-medium')?.textContent).toBe('Bank change pending: 2 vendors');
    expect(marker.getAttribute('title')).toBe(`${flag().message}\n${recent.message}`);
  });

  it('names the one vendor, and shows nothing without a flag', () => {
    const { rerender } = render(<BankingFlagMarker flags={[recent]} testId="marker" />);
    expect(screen.getByTestId('marker').querySelector('.font-medium')?.textContent).toBe(
      'Bank details changed: Birch Paper',
    );
    rerender(<BankingFlagMarker flags={[]} testId="marker" />);
    expect(screen.queryByTestId('marker')).toBeNull();
  });
});

describe('the approval detail', () => {
  it('names each flagged vendor, who changed it and when, how it went live, and who must act', async () => {
    open(sampleApproval({ bankingFlags: [recent, flag()] }));
    const banner = await screen.findByTestId('banking-flags');
    expect(within(banner).getByText(/waits for a second look: its payment is held/)).toBeTruthy();
    const pending = within(banner).getByTestId('banking-flag-31-pending-change');
    expect(pending.textContent).toMatch(
      /^Harbor Lumber: Bank change pending account \*+1004 → \*+6666, changed by Mia Maker on .+ through the banking form\./,
    );
    expect(
      within(pending).getByText(/^Who must act: An ADMIN or MODERATOR other than Mia Maker/),
    ).toBeTruthy();
    expect(
      within(pending).getByRole('link', { name: 'Open Harbor Lumber’s bank details' }).getAttribute('href'),
    ).toBe('/vendors/31');
    const live = within(banner).getByTestId('banking-flag-32-recent-change');
    expect(live.textContent).toMatch(
      /through a CSV import; approved by Cody Checker on .+\. Flagged until .+\./,
    );
    expect(within(live).queryByText(/Who must act/)).toBeNull();
  });

  it('names a vendor the file holds out, and approves its new bank details again after showing them', async () => {
    const held = sampleApproval({
      status: 'NACHA_GENERATED',
      bankingToApproveAgain: true,
      bankingReview: [
        {
          qbVendorId: '56',
          vendorName: 'Harbor Lumber',
          state: 'CHANGED',
          approvedRoutingNumber: '*****0025',
          approvedAccountNumber: '*******1004',
          liveRoutingNumber: '*****0021',
          liveAccountNumber: '*******6666',
          message: 'Harbor Lumber: bank details changed after approval: approve again',
        },
        {
          qbVendorId: '57',
          vendorName: 'Birch Paper',
          state: 'AS_APPROVED',
          approvedRoutingNumber: '*****0015',
          approvedAccountNumber: '*******2005',
          liveRoutingNumber: '*****0015',
          liveAccountNumber: '*******2005',
          message: null,
        },
      ],
    });
    gql.on(ApproveBankingAgain, {
      approveBankingAgain: {
        message: 'Approved again: Harbor Lumber (account ****6666). Regenerate makes a file that pays it',
        approval: { id: ID, status: 'NACHA_GENERATED' },
      },
    });
    open(held);
    const review = await screen.findByTestId('banking-review');
    // Only the vendor held out is listed.
    expect(within(review).queryByText('Birch Paper')).toBeNull();
    const row = within(review).getByTestId('banking-review-56');
    expect(within(row).getByText('Changed after approval')).toBeTruthy();
    expect(within(row).getByText('Approved: routing *****0025, account *******1004')).toBeTruthy();
    expect(within(row).getByText('Now: routing *****0021, account *******6666')).toBeTruthy();
    expect(
      within(row).getByText('Harbor Lumber: bank details changed after approval: approve again'),
    ).toBeTruthy();

    const user = userEvent.setup();
    await user.click(within(review).getByRole('button', { name: 'Approve Again' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve Bank Details Again' });
    expect(within(dialog).getByTestId('approve-again-vendors').textContent).toBe(
      'Harbor Lumber: routing *****0021, account *******6666 (was routing *****0025, account *******1004)',
    );
    expect(gql.calls(ApproveBankingAgain)).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Approve Again' }));
    await screen.findByText(
      'Approved again: Harbor Lumber (account ****6666). Regenerate makes a file that pays it',
    );
    expect(gql.calls(ApproveBankingAgain)).toEqual([{ id: ID }]);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it("shows the server's refusal, and offers no Approve Again where the API does not", async () => {
    const review = {
      qbVendorId: '56',
      vendorName: 'Harbor Lumber',
      state: 'PENDING' as const,
      approvedRoutingNumber: '*****0025',
      approvedAccountNumber: '*******1004',
      liveRoutingNumber: '*****0025',
      liveAccountNumber: '*******1004',
      message:
        'Harbor Lumber: bank details change pending: held until an ADMIN or MODERATOR other than its maker approves or rejects it',
    };
    open(
      sampleApproval({ status: 'NACHA_GENERATED', bankingToApproveAgain: false, bankingReview: [review] }),
    );
    const card = await screen.findByTestId('banking-review');
    expect(within(card).getByText('Change pending')).toBeTruthy();
    expect(within(card).queryByRole('button', { name: 'Approve Again' })).toBeNull();
    cleanup();

    gql = createGraphQLMock().on(
      ApproveBankingAgain,
      gqlError('The creator of an approval may not approve it', { code: 'FORBIDDEN' }),
    );
    open(
      sampleApproval({
        status: 'NACHA_GENERATED',
        bankingToApproveAgain: true,
        bankingReview: [{ ...review, state: 'CHANGED', liveAccountNumber: '*******6666' }],
      }),
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve Again' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Approve Again' }));
    await screen.findByText('The creator of an approval may not approve it');
    expect(screen.getByRole('dialog')).toBeTruthy();
  });

  it('offers Approve Again to staff only', async () => {
    signIn('USER');
    open(
      sampleApproval({
        status: 'NACHA_GENERATED',
        bankingToApproveAgain: true,
        bankingReview: [
          {
            qbVendorId: '56',
            vendorName: 'Harbor Lumber',
            state: 'CHANGED',
            approvedRoutingNumber: '*****0025',
            approvedAccountNumber: '*******1004',
            liveRoutingNumber: '*****0021',
            liveAccountNumber: '*******6666',
            message: 'Harbor Lumber: bank details changed after approval: approve again',
          },
        ],
      }),
    );
    const card = await screen.findByTestId('banking-review');
    expect(within(card).queryByRole('button', { name: 'Approve Again' })).toBeNull();
  });
});
