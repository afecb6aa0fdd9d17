// The e-mail link's result pages in jsdom (spec 2 §2): 'Processing Action' first, then each outcome's
// texts, for both actions (bank-upload, and the link's own name bank-uploaded) and the in-layout page's
// buttons.
import { act, cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROCESSING_MS } from './direct-action-result';
import { DirectActionResultPage, InLayoutDirectActionResultPage } from './direct-action-result-page';

const ID = 'dddddddd-1111-2222-3333-444444444444';

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
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('DirectActionResultPage', () => {
  it.each(['', `?approvalId=${ID}&success=true`, '?action=payment-completed&success=true'])(
    'missing action or approvalId (%s) → invalid',
    async (q) => {
      await show(q);
      expect(screen.getByRole('heading', { name: 'Invalid direct action result' })).toBeTruthy();
      expect(screen.getByText('Missing required parameters from redirect')).toBeTruthy();
    },
  );

  it.each([
    ['bank-upload', 'Successfully uploaded to bank'],
    ['bank-uploaded', 'Successfully uploaded to bank'],
    ['payment-completed', 'Successfully marked as payment completed'],
  ])('success of %s → %s, stakeholders notified, the id, the e-mail link footer', async (action, title) => {
    await show(`?action=${action}&approvalId=${ID}&success=true`);
    expect(screen.getByRole('heading', { name: title })).toBeTruthy();
    expect(screen.getByText('All stakeholders have been notified.')).toBeTruthy();
    expect(screen.getByTestId('direct-action-approval').textContent).toBe(ID);
    expect(screen.getByText('This action was completed via email link. No login was required.')).toBeTruthy();
    // Standalone: no links into the app.
    expect(screen.queryByRole('link')).toBeNull();
  });

  it.each([
    ['bank-upload', 'Failed to upload to bank'],
    ['payment-completed', 'Failed to mark as payment completed'],
  ])('failure of %s → %s with the error details', async (action, title) => {
    await show(
      `?action=${action}&approvalId=${ID}&success=false&error=${encodeURIComponent('The link has expired')}`,
    );
    expect(screen.getByRole('heading', { name: title })).toBeTruthy();
    expect(screen.getByTestId('direct-action-error').textContent).toBe('The link has expired');
  });

  it.each([
    ['bank-upload', 'This bill has already been uploaded to the bank'],
    ['payment-completed', 'This bill has already been marked as paid'],
  ])('noAction for %s → No Action Needed: %s', async (action, message) => {
    await show(`?action=${action}&approvalId=${ID}&success=true&noAction=true`);
    expect(screen.getByRole('heading', { name: 'No Action Needed' })).toBeTruthy();
    expect(screen.getByText('This bill is already in the requested status.')).toBeTruthy();
    expect(screen.getByTestId('direct-action-message').textContent).toBe(message);
  });
});

describe('InLayoutDirectActionResultPage', () => {
  it('success: View Approval Details and View All Approvals', async () => {
    await show(`?action=payment-completed&approvalId=${ID}&success=true`, true);
    expect(screen.getByRole('link', { name: 'View Approval Details' }).getAttribute('href')).toBe(
      `/approvals/${ID}`,
    );
    expect(screen.getByRole('link', { name: 'View All Approvals' }).getAttribute('href')).toBe('/approvals');
  });

  it('failure: only View All Approvals', async () => {
    await show(`?action=payment-completed&approvalId=${ID}&success=false&error=x`, true);
    expect(screen.queryByRole('link', { name: 'View Approval Details' })).toBeNull();
    expect(screen.getByRole('link', { name: 'View All Approvals' })).toBeTruthy();
  });
});
