// The detail in jsdom with a scripted fetch: Approve disabled with the server's reason beside it, the
// first approval in the Timeline, and the Edit dialog (only the changes sent, recipients checked as
// the server checks them, the server's refusal in a toast, the answer shown at once).
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { sessionStore } from '../../../lib/session-store';
import { json, mockFetch, type RecordedCall, sampleUser } from '../../../testing/fetch-mock';

vi.mock('../../../hooks/use-approval-changed', () => ({ useApprovalChanged: () => {} }));
vi.mock('../../../hooks/use-approval-policy-changed', () => ({ useApprovalPolicyChanged: () => {} }));
const { ApprovalDetailPage } = await import('./approval-detail-page');

const ID = 'aaaaaaaa-1111-2222-3333-444444444444';
const detail = (over: Record<string, unknown> = {}) => ({
  id: ID,
  companyId: 3,
  companyName: 'Juniper',
  company: { id: 3, name: 'Juniper' },
  status: 'PENDING',
  priority: 'HIGH',
  billIds: '1',
  approvedBillIds: '',
  billIdList: ['1'],
  approvedBillIdList: [],
  billCount: 1,
  approvedBillCount: 0,
  approvalRate: 0,
  totalAmount: 250,
  approvedAmount: 0,
  billStats: { totalAmount: 250, totalAmountApproved: 0 },
  billsParsed: [],
  approvedBillsParsed: [],
  managerId: 9,
  managerName: 'Dana Whitfield',
  managerEmail: 'dana@example.com',
  manager: null,
  createdBy: 1,
  creator: { id: 1, firstName: 'Ada', lastName: 'Lovelace' },
  approvedBy: null,
  approver: null,
  rejectedBy: null,
  rejecter: null,
  firstApprovedBy: null,
  firstApprover: null,
  firstApprovedAt: null,
  awaitingSecondApproval: false,
  creatorMayNotApprove: true,
  secondApprovalThreshold: 100,
  secondApprovalRequired: true,
  viewerMayApprove: true,
  approveBlockedReason: null,
  approvalDate: null,
  rejectionDate: null,
  rejectionReason: null,
  expiresAt: '2026-12-20T10:00:00.000Z',
  expiredAt: null,
  recipients: ['ap@client.example'],
  confirmedDuplicates: [],
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  ...over,
});

function serve(approval: Record<string, unknown>, onPut?: (call: RecordedCall) => Response) {
  return mockFetch((call) => {
    if (call.url === `/api/bill-approval/approvals/${ID}/history`)
      return json(200, { success: true, data: [] });
    if (call.url.startsWith('/api/bill-approval/manager-options'))
      return json(200, {
        success: true,
        data: [
          { id: 9, displayName: 'Dana Whitfield', email: 'dana@example.com' },
          { id: 12, displayName: 'Olive Options', email: 'olive@example.com' },
        ],
      });
    if (call.method === 'PUT' && onPut) return onPut(call);
    if (call.url === `/api/bill-approval/approvals/${ID}`)
      return json(200, { success: true, data: approval });
    return json(404, { success: false, message: 'unexpected' });
  });
}

function renderPage() {
  return render(
    <MemoryRouter initialEntries={[`/approvals/${ID}`]}>
      <Routes>
        <Route path="/approvals/:id" element={<ApprovalDetailPage />} />
      </Routes>
      <Toaster />
    </MemoryRouter>,
  );
}

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => sessionStore.setUser({ ...sampleUser, role: 'MODERATOR' }));
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
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
    let answer = () =>
      json(200, {
        success: true,
        message: 'Approval updated successfully',
        data: detail({
          priority: 'URGENT',
          managerId: 12,
          managerName: 'Olive Options',
          managerEmail: 'olive@example.com',
          recipients: ['ap@client.example', 'cfo@client.example'],
        }),
      });
    const { calls } = serve(detail(), () => answer());
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
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    // The server refuses: its message in a toast, the dialog stays open.
    answer = () => json(409, { success: false, message: 'Cannot update an approval with status APPROVED' });
    await user.clear(recipients);
    await user.type(recipients, 'ap@client.example, CFO@client.example');
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Cannot update an approval with status APPROVED');
    expect(screen.getByRole('dialog', { name: 'Edit Approval' })).toBeTruthy();

    answer = () =>
      json(200, {
        success: true,
        data: detail({
          priority: 'URGENT',
          managerId: 12,
          managerName: 'Olive Options',
          managerEmail: 'olive@example.com',
          recipients: ['ap@client.example', 'cfo@client.example'],
        }),
      });
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Approval updated successfully');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit Approval' })).toBeNull());
    const puts = calls.filter((c) => c.method === 'PUT');
    expect(puts.at(-1)!.url).toBe(`/api/bill-approval/approvals/${ID}`);
    expect(puts.at(-1)!.body).toEqual({
      priority: 'URGENT',
      managerId: 12,
      recipients: ['ap@client.example', 'cfo@client.example'],
    });
    // The answer shows at once (the live notice would reload it as well).
    expect(screen.getAllByText('Olive Options').length).toBeGreaterThan(0);
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
  });
});
