// A payment file's effective entry date (reference/nacha.md, reference/ach-returns.md §5): the date
// the approver chose, when it is still a banking day ahead, else the next banking day; today, for a
// company that sends Same-Day ACH, when the file is made before the same-day deadline and no entry is
// above Same-Day ACH's per-payment limit. Pure: the caller gives the instant ("now").
import { isBankingDay, nextBankingDay, SAME_DAY_DEADLINE } from './banking-day.js';

export { SAME_DAY_DEADLINE };
/** The batch header's company descriptive date for a same-day file: the 17:00 settlement window. */
export const SAME_DAY_MARKER = 'SD1700';
/** Nacha's Same-Day ACH limit per payment since March 18, 2022: $1,000,000.00. */
export const SAME_DAY_LIMIT_CENTS = 100_000_000;
/**
 * How far ahead a date may be chosen: ODFIs warehouse future-dated files for about a month, and a
 * file's balances and banking are read when it is made, so a date further out would pay figures
 * that are weeks old by the day money moves.
 */
export const MAX_DAYS_AHEAD = 30;

const NY = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/** The New York wall clock of an instant: 'YYYY-MM-DD' and 'HH:mm'. */
export function newYorkNow(at: Date): { day: string; time: string } {
  const p = Object.fromEntries(NY.formatToParts(at).map((x) => [x.type, x.value]));
  return { day: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function calendarDate(s: string): Date | null {
  if (!ISO_DATE.test(s)) return null;
  const d = new Date(`${s}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s ? null : d;
}

const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** Same-Day ACH is open now: the company sends it, today is a banking day, before the deadline. */
export function sameDayOpen(now: Date, sameDayAch: boolean): boolean {
  const { day, time } = newYorkNow(now);
  return sameDayAch && isBankingDay(day) && time < SAME_DAY_DEADLINE;
}

/**
 * Why a chosen effective date is refused, or null: not a date, not a banking day, in the past, more
 * than MAX_DAYS_AHEAD ahead, or today without Same-Day ACH open (today is "the past" by settlement
 * otherwise, and a past date sent before a same-day deadline settles the same day by accident).
 */
export function chosenDateProblem(date: string, now: Date, sameDayAch: boolean): string | null {
  const d = calendarDate(date);
  if (!d) return `${date} is not a date written YYYY-MM-DD`;
  const today = newYorkNow(now).day;
  if (date < today) return `${date} is in the past (today is ${today} in New York)`;
  if (date > addDays(today, MAX_DAYS_AHEAD))
    return `${date} is more than ${MAX_DAYS_AHEAD} days ahead: choose a date by ${addDays(today, MAX_DAYS_AHEAD)}`;
  const weekday = d.getUTCDay();
  if (weekday === 0 || weekday === 6) return `${date} is a ${WEEKDAYS[weekday]}: not a banking day`;
  if (!isBankingDay(date)) return `${date} is a Federal Reserve holiday: not a banking day`;
  if (date === today && !sameDayOpen(now, sameDayAch))
    return sameDayAch
      ? `${date} is today and the same-day deadline (${SAME_DAY_DEADLINE} New York) has passed: choose a later banking day`
      : `${date} is today: only a company that sends Same-Day ACH may pay today; choose a later banking day`;
  return null;
}

export interface FileDate {
  /** 'YYYY-MM-DD'. */
  effectiveDate: string;
  /** Effective today, in a same-day window: the batch header carries SAME_DAY_MARKER. */
  sameDay: boolean;
  /** Why the file's date is not the one asked for (the chosen date lapsed, an entry above the limit). */
  note: string | null;
}

/**
 * The file's date when it is made: the chosen date if it is still valid, else the default (today when
 * Same-Day is open, else the next banking day). A same-day file with any entry above Nacha's
 * per-payment limit goes as a whole on the next banking day: one file has one effective date.
 */
export function fileEffectiveDate(o: {
  chosen: string | null;
  now: Date;
  sameDayAch: boolean;
  /** Every entry's amount: the credits and any offsetting debit. */
  entryCents: readonly number[];
}): FileDate {
  const today = newYorkNow(o.now).day;
  const nextDay = nextBankingDay(today);
  const open = sameDayOpen(o.now, o.sameDayAch);
  let effectiveDate = open ? today : nextDay;
  let note: string | null = null;
  if (o.chosen !== null) {
    const problem = chosenDateProblem(o.chosen, o.now, o.sameDayAch);
    if (problem === null) effectiveDate = o.chosen;
    else {
      // Never a past date: it would settle at once, or the same day by accident.
      effectiveDate = nextDay;
      note = `The chosen effective date ${o.chosen} no longer holds (${problem}): the file is effective ${nextDay}, the next banking day`;
    }
  }
  if (effectiveDate === today && o.entryCents.some((c) => c > SAME_DAY_LIMIT_CENTS)) {
    effectiveDate = nextDay;
    note = `An entry is above $1,000,000.00, Same-Day ACH's limit per payment: the whole file is effective ${nextDay}, the next banking day`;
  }
  return { effectiveDate, sameDay: effectiveDate === today, note };
}
