// The company's control on bank detail changes: read and shown, turned off only with a reason (asked
// before anything is sent), the flag days checked, what a save sends, and the server's refusal shown.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { BankingChangeControlQuery, SetBankingChangeControl } from '../api/banking-control';
import { BankingControlCard } from './banking-control-card';

// Radix measures the switch thumb; jsdom has no ResizeObserver.
vi.stubGlobal(
  'ResizeObserver',
  class {
    observe() {}
    unobserve() {}
    disconnect() {}
  },
);

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => resetToasts());
afterEach(cleanup);

const on = { companyId: 7, enabled: true, flagDays: 30 };

function open(gql: GraphQLMock) {
  render(
    <GraphQLTestProvider mock={gql}>
      <BankingControlCard companyId={7} />
      <Toaster />
    </GraphQLTestProvider>,
  );
}

describe('BankingControlCard', () => {
  it('shows the control on by default, with its flag days, and nothing to save yet', async () => {
    const gql = createGraphQLMock().on(BankingChangeControlQuery, { bankingChangeControl: on });
    open(gql);
    await screen.findByText(
      /^Control on: a changed vendor account waits for approval\. Changes are flagged for 30 days\.$/,
    );
    expect(gql.calls(BankingChangeControlQuery)).toEqual([{ companyId: 7 }]);
    const toggle = screen.getByRole('switch', { name: 'Hold bank detail changes for a second look' });
    expect(toggle.getAttribute('aria-checked')).toBe('true');
    expect((screen.getByLabelText('Flag changes for (days)') as HTMLInputElement).value).toBe('30');
    expect((screen.getByRole('button', { name: 'Save Control' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByLabelText(/Reason for turning the control off/)).toBeNull();
  });

  it('asks for a reason before turning it off, then sends it', async () => {
    let stored = on;
    const gql = createGraphQLMock()
      .on(BankingChangeControlQuery, () => ({ bankingChangeControl: stored }))
      .on(SetBankingChangeControl, (v) => {
        stored = { ...on, enabled: v.enabled };
        return { setBankingChangeControl: stored };
      });
    open(gql);
    const user = userEvent.setup();
    await user.click(
      await screen.findByRole('switch', { name: 'Hold bank detail changes for a second look' }),
    );
    await screen.findByText(/^Off: a change of a vendor’s account goes live at once/);
    await user.click(screen.getByRole('button', { name: 'Save Control' }));
    await screen.findByText('Please give a reason for turning the control off');
    expect(gql.calls(SetBankingChangeControl)).toEqual([]);
    await user.type(
      screen.getByLabelText(/Reason for turning the control off/),
      'The vendor portal verifies accounts itself',
    );
    await user.click(screen.getByRole('button', { name: 'Save Control' }));
    await screen.findByText('Bank detail change control saved');
    expect(gql.calls(SetBankingChangeControl)).toEqual([
      { companyId: 7, enabled: false, flagDays: 30, reason: 'The vendor portal verifies accounts itself' },
    ]);
    // The write re-reads the control.
    await waitFor(() => expect(gql.calls(BankingChangeControlQuery).length).toBeGreaterThanOrEqual(2));
    await screen.findByText(/^Control off: changed vendor accounts go live at once\./);
  });

  it('changes the flag days within 1 to 365', async () => {
    const gql = createGraphQLMock()
      .on(BankingChangeControlQuery, { bankingChangeControl: on })
      .on(SetBankingChangeControl, { setBankingChangeControl: { ...on, flagDays: 14 } });
    open(gql);
    const user = userEvent.setup();
    const days = await screen.findByLabelText('Flag changes for (days)');
    await user.clear(days);
    await user.type(days, '400');
    await user.click(screen.getByRole('button', { name: 'Save Control' }));
    await screen.findByText('flagDays must be at most 365');
    expect(days.getAttribute('aria-invalid')).toBe('true');
    await user.clear(days);
    await user.type(days, '14');
    await user.click(screen.getByRole('button', { name: 'Save Control' }));
    await screen.findByText('Bank detail change control saved');
    expect(gql.calls(SetBankingChangeControl)).toEqual([
      { companyId: 7, enabled: true, flagDays: 14, reason: null },
    ]);
  });

  it("shows the server's refusal", async () => {
    const gql = createGraphQLMock()
      .on(BankingChangeControlQuery, { bankingChangeControl: { ...on, enabled: false } })
      .on(SetBankingChangeControl, gqlError('Forbidden', { code: 'FORBIDDEN' }));
    open(gql);
    const user = userEvent.setup();
    await user.click(
      await screen.findByRole('switch', { name: 'Hold bank detail changes for a second look' }),
    );
    await user.click(screen.getByRole('button', { name: 'Save Control' }));
    const toast = await screen.findByTestId('toast');
    expect(within(toast).getByText('Forbidden')).toBeTruthy();
  });
});
