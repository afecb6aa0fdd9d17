// Banking days: weekdays on which the Federal Reserve is open. The federal holiday list comes from
// @18f/us-federal-holidays; the Fed's own rule goes on top: a holiday on a Sunday is observed on the
// Monday, but one on a Saturday is not observed on the Friday before (the Fed stays open;
// federalreserve.gov's holiday schedule). Dates are calendar dates ('YYYY-MM-DD'), no time zone.
import { allForYear } from '@18f/us-federal-holidays';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The observed Fed holidays of each year asked about, as 'YYYY-MM-DD'. */
const holidaysByYear = new Map<number, Set<string>>();

function fedHolidays(year: number): Set<string> {
  let set = holidaysByYear.get(year);
  if (!set) {
    set = new Set(
      allForYear(year, { shiftSaturdayHolidays: false, shiftSundayHolidays: true })
        // The Fed first closed for Juneteenth in 2022 (the holiday was enacted on 2021-06-17).
        .filter((h) => !(year < 2022 && h.name.startsWith('Juneteenth')))
        .map((h) => h.dateString),
    );
    holidaysByYear.set(year, set);
  }
  return set;
}

function parse(date: string): Date {
  const m = ISO_DATE.exec(date);
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!d || d.toISOString().slice(0, 10) !== date)
    throw new RangeError(`'${date}' is not a calendar date written YYYY-MM-DD`);
  return d;
}

const iso = (d: Date) => d.toISOString().slice(0, 10);

/** A weekday that is not an observed Federal Reserve holiday. */
export function isBankingDay(date: string): boolean {
  const d = parse(date);
  const weekday = d.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !fedHolidays(d.getUTCFullYear()).has(date);
}

/** The first banking day strictly after the given date. */
export function nextBankingDay(fromIsoDate: string): string {
  const d = parse(fromIsoDate);
  for (;;) {
    d.setUTCDate(d.getUTCDate() + 1);
    const next = iso(d);
    if (isBankingDay(next)) return next;
  }
}

/**
 * The Fed's second same-day deadline, 14:45 New York (settlement 17:00). The first (10:30, settling
 * 13:00) would leave a morning's approvals for tomorrow; the third (16:45, settling 18:00) has no
 * confirmed batch-header marker and leaves no margin for the ODFI's own earlier cut-off. A same-day
 * file is made before it and must reach the bank before it.
 */
export const SAME_DAY_DEADLINE = '14:45';
