import { describe, expect, it } from 'vitest';
import { seriesTotals, stackDays } from './chart';

const day = (date: string, pending: number, approved: number, rejected = 0, expired = 0) => ({
  date,
  pending,
  approved,
  rejected,
  expired,
});

describe('approvals chart', () => {
  it('stacks segments bottom-up, scaled to the busiest day', () => {
    const [a, b, c] = stackDays(
      [day('2026-11-01', 1, 1), day('2026-11-02', 4, 0), day('2026-11-03', 0, 0)],
      100,
    );
    expect(b.segments).toEqual([{ key: 'pending', color: '#b45309', y: 0, height: 100, count: 4 }]);
    expect(a.segments.map((s) => [s.key, s.y, s.height])).toEqual([
      ['pending', 75, 25],
      ['approved', 50, 25],
    ]);
    expect(c.segments).toEqual([]);
    expect(c.total).toBe(0);
  });

  it('totals each status over the period', () => {
    expect(seriesTotals([day('a', 1, 2, 3, 4), day('b', 1, 0, 0, 1)])).toEqual({
      pending: 2,
      approved: 2,
      rejected: 3,
      expired: 5,
    });
  });
});
