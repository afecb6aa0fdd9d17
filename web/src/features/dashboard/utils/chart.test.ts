import { describe, expect, it } from 'vitest';
import { axisTicks, dayLabel, seriesTotals, stackDays } from './chart';

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

  it('names the first and last day and about five between on the date axis', () => {
    expect(dayLabel('2026-11-03')).toBe('Nov 3');
    const days = Array.from({ length: 30 }, (_, i) => ({
      date: new Date(Date.UTC(2026, 9, 29 + i)).toISOString().slice(0, 10),
    }));
    const ticks = axisTicks(days);
    expect(ticks[0]).toEqual({ index: 0, label: 'Oct 29' });
    expect(ticks.at(-1)).toEqual({ index: 29, label: 'Nov 27' });
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(ticks.length).toBeLessThanOrEqual(6);
    expect(axisTicks([])).toEqual([]);
    expect(axisTicks(days.slice(0, 1))).toEqual([{ index: 0, label: 'Oct 29' }]);
  });
});
