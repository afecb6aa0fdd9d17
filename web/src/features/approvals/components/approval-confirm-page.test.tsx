// /approvals/{id}/confirm in jsdom against a scripted fetch: the parameters'
// errors, the token check with the bearer, 'Logged in as', the approval's details and bills, the
// payment-completed step and its button rules (no bank-uploaded button), 'All Done!' with no action
// asked beside it, who is signed in against who the link was sent to, the success toast and the 2 s
// redirect, and the three failure screens of the token check.
import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { sessionStore } from '../../../lib/session-store';
import { json, mockFetch, type RecordedCall, sampleUser } from '../../../testing/fetch-mock';
import type { TokenVerification } from '../api/payments';
import { ApprovalConfirmPage } from './approval-confirm-page';

const ID = 'cccccccc-1111-2222-3333-444444444444';
const BASE = `/api/bill-approval/approvals/${ID}`;

const verification = (over: Partial<TokenVerification['approval']> = {}, info = {}): TokenVerification => ({
  approval: {
    id: ID,
    status: 'BANK_UPLOADED',
    companyName: 'Juniper Office Supply',
    totalAmount: 300,
    manager: {
      firstName: 'Dana',
      lastName: 'Whitfield',
      title: 'AP Lead',
      email: 'dana@example.com',
      phone: '555-0100',
    },
    createdAt: '2026-11-20T10:00:00.000Z',
    approvalDate: '2026-11-21T10:00:00.000Z',
    nachaGeneratedAt: '2026-11-21T10:01:00.000Z',
    nachaBatchNumber: 4,
    billsParsed: [
      { Id: '11', DocNumber: 'D-11', TotalAmt: 100, VendorRef: { value: '5', name: 'Acme Paper' } },
      { Id: '12', DocNumber: null, TotalAmt: 200, VendorRef: { value: '6', name: 'Birch Ink' } },
    ],
    ...over,
  },
  user: { name: 'Ada Lovelace', email: 'ada@billflow.test', role: 'USER' },
  statusInfo: { canMarkAsPaid: true, isAlreadyPaid: false, ...info },
});

function open(query: string) {
  return render(
    <MemoryRouter initialEntries={[`/approvals/${ID}/confirm${query}`]}>
      <Routes>
        <Route path="/approvals/:id/confirm" element={<ApprovalConfirmPage />} />
        <Route path="/approvals/:id" element={<p>Approval page</p>} />
        <Route path="/login" element={<p>Login page</p>} />
      </Routes>
      <Toaster />
    </MemoryRouter>,
  );
}

