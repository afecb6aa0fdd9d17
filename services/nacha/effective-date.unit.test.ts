// The effective entry date's rules: a chosen date is a banking day, not past, at most 30 days
// ahead, today only in an open same-day window; the file keeps a chosen date still valid, else the
// next banking day; Same-Day before 14:45 New York is today unless an entry is above $1,000,000.
import { describe, expect, it } from 'vitest';
import { chosenDateProblem, fileEffectiveDate, SAME_DAY_LIMIT_CENTS, sameDayOpen } from './effective-date.js';

// December: New York is UTC-5. Monday 2026-12-07.
const MONDAY_9AM = new Date('2026-12-07T14:00:00Z');
const MONDAY_1444 = new Date('2026-12-07T19:44:00Z');
const MONDAY_1445 = new Date('2026-12-07T19:45:00Z');
const SATURDAY_9AM = new Date('2026-12-12T14:00:00Z');

describe('a chosen effective date', () => {
  it('accepts a banking day ahead', () => {
    expect(chosenDateProblem('2026-12-08', MONDAY_9AM, false)).toBeNull();
    expect(chosenDateProblem('2027-01-06', MONDAY_9AM, false)).toBeNull();
  });
  it('refuses what is not a date', () => {
    expect(chosenDateProblem('2026-02-30', MONDAY_9AM, false)).toContain('not a date');
    expect(chosenDateProblem('12/08/2026', MONDAY_9AM, false)).toContain('not a date');
  });
  it('refuses a weekend day, naming it', () => {
    expect(chosenDateProblem('2026-12-12', MONDAY_9AM, false)).toBe(
      '2026-12-12 is a Saturday: not a banking day',
    );
    expect(chosenDateProblem('2026-12-13', MONDAY_9AM, false)).toContain('Sunday');
  });
  it('refuses a Federal Reserve holiday', () => {
    expect(chosenDateProblem('2026-12-25', MONDAY_9AM, false)).toContain('holiday: not a banking day');
  });
  it('refuses the past and more than 30 days ahead', () => {
    expect(chosenDateProblem('2026-12-04', MONDAY_9AM, true)).toContain('in the past');
    expect(chosenDateProblem('2027-01-07', MONDAY_9AM, false)).toContain('more than 30 days ahead');
  });
  it('takes today only with Same-Day on and before 14:45 New York', () => {
    expect(chosenDateProblem('2026-12-07', MONDAY_9AM, false)).toContain('Same-Day ACH');
    expect(chosenDateProblem('2026-12-07', MONDAY_9AM, true)).toBeNull();
    expect(chosenDateProblem('2026-12-07', MONDAY_1444, true)).toBeNull();
    expect(chosenDateProblem('2026-12-07', MONDAY_1445, true)).toContain('deadline');
  });
  it('has no same-day window on a day the Fed is closed', () => {
    expect(sameDayOpen(SATURDAY_9AM, true)).toBe(false);
    expect(sameDayOpen(MONDAY_9AM, true)).toBe(true);
    expect(sameDayOpen(MONDAY_9AM, false)).toBe(false);
  });
});

describe('the file’s effective date', () => {
  const base = { chosen: null, sameDayAch: false, entryCents: [10_000] };
  it('is the next banking day by default (a Saturday file: Monday)', () => {
    expect(fileEffectiveDate({ ...base, now: MONDAY_9AM })).toEqual({
      effectiveDate: '2026-12-08',
      sameDay: false,
      note: null,
    });
    expect(fileEffectiveDate({ ...base, now: SATURDAY_9AM }).effectiveDate).toBe('2026-12-14');
  });
  it('is today with Same-Day on before the deadline, the next banking day after it', () => {
    expect(fileEffectiveDate({ ...base, sameDayAch: true, now: MONDAY_1444 })).toEqual({
      effectiveDate: '2026-12-07',
      sameDay: true,
      note: null,
    });
    expect(fileEffectiveDate({ ...base, sameDayAch: true, now: MONDAY_1445 })).toMatchObject({
      effectiveDate: '2026-12-08',
      sameDay: false,
    });
  });
  it('keeps a chosen date still valid', () => {
    expect(fileEffectiveDate({ ...base, chosen: '2026-12-10', now: MONDAY_9AM })).toMatchObject({
      effectiveDate: '2026-12-10',
      note: null,
    });
  });
  it('never takes a chosen date that passed: the next banking day, said', () => {
    const r = fileEffectiveDate({ ...base, chosen: '2026-12-04', now: MONDAY_9AM });
    expect(r.effectiveDate).toBe('2026-12-08');
    expect(r.note).toContain('2026-12-04');
    // Today chosen in the window, the file made after it: tomorrow.
    const late = fileEffectiveDate({ ...base, sameDayAch: true, chosen: '2026-12-07', now: MONDAY_1445 });
    expect(late).toMatchObject({ effectiveDate: '2026-12-08', sameDay: false });
    expect(late.note).toContain('deadline');
  });
  it('sends the whole file next day when an entry is above $1,000,000.00', () => {
    const at = { ...base, sameDayAch: true, now: MONDAY_9AM };
    expect(fileEffectiveDate({ ...at, entryCents: [SAME_DAY_LIMIT_CENTS, 5] }).sameDay).toBe(true);
    const over = fileEffectiveDate({ ...at, entryCents: [5, SAME_DAY_LIMIT_CENTS + 1] });
    expect(over).toMatchObject({ effectiveDate: '2026-12-08', sameDay: false });
    expect(over.note).toContain('$1,000,000.00');
    // A later date chosen is not same-day: the limit does not apply.
    expect(
      fileEffectiveDate({ ...at, chosen: '2026-12-09', entryCents: [SAME_DAY_LIMIT_CENTS + 1] }),
    ).toMatchObject({ effectiveDate: '2026-12-09', note: null });
  });
});
