import { describe, expect, it } from 'vitest';
import { attachmentName } from '../../../lib/transfer';
import {
  checkImportFile,
  importOutcome,
  MASKED_ROW_ERROR,
  maskedRows,
  parseCsv,
  plural,
  shownImportErrors,
  tidyRowError,
  validateBanking,
} from './vendor-rules';

const good = {
  routingNumber: '021000021',
  accountNumber: '123456789',
  accountType: 'checking' as const,
  bankName: '',
};

describe('vendor banking form', () => {
  it('accepts a real routing number and a short account number', () => {
    expect(validateBanking(good)).toEqual({});
  });

  it("answers with the spec's texts", () => {
    expect(validateBanking({ ...good, routingNumber: '12345' }).routingNumber).toBe(
      'Routing number must be 9 digits',
    );
    expect(validateBanking({ ...good, routingNumber: '02100002a' }).routingNumber).toBe(
      'Routing number must contain only digits',
    );
    expect(validateBanking({ ...good, accountNumber: '1'.repeat(18) }).accountNumber).toBe(
      'Account number must be 17 characters or less',
    );
    expect(validateBanking({ ...good, accountNumber: ' ' }).accountNumber).toBe('Account number is required');
    expect(validateBanking({ ...good, accountNumber: '1234' }).accountNumber).toBe(
      'Account number must have at least 5 digits',
    );
    expect(validateBanking({ ...good, accountNumber: '12345' }).accountNumber).toBeUndefined();
  });
});

describe('CSV import', () => {
  it('words the three outcomes', () => {
    expect(importOutcome({ processed: 3, updated: 3, failed: 0 }).text).toBe(
      '3 vendors updated successfully',
    );
    expect(importOutcome({ processed: 5, updated: 3, failed: 2 }).text).toBe('3 vendors updated, 2 failed');
    expect(importOutcome({ processed: 4, updated: 0, failed: 4 })).toEqual({
      tone: 'failed',
      text: 'All 4 vendors failed to import',
    });
  });

  it('counts one vendor in the singular (never "1 vendors updated")', () => {
    expect(plural(1, 'vendor')).toBe('1 vendor');
    expect(plural(0, 'vendor')).toBe('0 vendors');
    expect(plural(2, 'row has', 'rows have')).toBe('2 rows have');
    expect(importOutcome({ processed: 1, updated: 1, failed: 0 }).text).toBe('1 vendor updated successfully');
    expect(importOutcome({ processed: 3, updated: 1, failed: 2 }).text).toBe('1 vendor updated, 2 failed');
    expect(importOutcome({ processed: 1, updated: 0, failed: 1 }).text).toBe('The vendor failed to import');
  });

  it('shows one message for an empty account number, not every rule it breaks', () => {
    expect(
      tidyRowError(
        'Account number is required; Account number may only contain letters, digits and dashes; Account number must have at least 5 digits',
      ),
    ).toBe('Account number is required');
    expect(
      tidyRowError(
        'Routing number must be 9 digits; Routing number is not valid (check digit); Account number is required; Account number must have at least 5 digits',
      ),
    ).toBe('Routing number must be 9 digits; Account number is required');
    expect(tidyRowError('Vendor 12 not found')).toBe('Vendor 12 not found');
  });

  it('finds the rows an export masked (* or •) and says why they fail and how to get full numbers', () => {
    const csv = [
      '\uFEFFID,Name,Company,QuickBooks ID,Email,Phone,Active,Routing Number,Account Number,Account Type,Bank Name',
      '1,"Acme, Inc.",Harbor,56,,,true,*****0021,********4321,checking,Chase',
      '2,Beta,Harbor,57,,,true,,,,',
      '',
      '3,Gamma "G",Harbor,58,,,true,021000021,•••• 4321,savings,Chase',
      '4,Delta,Harbor,59,,,true,021000021,000987654321,savings,Chase',
    ].join('\r\n');
    expect(parseCsv(csv)[1][1]).toBe('Acme, Inc.');
    // Row numbers as the server counts them: the header is row 1, empty lines are skipped.
    expect([...maskedRows(csv)]).toEqual([2, 4]);
    const shown = shownImportErrors(
      [
        { row: 2, error: 'Enter the full routing and account numbers (an export masks them)' },
        { row: 4, error: 'Account number may only contain letters, digits and dashes' },
        { row: 5, error: 'Account number is required; Account number must have at least 5 digits' },
      ],
      maskedRows(csv),
    );
    expect(shown).toEqual([
      { row: 2, error: MASKED_ROW_ERROR },
      { row: 4, error: MASKED_ROW_ERROR },
      { row: 5, error: 'Account number is required' },
    ]);
    expect(MASKED_ROW_ERROR).toMatch(/export/);
    expect(MASKED_ROW_ERROR).toMatch(/full numbers/);
  });

  it('refuses other files and files over 5 MB before uploading', () => {
    expect(checkImportFile({ name: 'v.csv', size: 5_242_880 })).toBeNull();
    expect(checkImportFile({ name: 'v.csv', size: 5_242_881 })).toMatch(/5 MB/);
    expect(checkImportFile({ name: 'v.xlsx', size: 10 })).toMatch(/\.csv/);
  });

  it('names the download from Content-Disposition, else vendors-export.csv', () => {
    expect(attachmentName('attachment; filename="vendors-export.csv"', 'x.csv')).toBe('vendors-export.csv');
    expect(attachmentName(null, 'vendors-export.csv')).toBe('vendors-export.csv');
  });
});
