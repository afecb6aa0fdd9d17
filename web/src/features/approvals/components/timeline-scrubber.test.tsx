// The timeline scrubber on the approval detail in jsdom against the typed fake GraphQL server: staff
// open it at now, step back with Previous, the slider and the keyboard, and see the cards as they
// were (status, approved bills, actions gone) under a "Viewing as of … · step n of m" banner; erased
// fields are named; "Back to now" shows the approval as it is; a USER is offered none of it.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionStore } from '../../../lib/session-store';
import { sampleUser } from '../../../testing/fetch-mock';
import { createGraphQLMock, type GraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { ApprovalHistoryQuery, ApprovalQuery } from '../api/approvals';
import { ID, sampleApproval } from '../testing/sample-approval';
import { ApprovalDetailPage } from './approval-detail-page';
import { ApprovalAsOfQuery, stepLabel } from './timeline-scrubber';

const detail = sampleApproval;

const steps = [
  {
    position: '00000000000000000010:00000000000000000010',
    at: '2026-11-20T10:00:00.000Z',
    type: 'ApprovalCreated',
  },
  {
    position: '00000000000000000020:00000000000000000020',
    at: '2026-11-21T10:00:00.000Z',
    type: 'ApprovalUpdated',
  },
  {
    position: '00000000000000000030:00000000000000000030',
    at: '2026-11-22T10:00:00.000Z',
    type: 'ApprovalApproved',
  },
];
const bill = {
  id: '1',
  docNumber: 'INV-1',
  txnDate: '2026-11-01',
  dueDate: '2026-12-01',
  totalAmt: 250,
  balance: 250,
  currency: 'USD',
  vendorQbId: '55',
  vendorName: 'Acme Paper',
  vendorCompanyName: 'Acme Paper',
  vendorEmail: null,
  vendorPhone: null,
  vendorAddress: null,
  lines: [],
  attachableId: null,
  invoiceFileName: null,
  invoiceAvailable: false,
  achStatus: {
    hasBankingInfo: false,
    vendorId: null,
    bankName: null,
    accountType: null,
    routingNumber: null,
    accountNumber: null,
  },
};
const approved = detail({
  status: 'APPROVED',
  approvedBillIds: ['1'],
  approvedBillCount: 1,
  approvedAmount: 250,
  bills: [bill],
  approvedBills: [bill],
  approvalDate: '2026-11-22T10:00:00.000Z',
  approver: { id: 1, firstName: 'Ada', lastName: 'Lovelace' },
  viewerMayApprove: false,
  approveBlockedReason: 'Already approved',
});
/** The approval after each step, as the server folds it. */
const then = [
  detail({ priority: 'HIGH', bills: [bill] }),
  detail({ priority: 'LOW', bills: [bill] }),
  approved,
];

let gql: GraphQLMock;
function serve(erased: string[] = []) {
  gql.on(ApprovalQuery, { approval: approved });
  gql.on(ApprovalHistoryQuery, { approvalHistory: [] });
  gql.on(ApprovalAsOfQuery, ({ asOf }) => {
    const n = asOf?.position ? steps.findIndex((s) => s.position === asOf.position) + 1 : steps.length;
    const s = steps[n - 1];
    return {
      approvalAsOf: {
        approval: then[n - 1],
        asOf: {
          position: s.position,
          at: s.at,
          eventType: s.type,
          step: n,
          steps: steps.length,
          deleted: false,
        },
        steps,
        erased,
      },
    };
  });
}

function renderPage() {
  return render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={[`/approvals/${ID}`]}>
        <Routes>
          <Route path="/approvals/:id" element={<ApprovalDetailPage />} />
        </Routes>
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

const status = () => screen.getByTestId('detail-status').textContent;
const banner = () => screen.getByTestId('time-travel-banner').textContent ?? '';

beforeEach(() => {
  gql = createGraphQLMock();
  sessionStore.setUser({ ...sampleUser, role: 'MODERATOR' });
});
afterEach(() => cleanup());

describe('TimelineScrubber', () => {
  it('steps back through the approval’s past and back to now', async () => {
    serve();
    renderPage();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Time travel' }));
    await waitFor(() => expect(banner()).toMatch(/^Viewing as of .+ · step 3 of 3$/));
    expect(status()).toMatch(/Approved/i);

    await user.click(screen.getByRole('button', { name: 'Previous' }));
    await waitFor(() => expect(banner()).toMatch(/step 2 of 3$/));
    // The banner names the step at once; the approval as it was arrives with its query's answer.
    await waitFor(() => expect(status()).toMatch(/Pending/i));
    const shownStep = screen.getByTestId('time-travel-step');
    expect(shownStep.textContent).toContain('After: Updated');
    // The step's log position is an auditor's detail: in the tooltip, not the text.
    expect(shownStep.textContent).not.toMatch(/\d{8,}|Log position/);
    expect(shownStep.title).toBe('Log position 00000000000000000020:00000000000000000020');
    // The past offers no action.
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.queryByTestId('approved-bills-list')).toBeNull();

    // The slider: its text names the step; moving it to the first shows the approval as created.
    const slider = screen.getByRole('slider', { name: 'Step of the approval’s history' });
    expect(slider.getAttribute('aria-valuetext')).toMatch(/^Step 2 of 3: Updated, /);
    fireEvent.change(slider, { target: { value: '1' } });
    await waitFor(() => expect(banner()).toMatch(/step 1 of 3$/));
    expect((screen.getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() =>
      expect(gql.calls(ApprovalAsOfQuery).map((v) => v.asOf?.position ?? null)).toEqual([
        null,
        steps[1].position,
        steps[0].position,
      ]),
    );

    // By keyboard: from the slider, Tab reaches Next and Enter presses it.
    slider.focus();
    await user.tab();
    expect(document.activeElement?.textContent).toBe('Next');
    await user.keyboard('{Enter}');
    await waitFor(() => expect(banner()).toMatch(/step 2 of 3$/));

    await user.click(screen.getByRole('button', { name: 'Back to now' }));
    expect(screen.queryByTestId('time-travel')).toBeNull();
    await waitFor(() => expect(status()).toMatch(/Approved/i));
    expect(within(await screen.findByTestId('approved-bills-list')).getByText(/INV-1/)).toBeTruthy();
  });

  it('names the fields erased when their subject was forgotten', async () => {
    serve(['recipients', 'vendorContacts']);
    renderPage();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Time travel' }));
    expect((await screen.findByTestId('time-travel-erased')).textContent).toBe(
      'Erased (their subject was forgotten): recipients, vendor e-mails and phones',
    );
  });

  it('is not offered to a USER', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'USER' });
    serve();
    renderPage();
    await screen.findByTestId('detail-status');
    expect(screen.queryByRole('button', { name: 'Time travel' })).toBeNull();
  });

  it('says each step in words', () => {
    expect(stepLabel('ApprovalFirstApproved')).toBe('First approved');
    expect(stepLabel('NachaFileGenerated')).toBe('NACHA file generated');
    expect(stepLabel('QbPaymentSyncStarted')).toBe('QuickBooks payment sync started');
  });
});
