import { describe, expect, it } from 'vitest';
import { attachmentName } from '../../../lib/transfer';
import { checkImportFile, importOutcome, validateBanking } from './vendor-rules';

const good = {
  routingNumber: '021000021',
  accountNumber: '123456789',
  accountType: 'checking' as const,
  bankName: '',
};

describe('vendor banking form (spec 2 §5)', () => {
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

describe('CSV import (spec 2 §8, §9)', () => {
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
