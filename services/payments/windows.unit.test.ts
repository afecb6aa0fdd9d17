// Cut-off windows in New York time: the next one after an instant, across DST and banking days.
import { describe, expect, it } from 'vitest';
import { deliveryDateProblem, deliveryTime, newYorkClock, newYorkInstant, nextWindow } from './windows.js';

describe('cut-off windows', () => {
  it('names a New York wall time as its instant, in winter (UTC-5) and summer (UTC-4)', () => {
    expect(newYorkInstant('2026-12-07', '10:15').toISOString()).toBe('2026-12-07T15:15:00.000Z');
    expect(newYorkInstant('2026-07-07', '10:15').toISOString()).toBe('2026-07-07T14:15:00.000Z');
    expect(newYorkClock(new Date('2026-12-07T15:15:00Z'))).toEqual({ day: '2026-12-07', minutes: 615 });
  });

  it("takes today's next window on a banking day, else the first of the next banking day", () => {
    // Monday 2026-12-07, 09:00 New York: the 10:15 window.
    expect(nextWindow(new Date('2026-12-07T14:00:00Z'))).toMatchObject({ day: '2026-12-07', time: '10:15' });
    // 12:00: the 14:30 window.
    expect(nextWindow(new Date('2026-12-07T17:00:00Z'))).toMatchObject({ day: '2026-12-07', time: '14:30' });
    // Exactly at a window: it has closed, the next one.
    expect(nextWindow(new Date('2026-12-07T15:15:00Z'))).toMatchObject({ time: '14:30' });
    // 17:00: Tuesday's first.
    expect(nextWindow(new Date('2026-12-07T22:00:00Z'))).toMatchObject({ day: '2026-12-08', time: '10:15' });
    // Friday evening: Monday. Christmas Eve evening 2026 (Thursday): Saturday, Sunday and Christmas
    // (Friday) are no banking days, so Monday the 28th.
    expect(nextWindow(new Date('2026-12-11T23:00:00Z'))).toMatchObject({ day: '2026-12-14' });
    expect(nextWindow(new Date('2026-12-24T23:00:00Z'))).toMatchObject({ day: '2026-12-28' });
  });

  it("follows the company's own windows, in any order", () => {
    const w = nextWindow(new Date('2026-12-07T15:00:00Z'), ['16:00', '09:30']);
    expect(w).toMatchObject({ day: '2026-12-07', time: '16:00' });
    expect(w.at.toISOString()).toBe('2026-12-07T21:00:00.000Z');
  });
});

describe('whether a file may go to the bank now', () => {
  // Monday 2026-12-07, 10:00 and 15:00 New York.
  const morning = new Date('2026-12-07T15:00:00Z');
  const afternoon = new Date('2026-12-07T20:00:00Z');
  it('sends a file effective on a later day, refuses one whose date has passed', () => {
    expect(deliveryDateProblem('2026-12-08', false, morning)).toBeNull();
    expect(deliveryDateProblem('2026-12-04', false, morning)).toMatch(/has passed/);
  });
  it('refuses a file effective today unless it is Same-Day, and a Same-Day one after the deadline', () => {
    expect(deliveryDateProblem('2026-12-07', false, morning)).toMatch(/would settle the same day/);
    expect(deliveryDateProblem('2026-12-07', true, morning)).toBeNull();
    expect(deliveryDateProblem('2026-12-07', true, afternoon)).toMatch(
      /missed today's same-day deadline \(14:45/,
    );
  });
});

describe('when a file goes', () => {
  const windows = ['10:15', '14:30', '16:30'];
  it('at the next window; a Same-Day file whose next window would be past the deadline at once', () => {
    // 14:35 New York: the next window is 16:30, after the 14:45 same-day deadline.
    const at = new Date('2026-12-07T19:35:00Z');
    expect(deliveryTime(at, windows, false).toISOString()).toBe('2026-12-07T21:30:00.000Z');
    expect(deliveryTime(at, windows, true)).toEqual(at);
    // 09:00: the 10:15 window is before the deadline, Same-Day or not.
    const morning = new Date('2026-12-07T14:00:00Z');
    expect(deliveryTime(morning, windows, true).toISOString()).toBe('2026-12-07T15:15:00.000Z');
    // 15:00: too late for same-day anyway; the next window (its date check refuses it then, in words).
    const late = new Date('2026-12-07T20:00:00Z');
    expect(deliveryTime(late, windows, true).toISOString()).toBe('2026-12-07T21:30:00.000Z');
  });
});
