// A window's file: approvals' one-batch files with one header become one valid file, each batch
// under its number, its entries and traces as written; a part written for another file is refused.
import { describe, expect, it } from 'vitest';
import { AchCombineError, combineAchFiles } from './combine.js';
import { parseAchFile } from './parser.js';
import { buildVendorPaymentFile, type NachaCompany } from './payment-file.js';
import { validateAchFile } from './validator.js';

const company = (balancedFile: boolean): NachaCompany => ({
  bankRoutingNumber: '231380104',
  bankAccountNumber: '000123456789',
  bankAccountType: 'checking',
  bankName: 'Citadel',
  originatorStatusCode: '1',
  companyTaxId: '12-3456789',
  achCompanyId: null,
  immediateDestinationName: 'Citadel FCU',
  immediateOriginName: 'Acme Supplies',
  companyEntryDescription: 'Vendor Pay',
  companyDiscretionaryData: null,
  balancedFile,
  companyName: 'Acme Supplies, Inc.',
});
const createdAt = new Date('2026-07-02T18:05:00Z');
const part = (balanced: boolean, cents: number[], firstTraceSequence: number, at = createdAt) =>
  buildVendorPaymentFile({
    company: company(balanced),
    credits: cents.map((amountCents, i) => ({
      name: `Vendor ${i}`,
      routingNumber: '031300012',
      accountNumber: `1111${i}`,
      accountType: 'checking' as const,
      amountCents,
      identification: String(i),
      addenda: `BILLS ${i}`,
    })),
    effectiveDate: '2026-07-06',
    fileIdModifier: 'A',
    createdAt: at,
    firstTraceSequence,
  });

describe('combineAchFiles', () => {
  it.each([false, true])('joins batches under one header and control (balanced %s)', (balanced) => {
    const a = part(balanced, [1_000, 2_000], 1);
    const b = part(balanced, [3_000], 10);
    const c = part(balanced, [4_000, 5_000, 6_000], 20);
    const text = combineAchFiles([
      { text: c.text, batch: 3 },
      { text: a.text, batch: 1 },
      { text: b.text, batch: 2 },
    ]);
    expect(validateAchFile(text)).toEqual([]);
    const f = parseAchFile(text);
    expect(f.batches.map((x) => x.header.batchNumber)).toEqual([1, 2, 3]);
    expect(f.batches.flatMap((x) => x.entries.map((e) => e.traceNumber))).toEqual([
      ...a.traceNumbers,
      ...b.traceNumbers,
      ...c.traceNumbers,
    ]);
    const credits = 21_000;
    expect(f.control).toMatchObject({
      batchCount: 3,
      totalCreditCents: credits,
      totalDebitCents: balanced ? credits : 0,
      entryHash: (a.hash + b.hash + c.hash) % 10_000_000_000,
    });
    expect(text.split('\n').filter(Boolean).length % 10).toBe(0);
  });

  it('keeps the numbers given, gaps and all, and refuses a part with another header', () => {
    const a = part(false, [1_000], 1);
    const b = part(false, [2_000], 5);
    const text = combineAchFiles([
      { text: a.text, batch: 1 },
      { text: b.text, batch: 4 },
    ]);
    expect(validateAchFile(text)).toEqual([]);
    expect(parseAchFile(text).batches.map((x) => x.header.batchNumber)).toEqual([1, 4]);
    const other = part(false, [2_000], 9, new Date('2026-07-02T19:05:00Z'));
    expect(() =>
      combineAchFiles([
        { text: a.text, batch: 1 },
        { text: other.text, batch: 2 },
      ]),
    ).toThrow(AchCombineError);
    expect(() => combineAchFiles([])).toThrow(AchCombineError);
  });
});
