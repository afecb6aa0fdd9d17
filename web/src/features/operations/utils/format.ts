// How the operations page writes positions, lags and times.

/** `0000000000001234:0000000000000056` → `1234:56` (the full position goes in a title). */
export function shortPosition(position: string | null): string {
  if (!position) return '—';
  return position
    .split(':')
    .map((part) => part.replace(/^0+(?=\d)/, ''))
    .join(':');
}

/** Seconds behind the log, as a person reads it. */
export function formatLag(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 1) return 'caught up';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

export function formatTime(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleString();
}
