import { describe, expect, it } from 'vitest';
import { qbSyncDetailsText, qbSyncItems } from './qb-sync-details.js';

const base = { approvalId: 'a', companyId: 1, docNumber: 'D-1', vendorName: 'Norton', amount: 10, at: 't' };
const failed = (billId: string, attempt: number, error: string) => ({
  type: 'QbBillPaymentFailed' as const,
  data: { ...base, billId, attempt, error, durationMs: 5 },
});
const paid = (billId: string, attempt: number, billPaymentId: string) => ({
  type: 'QbBillPaid' as const,
  data: { ...base, billId, attempt, billPaymentId, durationMs: 7 },
});

describe('QuickBooks sync detail items', () => {
  it('one item per bill, its latest result; a paid item is never replaced; other events change nothing', () => {
    const items = qbSyncItems([
      { type: 'QbPaymentSyncStarted' },
      paid('1', 1, '118'),
      failed('2', 1, 'QuickBooks: refused'),
      failed('1', 2, 'late'),
      paid('2', 2, '119'),
      { type: 'QbPaymentSyncFinished' },
    ]);
    expect(items).toEqual([
      {
        billId: '1',
        docNumber: 'D-1',
        vendorName: 'Norton',
        amount: 10,
        billPaymentId: '118',
        duration: 7,
        error: null,
        success: true,
      },
      {
        billId: '2',
        docNumber: 'D-1',
        vendorName: 'Norton',
        amount: 10,
        billPaymentId: '119',
        duration: 7,
        error: null,
        success: true,
      },
    ]);
    expect(JSON.parse(qbSyncDetailsText(items)!)).toEqual(items);
  });

  it('a failure replaces an earlier failure; no result yet: no details text', () => {
    const items = qbSyncItems([failed('3', 1, 'first'), failed('3', 2, 'second')]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ error: 'second', success: false, billPaymentId: null, duration: 5 });
    expect(qbSyncDetailsText([])).toBeNull();
  });
});
