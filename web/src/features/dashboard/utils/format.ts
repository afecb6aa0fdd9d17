// Display helpers of the dashboard: uptime as hours and minutes, timestamps in local time.

/** Uptime in seconds shown as hours and minutes, e.g. 3725 → '1h 2m'. */
export function formatUptime(seconds: number): string {
  const total = Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return `${hours}h ${minutes}m`;
}

/** A timestamp in the browser's local date and time; 'Invalid date' when it cannot be read. */
export function formatLocalTimestamp(value: string): string {
  const date = new Date(value);
  if (!value || Number.isNaN(date.getTime())) return 'Invalid date';
  try {
    return date.toLocaleString();
  } catch {
    return 'Invalid date';
  }
}
