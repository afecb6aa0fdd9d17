// What holds an approval's payment on its detail, in jsdom against the typed fake GraphQL server: the
// badge beside the status and the banner above the cards with the retry that helps the viewer (the
// Regenerate, the QuickBooks sync's Retry, the failed job's Retry and the Operations page for an
// ADMIN), a calm notice when the file only waits for the next banking day, a push that ends it, and
// the files a USER is not offered (their downloads answer 403), and Regenerate at the bank.
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { ApprovalsChanged } from '../../../hooks/use-approval-changed';
import { sessionStore } from '../../../lib/session-store';
import { sampleUser } from '../../../testing/fetch-mock';
import { createGraphQLMock, type GraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { type Approval, ApprovalHistoryQuery, ApprovalQuery, type PaymentProblem } from '../api/approvals';
import { RegenerateNacha, RetryPaymentJob, RetryQbSync } from '../api/payments';
import { ID, sampleApproval } from '../testing/sample-approval';
import { ApprovalDetailPage } from './approval-detail-page';

const FILE_URL = `/api/bill-approval/approvals/${ID}/nacha-files/f1`;
const AT_BANK = 'The NACHA file is already at the bank: a second file would pay the vendors twice';

const problem = (over: Partial<PaymentProblem>): PaymentProblem => ({
  kind: 'NACHA',
  message: 'The NACHA file could not be made: The company has no NACHA settings',
  at: null,
  retry: 'REGENERATE',
  queue: null,
  jobId: null,
  ...over,
});

/** An approval with its file made (or not), a penny test and a problem, as the detail reads it. */
const paid = (over: Partial<Approval> = {}) =>
  sampleApproval({
    status: 'NACHA_GENERATED',
    approvedBillIds: ['1'],
    nachaFileGenerated: true,
    nachaFileName: 'NACHA_JUNIPER_A.txt',
    nachaBatchNumber: 1,
    nachaGeneratedAt: '2026-11-21T10:00:00.000Z',
    nachaProcessingStatus: 'GENERATED',
    nachaFileUrl: FILE_URL,
    nachaVersion: 2,
    nachaFiles: [
      {
        fileId: 'f0',
        kind: 'PAYMENT',
        fileName: 'NACHA_JUNIPER_0.txt',
        version: 1,
        batchNumber: 1,
        generatedAt: '2026-11-20T10:00:00.000Z',
        url: `/api/bill-approval/approvals/${ID}/nacha-files/f0`,
        current: false,
      },
    ],
    pennyTestGenerated: true,
    pennyTestFileName: 'PENNY_JUNIPER.txt',
    pennyTestBatchNumber: 2,
    pennyTestAmount: 0.42,
    pennyTestVendorCount: 1,
    pennyTestGeneratedAt: '2026-11-21T09:00:00.000Z',
    pennyTestFileUrl: `/api/bill-approval/approvals/${ID}/nacha-files/p1`,
    ...over,
  });

let gql: GraphQLMock;

function serve(approval: Approval) {
  gql.on(ApprovalQuery, { approval });
  gql.on(ApprovalHistoryQuery, {
    approvalHistory: [
      {
        id: 'e9',
        position: '00000000000000000109:00000000000000000004',
        stream: `approval-${ID}`,
        actorKind: 'SYSTEM',
        changes: [],
        reason: null,
        action: 'NACHA file generated',
        userName: null,
        timestamp: '2026-11-21T10:00:00.000Z',
        details: 'Version 1, 2 entries',
        amount: null,
        threshold: null,
        managerName: null,
        downloadUrl: FILE_URL,
      },
    ],
  });
}

function renderPage() {
  return render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={[`/approvals/${ID}`]}>
        <Routes>
          <Route path="/approvals/:id" element={<ApprovalDetailPage />} />
          <Route path="/operations" element={<p>Operations page</p>} />
        </Routes>
        <Toaster />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

const as = (role: 'ADMIN' | 'MODERATOR' | 'USER') => sessionStore.setUser({ ...sampleUser, role });
const banner = () => screen.findByTestId('payment-problem-banner');

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => {
  gql = createGraphQLMock();
  as('MODERATOR');
});
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the payment problem on the detail', () => {
  it('a file waiting on a fix: Needs attention beside the status, the message and Regenerate above the cards', async () => {
    gql.on(RegenerateNacha, {
      regenerateNacha: {
        message: 'NACHA file version 2 requested',
        approval: { id: ID, status: 'NACHA_PENDING' },
      },
    });
    serve(
      sampleApproval({
        status: 'NACHA_PENDING',
        nachaProcessingStatus: 'FAILED',
        nachaProblems: [
          { kind: 'COMPANY_SETTINGS', vendorName: null, message: 'The company has no NACHA settings' },
        ],
        paymentProblem: problem({}),
      }),
    );
    renderPage();
    const b = await banner();
    expect(b.getAttribute('role')).toBe('alert');
    expect(within(b).getByText('Payment needs attention: NACHA file needs a fix')).toBeTruthy();
    expect(within(b).getByTestId('payment-problem-message').textContent).toBe(
      'The NACHA file could not be made: The company has no NACHA settings',
    );
    expect(screen.getByTestId('payment-problem-badge').textContent).toBe('Needs attention');
    // Above the cards, in the reading order too.
    expect(
      b.compareDocumentPosition(screen.getByTestId('bills-card')) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
    await userEvent.click(within(b).getByRole('button', { name: 'Regenerate NACHA File' }));
    await screen.findByText('NACHA file regenerated successfully');
    expect(gql.calls(RegenerateNacha)).toEqual([{ id: ID }]);
  });

  it('what the payment still needs shows from the day the approval is made: blocking first in red', async () => {
    serve(
      sampleApproval({
        status: 'PENDING',
        paymentPrerequisites: [
          {
            kind: 'PAYMENT_ACCOUNT',
            blocking: true,
            vendorName: null,
            message:
              'Juniper has no payment account: choose its QuickBooks bank account in the company settings',
          },
          { kind: 'VENDOR', blocking: false, vendorName: 'Acme', message: 'Acme has no banking information' },
        ],
      }),
    );
    renderPage();
    const section = await screen.findByTestId('payment-prerequisites');
    expect(within(section).getByRole('heading').textContent).toBe('Before this can be paid');
    expect(
      within(section)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'Juniper has no payment account: choose its QuickBooks bank account in the company settings',
      'Acme has no banking information',
    ]);
  });

  it('the day’s file limit: a calm notice and a Waiting badge, nothing to press', async () => {
    serve(
      sampleApproval({
        status: 'NACHA_PENDING',
        nachaProcessingStatus: 'FAILED',
        paymentProblem: problem({
          kind: 'WAITING',
          retry: null,
          message: 'Today’s 36 NACHA files are made; this one will be made on Dec 8, 2026',
        }),
      }),
    );
    renderPage();
    const b = await banner();
    expect(b.getAttribute('role')).toBe('status');
    expect(b.className).not.toMatch(/destructive/);
    expect(within(b).getByText('The payment waits for the next banking day')).toBeTruthy();
    expect(within(b).queryAllByRole('button')).toHaveLength(0);
    expect(screen.getByTestId('payment-problem-badge').textContent).toBe('Waiting');
  });

  it('a QuickBooks record that failed after the bank paid: Retry QuickBooks Sync for staff', async () => {
    gql.on(RetryQbSync, {
      retryQbSync: {
        message: 'Paying 1 bill in QuickBooks',
        approval: { id: ID, status: 'PAYMENT_COMPLETED' },
      },
    });
    serve(
      paid({
        status: 'PAYMENT_COMPLETED',
        qbPaymentSyncStatus: 'FAILED',
        qbPaymentSyncMessage: 'QuickBooks refused 1 bill',
        paymentProblem: problem({
          kind: 'QUICKBOOKS',
          retry: 'RETRY_QB_SYNC',
          message: 'Paid by the bank, not recorded in QuickBooks: QuickBooks refused 1 bill',
          at: '2026-11-22T10:00:00.000Z',
        }),
      }),
    );
    renderPage();
    const b = await banner();
    expect(within(b).getByText(/^Since /)).toBeTruthy();
    await userEvent.click(within(b).getByRole('button', { name: 'Retry QuickBooks Sync' }));
    await screen.findByText('QB sync retry initiated');
    expect(gql.calls(RetryQbSync)).toEqual([{ id: ID }]);
  });

  it('a failed job: an ADMIN retries it here or opens the Operations page; a MODERATOR is told who can', async () => {
    as('ADMIN');
    gql.on(RetryPaymentJob, { retryFailedJob: true });
    const job = problem({
      kind: 'JOB',
      retry: 'OPERATIONS',
      message: 'The paid notice failed: SMTP refused the message',
      queue: 'payment-mail',
      jobId: 'notify-completed:abc',
      at: '2026-11-22T10:00:00.000Z',
    });
    serve(paid({ status: 'PAYMENT_COMPLETED', paymentProblem: job }));
    const { unmount } = renderPage();
    const b = await banner();
    expect(within(b).getByRole('link', { name: 'Open the Operations page' }).getAttribute('href')).toBe(
      '/operations',
    );
    await userEvent.click(within(b).getByRole('button', { name: 'Retry the failed job' }));
    await screen.findByText('Retry started');
    expect(gql.calls(RetryPaymentJob)).toEqual([{ queue: 'payment-mail', jobId: 'notify-completed:abc' }]);
    unmount();

    as('MODERATOR');
    renderPage();
    const m = await banner();
    expect(within(m).queryByRole('button')).toBeNull();
    expect(within(m).queryByRole('link')).toBeNull();
    expect(within(m).getByText('An administrator can retry the job on the Operations page.')).toBeTruthy();
  });

  it('ends when a push says the step went through: the banner and the badge go', async () => {
    serve(paid({ paymentProblem: problem({ kind: 'JOB', retry: 'REGENERATE', message: 'x failed: y' }) }));
    renderPage();
    await banner();
    await waitFor(() => expect(gql.subscribed(ApprovalsChanged)).toBe(1));
    serve(paid({ paymentProblem: null }));
    act(
      () =>
        void gql.push(ApprovalsChanged, {
          approvalChanged: { id: ID, type: 'PaymentJobRecovered', status: null },
        }),
    );
    await waitFor(() => expect(screen.queryByTestId('payment-problem-banner')).toBeNull());
    expect(screen.queryByTestId('payment-problem-badge')).toBeNull();
  });
});

