// The /bills screen's calm notice while QuickBooks asks Billflow to wait (its request limits): the
// bills shown are Billflow's copy as it last matched QuickBooks, and the notice says as of when. Not
// an error: the bills can still be chosen and an approval created from them.
import { Clock } from 'lucide-react';

/** 'HH:MM' in the reader's local time, or null when the time cannot be read. */
export function clockTime(iso: string): string | null {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The copy's time when the bills come from it while QuickBooks asks to wait; null otherwise. */
export function copyShownAsOf(bills: ReadonlyArray<{ source: string; copyAsOf: string }>): string | null {
  const fromCopy = bills.find((b) => b.source === 'copy');
  return fromCopy ? fromCopy.copyAsOf : null;
}

export function QuickBooksWaitNotice({ asOf }: { asOf: string }) {
  const time = clockTime(asOf);
  return (
    <p
      role="status"
      aria-live="polite"
      data-testid="quickbooks-wait-notice"
      className="flex items-center gap-2 border-b bg-sky-50 px-6 py-3 text-sm text-sky-950"
    >
      <Clock aria-hidden="true" className="size-4 shrink-0" />
      {time
        ? `QuickBooks asked us to wait; showing bills as of ${time}`
        : 'QuickBooks asked us to wait; showing the bills Billflow last read'}
    </p>
  );
}
