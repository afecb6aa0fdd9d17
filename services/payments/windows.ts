// A company's cut-off windows: the times of day, in New York (the Federal Reserve's time), by which
// its bank must have a file to send it in that processing window. A file made now waits for the
// next window on a banking day, and is uploaded then. Pure: the caller gives the instant.
import { isBankingDay, nextBankingDay, SAME_DAY_DEADLINE } from '../nacha/banking-day.js';
import { newYorkNow } from '../nacha/effective-date.js';

/** Fifteen minutes before the Fed's same-day deadlines (10:30, 14:45, 16:45 ET): ODFIs cut earlier. */
export const DEFAULT_WINDOWS = ['10:15', '14:30', '16:30'] as const;

/** The New York wall clock of an instant: 'YYYY-MM-DD' and minutes since midnight. */
export function newYorkClock(at: Date): { day: string; minutes: number } {
  const { day, time } = newYorkNow(at);
  return { day, minutes: Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5)) };
}

/** The instant a New York wall time names (the offset found by asking the clock, DST included). */
export function newYorkInstant(day: string, hhmm: string): Date {
  const asUtc = Date.parse(`${day}T${hhmm}:00Z`);
  // New York is 4 or 5 hours behind UTC: guess 5, then correct by what the clock says.
  let guess = asUtc + 5 * 3_600_000;
  for (let i = 0; i < 2; i++) {
    const seen = newYorkClock(new Date(guess));
    const seenUtc = Date.parse(`${seen.day}T00:00:00Z`) + seen.minutes * 60_000;
    guess += asUtc - seenUtc;
  }
  return new Date(guess);
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The next cut-off window strictly after `now`: today's first window still ahead when today is a
 * banking day, else the first window of the next banking day.
 */
export function nextWindow(
  now: Date,
  windows: readonly string[] = DEFAULT_WINDOWS,
): { day: string; time: string; at: Date } {
  if (windows.length === 0) throw new Error('a company has at least one cut-off window');
  const sorted = [...windows].sort((a, b) => toMinutes(a) - toMinutes(b));
  const { day, minutes } = newYorkClock(now);
  if (isBankingDay(day)) {
    const time = sorted.find((w) => toMinutes(w) > minutes);
    if (time) return { day, time, at: newYorkInstant(day, time) };
  }
  const next = nextBankingDay(day);
  return { day: next, time: sorted[0], at: newYorkInstant(next, sorted[0]) };
}

/**
 * Why a file must not go to the bank now, or null: an effective date in the past, or today for a
 * file that is not Same-Day (a past or present date submitted before a same-day deadline settles
 * that day, by accident), or a Same-Day file after the same-day deadline.
 */
export function deliveryDateProblem(effectiveDate: string, sameDay: boolean, now: Date): string | null {
  const { day, minutes } = newYorkClock(now);
  if (effectiveDate > day) return null;
  if (effectiveDate < day)
    return `The file's effective date ${effectiveDate} has passed: Regenerate the file for a new date.`;
  if (!sameDay)
    return `The file's effective date ${effectiveDate} is today in New York: sent now it would settle the same day. Regenerate the file for a new date.`;
  if (minutes >= toMinutes(SAME_DAY_DEADLINE))
    return `The Same-Day file missed today's same-day deadline (${SAME_DAY_DEADLINE} New York): Regenerate the file for a new date.`;
  return null;
}

/**
 * When a file goes: at the next cut-off window, except a Same-Day file whose next window would pass
 * the same-day deadline: it goes at once, while the day's deadline still holds.
 */
export function deliveryTime(now: Date, windows: readonly string[], sameDay: boolean): Date {
  const window = nextWindow(now, windows);
  if (!sameDay) return window.at;
  const { day, minutes } = newYorkClock(now);
  const deadline = toMinutes(SAME_DAY_DEADLINE);
  const late = window.day !== day || toMinutes(window.time) >= deadline;
  return late && minutes < deadline ? now : window.at;
}
