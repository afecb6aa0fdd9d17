// The returns card of the approval detail in jsdom: hidden while the bank sent nothing back; a
// returned entry with its vendor, amount, code and Nacha's words and when; a notification of change
// with the proposed account's last four digits and its due date; never more of an account than that.
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { BankEntry } from '../api/payments';
import { BankEntriesCard } from './bank-entries-card';

const entry = (over: Partial<BankEntry> = {}): BankEntry => ({
  traceNumber: '021000020000001',
  qbVendorId: '55',
  vendorName: 'Acme Paper',
  amountCents: 110_000,
  accountLast4: '0003',
  fileName: 'ACH_20261125_A.txt',
  status: 'sent',
  returnCode: null,
  returnDescription: null,
  returnedAt: null,
  changeCode: null,
  changeDescription: null,
  correctedAccountLast4: null,
  correctionDueBy: null,
  ...over,
});

afterEach(cleanup);

describe('BankEntriesCard', () => {
  it('is not shown while the bank sent nothing back', () => {
    render(<BankEntriesCard payment={{ bankEntries: [], bankPaymentState: null }} />);
    expect(screen.queryByTestId('bank-entries-card')).toBeNull();
    render(<BankEntriesCard payment={{ bankEntries: null, bankPaymentState: null }} />);
    expect(screen.queryByTestId('bank-entries-card')).toBeNull();
  });

  it('lists a returned entry and a notification of change, with the last four digits only', () => {
    const returned = entry({
      status: 'returned',
      returnCode: 'R03',
      returnDescription: 'No account/unable to locate account',
      returnedAt: '2026-11-30T15:00:00.000Z',
    });
    const corrected = entry({
      traceNumber: '021000020000002',
      qbVendorId: '66',
      vendorName: 'Bolt Supply',
      amountCents: 25_000,
      accountLast4: '0101',
      changeCode: 'C01',
      changeDescription: 'Incorrect DFI account number',
      correctedAccountLast4: '0102',
      correctionDueBy: '2026-12-08',
    });
    render(
      <BankEntriesCard
        payment={{ bankEntries: [returned, corrected], bankPaymentState: 'PARTLY_RETURNED' }}
      />,
    );
    const card = screen.getByTestId('bank-entries-card');
    expect(within(card).getByText('Partly returned')).toBeTruthy();
    const first = within(card).getByTestId('bank-entry-021000020000001');
    expect(first.textContent).toContain('Acme Paper');
    expect(first.textContent).toContain('$1,100.00');
    expect(first.textContent).toContain('Returned R03 — No account/unable to locate account');
    expect(first.textContent).toContain('Nov 30, 2026');
    expect(first.textContent).toContain('Account ending 0003');
    const second = within(card).getByTestId('bank-entry-021000020000002');
    expect(second.textContent).toContain(
      'C01 Incorrect DFI account number: account ending 0102 proposed, due by Dec 8, 2026',
    );
    expect(second.textContent).not.toContain('Returned');
  });
});