beforeEach(() => {
  sessionStore.setUser({ ...sampleUser, role: 'USER' });
  localStorage.setItem('auth_token', 'session-token');
});
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('ApprovalConfirmPage', () => {
  it.each([
    ['', 'Missing required parameters'],
    ['?action=payment-completed', 'Missing required parameters'],
    ['?token=t1&action=delete-everything', 'Invalid action type'],
  ])('query "%s" → %s, nothing sent', (query, text) => {
    const { calls } = mockFetch(() => json(500, {}));
    open(query);
    expect(screen.getByRole('heading', { name: text })).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('verifies the token with the bearer and shows who is signed in and the approval', async () => {
    const { calls } = mockFetch(() => json(200, { success: true, data: verification() }));
    open('?token=link-tok');
    await screen.findByRole('heading', { name: 'Logged in as' });
    expect(calls[0].url).toBe(`${BASE}/verify-token?token=link-tok`);
    expect(calls[0].headers.get('Authorization')).toBe('Bearer session-token');
    expect(screen.getByTestId('logged-in-as').textContent).toBe(
      'NameAda LovelaceEmailada@billflow.testRoleUSER',
    );
    expect(screen.getByText(ID)).toBeTruthy();
    expect(screen.getByTestId('confirm-status').textContent).toBe('Bank Uploaded');
    expect(screen.getByText('Juniper Office Supply')).toBeTruthy();
    expect(screen.getByText('Dana Whitfield, AP Lead')).toBeTruthy();
    expect(screen.getByText('555-0100')).toBeTruthy();
    expect(screen.getByText(/\(batch 4\)/)).toBeTruthy();
    expect(screen.getByTestId('confirm-bills').children).toHaveLength(2);
    expect(screen.getByText('Birch Ink · Doc # N/A')).toBeTruthy();
    // No action: no banner, no button.
    expect(screen.queryByText('ACTION REQUIRED')).toBeNull();
    expect(screen.queryByRole('button', { name: /Payment/ })).toBeNull();
  });

  it('with an action: the banner, STEP 2 and only the payment-completed button; success → toast, then the approval after 2 s', async () => {
    const posted: RecordedCall[] = [];
    mockFetch((call) => {
      if (call.method === 'POST') {
        posted.push(call);
        return json(200, { success: true, message: 'Payment marked as completed' });
      }
      return json(200, { success: true, data: verification() });
    });
    open('?token=link-tok&action=bank-uploaded');
    await screen.findByText('ACTION REQUIRED');
    expect(screen.getByText('STEP 2')).toBeTruthy();
    expect(screen.getByText('CLICK TO CONFIRM: Payment Completed')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /upload/i })).toBeNull();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await userEvent.click(screen.getByRole('button', { name: 'Mark as Payment Completed' }));
    await screen.findByText('Status Updated Successfully');
    expect(posted[0].url).toBe(`${BASE}/payment-completed?token=link-tok`);
    expect(posted[0].body).toBeUndefined();
    expect(screen.getByText('All Done!')).toBeTruthy();
    expect(
      (screen.getByRole('button', { name: 'Payment Already Completed' }) as HTMLButtonElement).disabled,
    ).toBe(true);
    // Done: nothing is asked any more.
    expect(screen.queryByText('ACTION REQUIRED')).toBeNull();
    expect(screen.queryByText('CLICK TO CONFIRM: Payment Completed')).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(1500));
    expect(screen.queryByText('Approval page')).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(600));
    expect(screen.getByText('Approval page')).toBeTruthy();
  });

  it('the button is disabled when the status info says it cannot be marked; PAYMENT_COMPLETED shows All Done!', async () => {
    mockFetch(() =>
      json(200, {
        success: true,
        data: verification({ status: 'PAYMENT_COMPLETED' }, { canMarkAsPaid: false, isAlreadyPaid: true }),
      }),
    );
    open('?token=t&action=payment-completed');
    const button = await screen.findByRole('button', { name: 'Payment Already Completed' });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole('heading', { name: 'Payment Processing Complete' })).toBeTruthy();
    expect(screen.getByText('All Done!')).toBeTruthy();
    // One message: all done, and no action asked for beside it.
    expect(screen.queryByText('ACTION REQUIRED')).toBeNull();
    expect(screen.queryByText('STEP 2')).toBeNull();
    expect(screen.getByText('NO ACTION REQUIRED')).toBeTruthy();
  });

  it('signed in as another than the link’s recipient: Logged in as is the session’s user, the recipient named as such', async () => {
    sessionStore.setUser({
      ...sampleUser,
      email: 'uma.user@billflow.local',
      firstName: 'Uma',
      lastName: 'User',
      role: 'USER',
    });
    mockFetch(() =>
      json(200, {
        success: true,
        data: {
          ...verification(),
          user: { name: 'Ravi Menon', email: 'ravi.menon@client.test', role: 'RECIPIENT' },
        },
      }),
    );
    open('?token=t&action=payment-completed');
    await screen.findByText('ACTION REQUIRED');
    expect(screen.getByTestId('logged-in-as').textContent).toBe(
      'NameUma UserEmailuma.user@billflow.localRoleUSER',
    );
    expect(screen.getByTestId('link-recipient').textContent).toBe(
      'This link was sent to Ravi Menon (ravi.menon@client.test); confirming records the step as theirs.',
    );
    expect(screen.queryByText('RECIPIENT')).toBeNull();
    expect(screen.queryByText('All Done!')).toBeNull();
  });

  it('a used link: the server names only the id and status; the page says the step is done, no details', async () => {
    mockFetch(() =>
      json(200, {
        success: true,
        data: {
          approval: { id: ID, status: 'PAYMENT_COMPLETED' },
          user: null,
          statusInfo: {
            canMarkAsPaid: false,
            isAlreadyPaid: true,
            canMarkAsUploaded: false,
            isAlreadyUploaded: true,
          },
          link: { action: 'payment-completed', expiresAt: '2026-12-01T10:00:00.000Z', stepDone: true },
        },
      }),
    );
    open('?token=link-tok&action=payment-completed');
    await screen.findByTestId('confirm-step-done');
    expect(screen.getByTestId('confirm-status').textContent).toBe('Payment Completed');
    expect(
      screen.getByText('This link’s step is done. The approval’s details are in Billflow.'),
    ).toBeTruthy();
    // Who is signed in comes from the session, not the link.
    expect(screen.getByTestId('logged-in-as').textContent).toContain('ada@billflow.test');
    expect(screen.getByRole('button', { name: 'Payment Already Completed' }).hasAttribute('disabled')).toBe(
      true,
    );
    expect(screen.getByText('All Done!')).toBeTruthy();
    expect(screen.queryByText('ACTION REQUIRED')).toBeNull();
    expect(screen.queryByTestId('confirm-bills')).toBeNull();
    expect(screen.queryByText('Total amount')).toBeNull();
    expect(screen.queryByText('Assigned manager')).toBeNull();
  });

  it('a used bank-upload link before the payment: no action asked, no All Done!', async () => {
    mockFetch(() =>
      json(200, {
        success: true,
        data: {
          approval: { id: ID, status: 'BANK_UPLOADED' },
          user: null,
          statusInfo: {
            canMarkAsPaid: false,
            isAlreadyPaid: false,
            canMarkAsUploaded: false,
            isAlreadyUploaded: true,
          },
          link: { action: 'bank-uploaded', expiresAt: '2026-12-01T10:00:00.000Z', stepDone: true },
        },
      }),
    );
    open('?token=link-tok&action=bank-uploaded');
    await screen.findByTestId('confirm-step-done');
    expect(screen.getByTestId('confirm-status').textContent).toBe('Bank Uploaded');
    expect(screen.queryByText('ACTION REQUIRED')).toBeNull();
    expect(screen.queryByText('All Done!')).toBeNull();
    expect(screen.queryByRole('button', { name: /Payment/ })).toBeNull();
  });

  it('not yet uploaded: Mark as Payment Completed, disabled', async () => {
    mockFetch(() =>
      json(200, {
        success: true,
        data: verification({ status: 'NACHA_GENERATED' }, { canMarkAsPaid: false }),
      }),
    );
    open('?token=t&action=payment-completed');
    const button = await screen.findByRole('button', { name: 'Mark as Payment Completed' });
    expect((button as HTMLButtonElement).disabled).toBe(true);
  });

  it('a refused payment-completed: red Error toast with the server’s message, the button usable again', async () => {
    mockFetch((call) =>
      call.method === 'POST'
        ? json(409, { success: false, message: 'This link was superseded by a newer file' })
        : json(200, { success: true, data: verification() }),
    );
    open('?token=t&action=payment-completed');
    await userEvent.click(await screen.findByRole('button', { name: 'Mark as Payment Completed' }));
    await screen.findByText('This link was superseded by a newer file');
    expect(screen.getByText('Error')).toBeTruthy();
    expect(
      (screen.getByRole('button', { name: 'Mark as Payment Completed' }) as HTMLButtonElement).disabled,
    ).toBe(false);
  });

  it('VALIDATION_FAILED → Status Update Not Available, with View Approval and Login', async () => {
    mockFetch(() =>
      json(400, {
        success: false,
        message: 'Cannot update approval with status REJECTED',
        error: { code: 'VALIDATION_FAILED', details: 'Cannot update approval with status REJECTED' },
      }),
    );
    open('?token=t&action=payment-completed');
    await screen.findByRole('heading', { name: 'Status Update Not Available' });
    expect(screen.getByText('This approval is no longer available for status updates.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'View Approval' }).getAttribute('href')).toBe(`/approvals/${ID}`);
    expect(screen.getByRole('link', { name: 'Login' })).toBeTruthy();
  });

  it('the text names PAYMENT_COMPLETED → Payment Already Completed, with View Approval and View All Approvals', async () => {
    mockFetch(() =>
      json(400, { success: false, message: 'Cannot update approval with status PAYMENT_COMPLETED' }),
    );
    open('?token=t&action=payment-completed');
    await screen.findByRole('heading', { name: 'Payment Already Completed' });
    expect(screen.getByText('Payment Processing Complete')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'View Approval' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'View All Approvals' }).getAttribute('href')).toBe('/approvals');
  });

  it('any other refusal → Access Denied with debug info and a Login button', async () => {
    mockFetch(() =>
      json(403, { success: false, error: { code: 'TOKEN_EXPIRED', message: 'The link has expired' } }),
    );
    open('?token=t&action=payment-completed');
    await screen.findByRole('heading', { name: 'Access Denied' });
    expect(screen.getByText('Unable to verify your access to this approval.')).toBeTruthy();
    expect(
      screen.getByText(
        'The access token may be invalid, expired, or you may not have permission to update this approval.',
      ),
    ).toBeTruthy();
    const debug = screen.getByTestId('debug-info').textContent ?? '';
    expect(debug).toContain('TOKEN_EXPIRED');
    expect(debug).toContain('The link has expired');
    expect(debug).toContain('403');
    await userEvent.click(screen.getByRole('link', { name: 'Login' }));
    expect(screen.getByText('Login page')).toBeTruthy();
  });
});
