// The detail in jsdom against the typed fake GraphQL server: Approve disabled with the server's
// reason beside it, the first approval in the Timeline, the Edit dialog (only the changes sent,
// recipients checked as the server checks them, the server's refusal in a toast, the saved answer
// shown at once through the cache), the money in the locale's format, and a push that re-reads it.
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { ApprovalsChanged } from '../../../hooks/use-approval-changed';
import { sessionStore } from '../../../lib/session-store';
import { formatCurrency } from '../../../lib/utils';
import { captureDownloads } from '../../../testing/downloads';
import { mockFetch, sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import {
  type Approval,
  ApprovalHistoryQuery,
  ApprovalQuery,
  ManagerOptionsQuery,
  UpdateApproval,
} from '../api/approvals';
import { ID, sampleApproval } from '../testing/sample-approval';
import { ApprovalDetailPage } from './approval-detail-page';

const detail = sampleApproval;

let gql: GraphQLMock;

function serve(approval: Approval) {
  gql.on(ApprovalQuery, { approval });
  gql.on(ApprovalHistoryQuery, { approvalHistory: [] });
  gql.on(ManagerOptionsQuery, {
    approvalManagerOptions: [
      { id: 9, displayName: 'Dana Whitfield', email: 'dana@example.com', companyManager: false },
      { id: 12, displayName: 'Olive Options', email: 'olive@example.com', companyManager: false },
    ],
  });
}

function renderPage() {
  return render(
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
  sessionStore.setUser({ ...sampleUser, role: 'MODERATOR' });
});
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('ApprovalDetailPage', () => {
  it('disables Approve with the server’s reason beside it; the Timeline names the first approval', async () => {
    serve(
      detail({
        viewerMayApprove: false,
        approveBlockedReason: 'You gave the first approval; a second, different approver must approve.',
        awaitingSecondApproval: true,
        firstApprovedBy: 1,
        firstApprover: { id: 1, firstName: 'Mona', lastName: 'Moss' },
        firstApprovedAt: '2026-11-21T09:30:00.000Z',
      }),
    );
    renderPage();
    const approve = await screen.findByRole('button', { name: 'Approve' });
    expect((approve as HTMLButtonElement).disabled).toBe(true);
    const reason = screen.getByTestId('approve-blocked');
    expect(reason.textContent).toBe(
      'You gave the first approval; a second, different approver must approve.',
    );
    expect(approve.getAttribute('aria-describedby')).toBe(reason.id);
    expect(screen.getByTestId('awaiting-second').textContent).toMatch(
      /^First approval by Mona Moss on Nov 21, 2026, .+; a second approver is needed \(amount above \$100\.00\)$/,
    );
    // Reject stays open to the first approver.
    expect((screen.getByRole('button', { name: 'Reject' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('enables Approve when the server says the viewer may; no reason shown', async () => {
    serve(detail());
    renderPage();
    const approve = await screen.findByRole('button', { name: 'Approve' });
    expect((approve as HTMLButtonElement).disabled).toBe(false);
    expect(screen.queryByTestId('approve-blocked')).toBeNull();
    expect(screen.getByText(/two different approvers are needed/)).toBeTruthy();
  });

  it('edits priority, manager and recipients: bad addresses stay here, only changes are sent', async () => {
    serve(detail());
    const saved = detail({
      priority: 'URGENT',
      managerId: 12,
      managerName: 'Olive Options',
      managerEmail: 'olive@example.com',
      recipients: ['ap@client.example', 'cfo@client.example'],
    });
    renderPage();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Approval' });
    const recipients = within(dialog).getByLabelText('Recipients') as HTMLTextAreaElement;
    expect(recipients.value).toBe('ap@client.example');

    await user.click(within(dialog).getByRole('combobox', { name: 'Priority' }));
    await user.click(await screen.findByRole('option', { name: 'Urgent' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Manager' }));
    await user.click(await screen.findByRole('option', { name: 'Olive Options' }));
    await user.clear(recipients);
    await user.type(recipients, 'ap@client.example, CFO@client.example{enter}not-an-address');
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    expect(within(dialog).getByText('Not a valid e-mail address: not-an-address')).toBeTruthy();
    expect(recipients.getAttribute('aria-invalid')).toBe('true');
    expect(gql.calls(UpdateApproval)).toHaveLength(0);

    // The server refuses: its message in a toast, the dialog stays open.
    gql.on(UpdateApproval, gqlError('Cannot update an approval with status APPROVED', { code: 'CONFLICT' }));
    await user.clear(recipients);
    await user.type(recipients, 'ap@client.example, CFO@client.example');
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Cannot update an approval with status APPROVED');
    expect(screen.getByRole('dialog', { name: 'Edit Approval' })).toBeTruthy();

    gql.on(UpdateApproval, { updateApproval: { id: ID } });
    gql.on(ApprovalQuery, { approval: saved });
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Approval updated successfully');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit Approval' })).toBeNull());
    expect(gql.calls(UpdateApproval).at(-1)).toEqual({
      id: ID,
      input: {
        priority: 'URGENT',
        managerId: 12,
        recipients: ['ap@client.example', 'cfo@client.example'],
      },
    });
    // The write re-reads the detail and its history through the cache: the change shows at once.
    await waitFor(() => expect(screen.getAllByText('Olive Options').length).toBeGreaterThan(0));
    expect(gql.calls(ApprovalHistoryQuery).length).toBeGreaterThan(1);
  });

  it('offers a USER neither Edit nor Approve', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'USER' });
    serve(
      detail({
        viewerMayApprove: false,
        approveBlockedReason: 'Only administrators and moderators approve.',
      }),
    );
    renderPage();
    await screen.findByRole('heading', { name: 'Approval #aaaaaaaa' });
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Export audit bundle' })).toBeNull();
  });

  it('exports the audit bundle from the history’s card, then re-reads the history', async () => {
    serve(detail());
    localStorage.setItem('auth_token', 'tok-a');
    const { calls } = mockFetch(
      () =>
        new Response('{}', {
          status: 200,
          headers: { 'content-disposition': `attachment; filename="audit-${ID}.json"` },
        }),
    );
    const saved = captureDownloads();
    renderPage();
    const button = await screen.findByRole('button', { name: 'Export audit bundle' });
    await waitFor(() => expect(gql.calls(ApprovalHistoryQuery).length).toBeGreaterThan(0));
    const histories = gql.calls(ApprovalHistoryQuery).length;
    await userEvent.click(button);
    await screen.findByText('Audit bundle downloaded');
    expect(calls[0].url).toBe(`/api/bill-approval/approvals/${ID}/audit-bundle`);
    expect(saved).toEqual([`audit-${ID}.json`]);
    await waitFor(() => expect(gql.calls(ApprovalHistoryQuery).length).toBe(histories + 1));
  });

  it('names the manager in the history and gives its amounts in the reader’s format', async () => {
    serve(detail());
    gql.on(ApprovalHistoryQuery, {
      approvalHistory: [
        {
          id: 'e1',
          position: '00000000000000000100:00000000000000000001',
          stream: `approval-${ID}`,
          actorKind: 'USER',
          changes: [],
          reason: null,
          action: 'Created',
          userName: 'Ada Lovelace',
          timestamp: '2026-11-20T10:00:00.000Z',
          details: '2 bills, $4,693.45, priority High, assigned to Dana Whitfield',
          amount: 4693.45,
          threshold: null,
          managerName: 'Dana Whitfield',
          downloadUrl: null,
        },
      ],
    });
    renderPage();
    const history = await screen.findByTestId('history');
    // The reader's locale (jsdom's default here) formats the amount the step carries.
    expect(history.textContent).toContain(
      `2 bills, ${formatCurrency(4693.45)}, priority High, assigned to Dana Whitfield`,
    );
    expect(history.textContent).not.toContain('manager #');
  });

  it('shows money in the locale’s format and re-reads itself and its history on a push; a deletion is said', async () => {
    serve(detail({ totalAmount: 4693.45 }));
    renderPage();
    await screen.findByText('$4,693.45');
    await waitFor(() => expect(gql.subscribed(ApprovalsChanged)).toBe(1));
    expect(gql.calls(ApprovalsChanged)).toEqual([{ id: ID }]);
    const histories = gql.calls(ApprovalHistoryQuery).length;
    gql.on(ApprovalQuery, { approval: detail({ status: 'REJECTED', rejectionReason: 'Wrong vendor' }) });
    act(
      () =>
        void gql.push(ApprovalsChanged, {
          approvalChanged: { id: ID, type: 'ApprovalRejected', status: 'REJECTED' },
        }),
    );
    await waitFor(() => expect(screen.getByTestId('detail-status').textContent).toBe('Rejected'));
    expect(screen.getByTestId('rejection-reason').textContent).toBe('Wrong vendor');
    await waitFor(() => expect(gql.calls(ApprovalHistoryQuery).length).toBe(histories + 1));

    // Deleted elsewhere: the re-read fails, the page keeps what it showed and says so.
    gql.on(ApprovalQuery, gqlError('Approval not found', { code: 'NOT_FOUND' }));
    act(
      () =>
        void gql.push(ApprovalsChanged, {
          approvalChanged: { id: ID, type: 'ApprovalDeleted', status: null },
        }),
    );
    await screen.findByText('This approval has been deleted. Its bills are free for a new approval.');
    expect(screen.getByRole('heading', { name: 'Approval #aaaaaaaa' })).toBeTruthy();
  });

  it('follows the payment half live: NACHA_PENDING → NACHA_GENERATED → PAYMENT_COMPLETED with a failed sync, without a reload', async () => {
    serve(detail({ status: 'NACHA_PENDING', nachaProcessingStatus: 'REQUESTED', nachaVersion: 1 }));
    renderPage();
    await screen.findByTestId('nacha-card');
    expect(screen.getByText('The NACHA file is being generated.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Regenerate NACHA' })).toBeTruthy();
    expect(screen.queryByTestId('qb-sync-card')).toBeNull();
    await waitFor(() => expect(gql.subscribed(ApprovalsChanged)).toBe(1));

    gql.on(ApprovalQuery, {
      approval: detail({
        status: 'NACHA_GENERATED',
        nachaFileGenerated: true,
        nachaFileName: 'NACHA_JUNIPER_A.txt',
        nachaBatchNumber: 1,
        nachaGeneratedAt: '2026-11-21T10:00:00.000Z',
        nachaProcessingStatus: 'GENERATED',
        nachaFileUrl: `/api/bill-approval/approvals/${ID}/nacha-files/f1`,
        nachaVersion: 1,
      }),
    });
    act(
      () =>
        void gql.push(ApprovalsChanged, {
          approvalChanged: { id: ID, type: 'NachaFileGenerated', status: 'NACHA_GENERATED' },
        }),
    );
    await waitFor(() => expect(screen.getByTestId('detail-status').textContent).toBe('NACHA Generated'));
    expect(screen.getByTestId('nacha-file-name').textContent).toBe('NACHA_JUNIPER_A.txt');
    expect(screen.getByRole('button', { name: 'Download NACHA File' })).toBeTruthy();

    gql.on(ApprovalQuery, {
      approval: detail({
        status: 'PAYMENT_COMPLETED',
        nachaFileGenerated: true,
        nachaFileName: 'NACHA_JUNIPER_A.txt',
        nachaBatchNumber: 1,
        nachaProcessingStatus: 'GENERATED',
        nachaVersion: 1,
        qbPaymentSyncStatus: 'FAILED',
        qbPaymentSyncMessage: 'QuickBooks refused 1 bill',
      }),
    });
    act(
      () =>
        void gql.push(ApprovalsChanged, {
          approvalChanged: { id: ID, type: 'QbPaymentSyncFinished', status: 'PAYMENT_COMPLETED' },
        }),
    );
    await screen.findByTestId('qb-sync-card');
    expect(screen.getByTestId('qb-sync-message').textContent).toBe('QuickBooks refused 1 bill');
    expect(screen.getByRole('button', { name: 'Retry QB Sync' })).toBeTruthy();
  });

  it('offers a USER the payment cards without Regenerate, penny test or retry', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'USER' });
    serve(
      detail({
        status: 'PAYMENT_COMPLETED',
        nachaFileGenerated: true,
        nachaFileName: 'NACHA_JUNIPER_A.txt',
        nachaProcessingStatus: 'GENERATED',
        qbPaymentSyncStatus: 'FAILED',
      }),
    );
    renderPage();
    await screen.findByTestId('nacha-card');
    expect(screen.getByTestId('qb-sync-card')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Regenerate/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Generate Penny Test' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Retry QB Sync' })).toBeNull();
  });

  it('offers a history step’s file for download with the bearer token', async () => {
    serve(detail({ status: 'NACHA_GENERATED' }));
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
          downloadUrl: `/api/bill-approval/approvals/${ID}/nacha-files/f1`,
        },
      ],
    });
    localStorage.setItem('auth_token', 'tok-h');
    const { calls } = mockFetch(
      () =>
        new Response('101 ...', {
          status: 200,
          headers: { 'content-disposition': 'attachment; filename="NACHA_A.txt"' },
        }),
    );
    const saved = captureDownloads();
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Download file' }));
    await screen.findByText('Download started');
    expect(calls[0].url).toBe(`/api/bill-approval/approvals/${ID}/nacha-files/f1`);
    expect(calls[0].headers.get('Authorization')).toBe('Bearer tok-h');
    expect(saved).toEqual(['NACHA_A.txt']);
  });
});
