import { describe, expect, it } from 'vitest';
import { formatCurrency } from '../../../lib/utils';
import {
  bulkSummary,
  hasBillFigures,
  historyDetails,
  historyTime,
  idList,
  managerLabel,
  pageButtons,
  pageOf,
  pageSummary,
  parseRecipients,
  percent,
  relativeTime,
  shortId,
  titleCase,
  toggleSort,
} from './approval-rules';

describe('approval rules', () => {
  it('formats USD with 2 decimals and rates in whole per cent', () => {
    expect(formatCurrency(1234.5)).toBe('$1,234.50');
    expect(formatCurrency(0)).toBe('$0.00');
    expect(formatCurrency(Number.NaN)).toBe('$0.00');
    // In the reader's locale, not as the server writes the number ('$4693.45').
    expect(formatCurrency(4693.45, 'USD', 'de-DE')).toBe('4.693,45\u00a0$');
    expect(formatCurrency(4693.45, 'EUR', 'en-US')).toBe('€4,693.45');
    expect(percent(1, 3)).toBe(33);
    expect(percent(2, 3)).toBe(67);
    expect(percent(5, 0)).toBe(0);
  });

  it('counts comma-separated ids and shortens approval ids', () => {
    expect(idList('12, 13,,14 ')).toEqual(['12', '13', '14']);
    expect(idList('')).toEqual([]);
    expect(shortId('0f1e2d3c-aaaa-bbbb')).toBe('0f1e2d3c');
  });

  it('names the manager by name, else e-mail, else Not assigned', () => {
    expect(managerLabel('Ann Lee', 'ann@x.test')).toBe('Ann Lee');
    expect(managerLabel(null, 'ann@x.test')).toBe('ann@x.test');
    expect(managerLabel(' ', null)).toBe('Not assigned');
    expect(titleCase('NACHA_GENERATED')).toBe('NACHA Generated');
    expect(titleCase('NACHA_PENDING')).toBe('NACHA Pending');
    expect(titleCase('PAYMENT_COMPLETED')).toBe('Payment Completed');
  });

  it('offers up to 5 page buttons around the current page, inside the range', () => {
    expect(pageButtons(1, 1)).toEqual([1]);
    expect(pageButtons(2, 3)).toEqual([1, 2, 3]);
    expect(pageButtons(1, 12)).toEqual([1, 2, 3, 4, 5]);
    expect(pageButtons(7, 12)).toEqual([5, 6, 7, 8, 9]);
    expect(pageButtons(12, 12)).toEqual([8, 9, 10, 11, 12]);
    expect(pageButtons(1, 0)).toEqual([1]);
    expect(pageSummary(2, 3, 27)).toBe('Page 2 of 3 • Total: 27 approvals');
    expect(pageSummary(1, 0, 0)).toBe('Page 1 of 1 • Total: 0 approvals');
    expect(pageSummary(1, 1, 1)).toBe('Page 1 of 1 • Total: 1 approval');
    expect(pageSummary(1, 1, 1, 'bills')).toBe('Page 1 of 1 • Total: 1 bill');
  });

  it('flips the direction of the same column; another column starts ascending', () => {
    expect(toggleSort({ key: 'createdAt', direction: 'desc' }, 'createdAt')).toEqual({
      key: 'createdAt',
      direction: 'asc',
    });
    expect(toggleSort({ key: 'createdAt', direction: 'desc' }, 'totalAmount')).toEqual({
      key: 'totalAmount',
      direction: 'asc',
    });
  });

  it('says relative times and the history time', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(relativeTime('2026-11-25T11:59:30Z', now)).toBe('less than a minute');
    expect(relativeTime('2026-11-25T11:55:00Z', now)).toBe('5 minutes');
    expect(relativeTime('2026-11-25T11:00:00Z', now)).toBe('1 hour');
    expect(relativeTime('2026-11-22T12:00:00Z', now)).toBe('3 days');
    const local = new Date(2026, 2, 4, 9, 5);
    expect(historyTime(local.toISOString())).toBe('Mar 4, 09:05');
  });

  it('shows the second stat row only with bill figures; summarises bulk results', () => {
    const zero = { processedBills: 0, approvedBills: 0, processedTotalAmount: 0, approvedTotalAmount: 0 };
    expect(hasBillFigures(zero)).toBe(false);
    expect(hasBillFigures({ ...zero, processedBills: 2 })).toBe(true);
    expect(bulkSummary('approved', { succeeded: 3, failed: 0 })).toBe('3 approvals approved');
    expect(bulkSummary('rejected', { succeeded: 1, failed: 2 })).toBe('1 approval rejected, 2 failed');
  });
});

describe('parseRecipients (the edit dialog, checked as the server checks)', () => {
  it('splits on commas, semicolons and lines; trims, lower-cases and keeps each once', () => {
    expect(parseRecipients(' AP@Client.example,\ncfo@client.example ; ap@client.example\n\n')).toEqual({
      recipients: ['ap@client.example', 'cfo@client.example'],
      error: null,
    });
    expect(parseRecipients('')).toEqual({ recipients: [], error: null });
  });
  it('names the first address the server would refuse, and more than 20', () => {
    expect(parseRecipients('a@b.example, nope, c@d').error).toBe('Not a valid e-mail address: nope');
    expect(parseRecipients('x..y@b.example').error).toBe('Not a valid e-mail address: x..y@b.example');
    const many = Array.from({ length: 21 }, (_, i) => `p${i}@b.example`).join(',');
    expect(parseRecipients(many).error).toBe('At most 20 recipients');
  });
});

describe('pageOf (/bills pages its bills in memory)', () => {
  it('cuts the page and keeps the page inside the list', () => {
    const rows = Array.from({ length: 23 }, (_, i) => i);
    expect(pageOf(rows, 1, 10)).toEqual({ rows: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], page: 1, totalPages: 3 });
    expect(pageOf(rows, 3, 10)).toEqual({ rows: [20, 21, 22], page: 3, totalPages: 3 });
    expect(pageOf(rows, 9, 10).page).toBe(3);
    expect(pageOf([], 2, 10)).toEqual({ rows: [], page: 1, totalPages: 1 });
  });
});

describe('historyDetails (a history step in the reader’s format)', () => {
  const created = {
    details: '2 bills, $4,693.45, priority High, assigned to Max Manager',
    amount: 4693.45,
    threshold: null,
  };
  it('puts each amount of the step in the locale’s format, and leaves the rest as the server said it', () => {
    expect(historyDetails(created, 'de-DE')).toBe(
      `2 bills, ${formatCurrency(4693.45, 'USD', 'de-DE')}, priority High, assigned to Max Manager`,
    );
    expect(historyDetails(created, 'de-DE')).toContain('4.693,45');
    expect(historyDetails(created, 'en-US')).toBe(created.details);
    const first = {
      details: '2 bills, $12,000.00: above $10,000.00, awaiting a second approver',
      amount: 12000,
      threshold: 10000,
    };
    expect(historyDetails(first, 'fr-FR')).toBe(
      `2 bills, ${formatCurrency(12000, 'USD', 'fr-FR')}: above ${formatCurrency(10000, 'USD', 'fr-FR')}, awaiting a second approver`,
    );
    expect(historyDetails({ details: null, amount: null, threshold: null })).toBeNull();
    expect(historyDetails({ details: 'Wrong vendor', amount: null, threshold: null }, 'de-DE')).toBe(
      'Wrong vendor',
    );
  });
});