describe('what the viewer’s role allows', () => {
  it('offers a USER no file downloads (NACHA, earlier versions, penny test, history), and no retry', async () => {
    as('USER');
    serve(paid({ paymentProblem: problem({}) }));
    renderPage();
    await screen.findByTestId('nacha-card');
    await screen.findByTestId('history-step');
    expect(screen.getByTestId('nacha-file-name').textContent).toBe('NACHA_JUNIPER_A.txt');
    expect(screen.queryByRole('button', { name: /Download/ })).toBeNull();
    const b = await banner();
    expect(within(b).queryByRole('button')).toBeNull();
  });

  it('offers a MODERATOR every download', async () => {
    serve(paid());
    renderPage();
    await screen.findByTestId('history-step');
    for (const name of [
      'Download NACHA File',
      'Download version 1',
      'Download Penny Test File',
      'Download file',
    ])
      expect(screen.getByRole('button', { name }), name).toBeTruthy();
  });

  it.each(['BANK_UPLOADED', 'PAYMENT_COMPLETED'] as const)(
    'at the bank (%s): Regenerate shows disabled, saying why, in the header and on the NACHA card',
    async (status) => {
      serve(paid({ status }));
      renderPage();
      await screen.findByTestId('nacha-card');
      const reason = screen.getByTestId('regenerate-blocked');
      expect(reason.textContent).toBe(AT_BANK);
      for (const name of ['Regenerate NACHA', 'Regenerate NACHA File']) {
        const button = screen.getByRole('button', { name }) as HTMLButtonElement;
        expect(button.disabled, name).toBe(true);
        expect(button.getAttribute('aria-describedby'), name).toBe(reason.id);
      }
    },
  );
});
