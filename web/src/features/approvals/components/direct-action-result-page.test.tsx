// The e-mail link's result pages in jsdom: 'Processing Action' first, then each outcome's
// texts, for both actions (bank-upload, and the link's own name bank-uploaded) and the in-layout page's
// buttons. An outcome is shown only as the server verified it (the redirect's `ref`, checked by a
// scripted fetch here); the query's own success, error and noAction state nothing.
import { act, cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, type RecordedCall } from '../../../testing/fetch-mock';
import { PROCESSING_MS } from './direct-action-result';
import { DirectActionResultPage, InLayoutDirectActionResultPage } from './direct-action-result-page';

const ID = 'dddddddd-1111-2222-3333-444444444444';
const UNCONFIRMED = 'We could not confirm the outcome of this action; check the approval in Billflow.';

/** The server's answers to GET /api/bill-approval/direct-action-result?ref, by ref. */
const signed: Record<string, { action: string; outcome: string; error?: string; approvalId?: string }> = {
  'ref-bank-ok': { action: 'bank-uploaded', outcome: 'success' },
  'ref-paid-ok': { action: 'payment-completed', outcome: 'success' },
  'ref-bank-failed': { action: 'bank-uploaded', outcome: 'failure', error: 'This link has expired' },
  'ref-paid-failed': { action: 'payment-completed', outcome: 'failure', error: 'This link has expired' },
  'ref-bank-done': { action: 'bank-uploaded', outcome: 'no-action' },
  'ref-paid-done': { action: 'payment-completed', outcome: 'no-action' },
  'ref-other-approval': {
    action: 'bank-uploaded',
    outcome: 'success',
    approvalId: 'eeeeeeee-1111-2222-3333-444444444444',
  },
};
let calls: RecordedCall[] = [];

async function show(query: string, inLayout = false) {
  render(
    <MemoryRouter initialEntries={[`/direct-action-result${query}`]}>
      {inLayout ? <InLayoutDirectActionResultPage /> : <DirectActionResultPage />}
    </MemoryRouter>,
  );
  expect(screen.getByRole('heading', { name: 'Processing Action' })).toBeTruthy();
  await act(() => vi.advanceTimersByTimeAsync(PROCESSING_MS + 10));
}

