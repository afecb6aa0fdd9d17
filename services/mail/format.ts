// What every template does to the values it is handed: HTML-escaped for the HTML part, kept to one
// line everywhere (a name from QuickBooks with a line break must not forge lines of its own in the
// text part or the subject), money as US dollars with cents, dates spelled out in UTC.

/** HTML-escapes text for element content and double- or single-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** Control characters and runs of white space (line breaks included) become one space. */
export function oneLine(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029\s]+/g, ' ').trim();
}

const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** Integer cents as `$1,234.56` (negative: `-$1.00`). */
export function formatUsd(cents: number): string {
  return usd.format(cents / 100);
}

const dayFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  weekday: 'short',
  year: 'numeric',
  month: 'long',
  day: 'numeric',
});
const timeFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** A calendar day `YYYY-MM-DD` (an ACH effective date) as `Mon, June 2, 2025`. */
export function formatDay(isoDay: string): string {
  return dayFormat.format(new Date(`${isoDay.slice(0, 10)}T00:00:00Z`));
}

/** An instant as `June 9, 2025 at 14:00 UTC`. */
export function formatInstant(iso: string): string {
  return `${timeFormat.format(new Date(iso))} UTC`;
}

/** `1 bill`, `3 bills`. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
