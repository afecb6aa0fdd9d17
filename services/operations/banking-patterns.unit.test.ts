// The rapid-change pattern of the operations page: one user changing more than K vendors' banking
// within an hour is named once per burst, counted by distinct vendors (the same vendor twice is one).
import { describe, expect, it } from 'vitest';
import { RAPID_CHANGE_THRESHOLD, rapidBursts } from './banking-patterns.js';

const t0 = Date.parse('2026-12-06T09:00:00.000Z');
const change = (user: number, vendor: number, minutes: number) => ({
  requested_by: user,
  vendor_id: vendor,
  company_id: 3,
  requested_at: new Date(t0 + minutes * 60_000),
  vendor_name: `Vendor ${vendor}`,
  first_name: `User${user}`,
  last_name: 'Staff',
  email: null,
});

describe('rapid bank detail changes', () => {
  it('names a user with more than K vendors in an hour, once for the burst', () => {
    const rows = Array.from({ length: RAPID_CHANGE_THRESHOLD + 2 }, (_, i) => change(1, 100 + i, i * 5));
    expect(rapidBursts(rows)).toEqual([
      {
        userId: 1,
        userName: 'User1 Staff',
        from: rows[0].requested_at.toISOString(),
        to: rows.at(-1)!.requested_at.toISOString(),
        vendorCount: RAPID_CHANGE_THRESHOLD + 2,
        changeCount: RAPID_CHANGE_THRESHOLD + 2,
        vendors: rows.map((r) => r.vendor_name),
        companyIds: [3],
      },
    ]);
  });

  it('K vendors exactly, the same vendor changed again, or the changes spread over more than an hour: nothing', () => {
    const k = Array.from({ length: RAPID_CHANGE_THRESHOLD }, (_, i) => change(1, 100 + i, i));
    expect(rapidBursts(k)).toEqual([]);
    expect(rapidBursts([...k, change(1, 100, 10), change(1, 101, 11)])).toEqual([]);
    const spread = Array.from({ length: RAPID_CHANGE_THRESHOLD + 3 }, (_, i) => change(1, 100 + i, i * 15));
    expect(rapidBursts(spread)).toEqual([]);
  });

  it('two bursts of one user hours apart are two; another user with few changes is not named', () => {
    const burst = (start: number, base: number) =>
      Array.from({ length: RAPID_CHANGE_THRESHOLD + 1 }, (_, i) => change(1, base + i, start + i));
    const rows = [...burst(0, 100), ...burst(240, 200), change(2, 300, 1), change(2, 301, 2)].sort(
      (a, b) => a.requested_by - b.requested_by || a.requested_at.getTime() - b.requested_at.getTime(),
    );
    const found = rapidBursts(rows);
    expect(found.map((b) => [b.userId, b.vendorCount])).toEqual([
      [1, RAPID_CHANGE_THRESHOLD + 1],
      [1, RAPID_CHANGE_THRESHOLD + 1],
    ]);
    // Newest first.
    expect(found[0].from > found[1].from).toBe(true);
  });
});
