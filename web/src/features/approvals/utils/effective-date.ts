// The payment file's effective entry date in words, and the earliest date a person may choose: the
// Federal Reserve's calendar is New York's, so "today" is New York's day, not the browser's.

const NY_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** New York's calendar day of an instant, 'YYYY-MM-DD'. */
export const newYorkDay = (at: Date) => NY_DAY.format(at);

const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * The date field's min: today where the company sends Same-Day ACH, else tomorrow (the server
 * refuses a weekend, a holiday and today after the same-day deadline, saying why).
 */
export const earliestEffectiveDate = (sameDayAch: boolean, now = new Date()) =>
  sameDayAch ? newYorkDay(now) : addDays(newYorkDay(now), 1);

/** "Effective Mon, Dec 7 (same-day)" / "Effective Tue, Dec 8"; null without a date. */
export function effectiveWords(date: string | null | undefined, sameDay: boolean | null | undefined) {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const words = new Date(`${date}T12:00:00Z`).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    weekday: 'short',
    month: 'short',
    day: 'numeric',
  });
  return `Effective ${words}${sameDay ? ' (same-day)' : ''}`;
}
