// Banking days on real dates: weekends and the Fed's holidays, Sunday holidays observed on Monday,
// Saturday holidays not observed on the Friday before (the Fed stays open).
import { describe, expect, it } from 'vitest';
import { isBankingDay, nextBankingDay } from './banking-day.js';

describe('isBankingDay', () => {
  it.each([
    ['2026-07-03', true, 'Friday before Independence Day on a Saturday: the Fed is open'],
    ['2026-07-04', false, 'Independence Day, a Saturday'],
    ['2027-12-24', true, 'Friday before Christmas on a Saturday: the Fed is open'],
    ['2027-12-25', false, 'Christmas, a Saturday'],
    ['2027-12-31', true, "Friday before New Year's Day on a Saturday: the Fed is open"],
    ['2026-11-26', false, 'Thanksgiving'],
    ['2026-11-27', true, 'the Friday after Thanksgiving'],
    ['2026-06-19', false, 'Juneteenth, a Friday'],
    ['2027-06-18', true, 'Friday before Juneteenth on a Saturday'],
    ['2026-10-12', false, 'Columbus Day'],
    ['2029-11-12', false, 'Veterans Day on a Sunday, observed Monday'],
    ['2026-11-11', false, 'Veterans Day, a Wednesday'],
    ['2026-01-19', false, 'Martin Luther King Jr. Day'],
    ['2026-05-25', false, 'Memorial Day'],
    ['2026-09-07', false, 'Labor Day'],
    ['2026-02-16', false, "Washington's Birthday"],
    ['2026-07-06', true, 'a plain Monday'],
    ['2026-07-05', false, 'a Sunday'],
  ])('%s is %s (%s)', (date, expected) => {
    expect(isBankingDay(date)).toBe(expected);
  });

  it('refuses what is not a calendar date', () => {
    expect(() => isBankingDay('2026-02-30')).toThrow(RangeError);
    expect(() => nextBankingDay('26-07-03')).toThrow(RangeError);
  });
});

describe('nextBankingDay', () => {
  it.each([
    ['2026-07-02', '2026-07-03'],
    ['2026-07-03', '2026-07-06'],
    ['2027-12-23', '2027-12-24'],
    ['2027-12-24', '2027-12-27'],
    ['2026-11-25', '2026-11-27'],
    ['2026-06-18', '2026-06-22'],
    ['2026-10-09', '2026-10-13'],
    ['2029-11-09', '2029-11-13'],
    ['2026-12-31', '2027-01-04'],
    ['2026-12-24', '2026-12-28'],
  ])('after %s comes %s', (from, next) => {
    expect(nextBankingDay(from)).toBe(next);
  });
});