beforeEach(() => {
  vi.useFakeTimers();
  calls = mockFetch((call) => {
    const ref = new URL(call.url, 'http://x').searchParams.get('ref') ?? '';
    const s = signed[ref];
    if (!s)
      return json(403, { success: false, error: 'This result could not be confirmed', code: 'FORBIDDEN' });
    return json(200, {
      success: true,
      data: {
        approvalId: s.approvalId ?? ID,
        action: s.action,
        outcome: s.outcome,
        error: s.error ?? null,
        expiresAt: '2026-12-01T10:15:00.000Z',
      },
    });
  }).calls;
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('DirectActionResultPage', () => {
  it.each(['', `?approvalId=${ID}&success=true`, '?action=payment-completed&success=true&ref=ref-paid-ok'])(
    'missing action or approvalId (%s) → invalid',
    async (q) => {
      await show(q);
      expect(screen.getByRole('heading', { name: 'Invalid direct action result' })).toBeTruthy();
      expect(screen.getByText('Missing required parameters from redirect')).toBeTruthy();
      expect(calls).toHaveLength(0);
    },
  );

  it.each([
    ['bank-upload', 'ref-bank-ok', 'Successfully uploaded to bank'],
    ['bank-uploaded', 'ref-bank-ok', 'Successfully uploaded to bank'],
    ['payment-completed', 'ref-paid-ok', 'Successfully marked as payment completed'],
  ])(
    'a verified success of %s → %s, stakeholders notified, the id, the e-mail link footer',
    async (action, ref, title) => {
      await show(`?action=${action}&approvalId=${ID}&success=true&ref=${ref}`);
      expect(calls.map((c) => c.url)).toEqual([`/api/bill-approval/direct-action-result?ref=${ref}`]);
      expect(screen.getByRole('heading', { name: title })).toBeTruthy();
      expect(screen.getByText('All stakeholders have been notified.')).toBeTruthy();
      expect(screen.getByTestId('direct-action-approval').textContent).toBe(ID);
      expect(
        screen.getByText('This action was completed via email link. No login was required.'),
      ).toBeTruthy();
      // Standalone: no links into the app.
      expect(screen.queryByRole('link')).toBeNull();
    },
  );

  it.each([
    ['bank-upload', 'ref-bank-failed', 'Failed to upload to bank'],
    ['payment-completed', 'ref-paid-failed', 'Failed to mark as payment completed'],
  ])('a verified failure of %s → %s with the server’s error, not the query’s', async (action, ref, title) => {
    await show(
      `?action=${action}&approvalId=${ID}&success=false&error=${encodeURIComponent('Call 555-0199 now')}&ref=${ref}`,
    );
    expect(screen.getByRole('heading', { name: title })).toBeTruthy();
    expect(screen.getByTestId('direct-action-error').textContent).toBe('This link has expired');
    expect(screen.queryByText(/555-0199/)).toBeNull();
  });

  it.each([
    ['bank-upload', 'ref-bank-done', 'This bill has already been uploaded to the bank'],
    ['payment-completed', 'ref-paid-done', 'This bill has already been marked as paid'],
  ])('a verified noAction for %s → No Action Needed: %s', async (action, ref, message) => {
    await show(`?action=${action}&approvalId=${ID}&success=true&noAction=true&ref=${ref}`);
    expect(screen.getByRole('heading', { name: 'No Action Needed' })).toBeTruthy();
    expect(screen.getByText('This bill is already in the requested status.')).toBeTruthy();
    expect(screen.getByTestId('direct-action-message').textContent).toBe(message);
  });
});

describe('without an outcome the server verified', () => {
  it.each([
    ['a success without a ref', `?action=bank-upload&approvalId=${ID}&success=true`],
    ['a noAction without a ref', `?action=payment-completed&approvalId=${ID}&noAction=true`],
    [
      'a failure without a ref',
      `?action=bank-upload&approvalId=${ID}&success=false&error=${encodeURIComponent('Call 555-0199 to fix your account')}`,
    ],
    ['a ref the server refuses', `?action=bank-upload&approvalId=${ID}&success=true&ref=forged`],
    ['a ref of another approval', `?action=bank-upload&approvalId=${ID}&success=true&ref=ref-other-approval`],
    ['a ref of another action', `?action=payment-completed&approvalId=${ID}&success=true&ref=ref-bank-ok`],
  ])('%s → the neutral text, no outcome and none of the query’s words', async (_what, query) => {
    await show(query);
    expect(screen.getByRole('heading', { name: 'Outcome not confirmed' })).toBeTruthy();
    expect(screen.getByTestId('direct-action-unconfirmed').textContent).toBe(UNCONFIRMED);
    expect(screen.queryByText(/Successfully|Failed to|No Action Needed|stakeholders/)).toBeNull();
    expect(screen.queryByText(/555-0199/)).toBeNull();
    expect(screen.queryByText(ID)).toBeNull();
  });
});

describe('InLayoutDirectActionResultPage', () => {
  it('a verified success: View Approval Details and View All Approvals', async () => {
    await show(`?action=payment-completed&approvalId=${ID}&success=true&ref=ref-paid-ok`, true);
    expect(screen.getByRole('link', { name: 'View Approval Details' }).getAttribute('href')).toBe(
      `/approvals/${ID}`,
    );
    expect(screen.getByRole('link', { name: 'View All Approvals' }).getAttribute('href')).toBe('/approvals');
  });

  it.each([
    [
      'a verified failure',
      `?action=payment-completed&approvalId=${ID}&success=false&error=x&ref=ref-paid-failed`,
    ],
    ['an unverified success', `?action=payment-completed&approvalId=${ID}&success=true`],
  ])('%s: only View All Approvals', async (_what, query) => {
    await show(query, true);
    expect(screen.queryByRole('link', { name: 'View Approval Details' })).toBeNull();
    expect(screen.getByRole('link', { name: 'View All Approvals' })).toBeTruthy();
  });
});
