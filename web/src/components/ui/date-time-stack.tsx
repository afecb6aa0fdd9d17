// A date over its time, for table columns: on one line ('Nov 27, 2026, 10:05 AM') the column took
// twice the width, and the approvals and vendors tables scrolled sideways on a 1280-pixel screen.
const dateFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
const timeFormat = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' });

export function DateTimeStack({ iso, empty = '—' }: { iso: string | null | undefined; empty?: string }) {
  const d = iso ? new Date(iso) : null;
  if (!d || Number.isNaN(d.getTime())) return <span className="text-muted-foreground">{empty}</span>;
  return (
    <time dateTime={d.toISOString()} className="block leading-tight">
      <span className="block">{dateFormat.format(d)}</span>
      <span className="block text-xs text-muted-foreground">{timeFormat.format(d)}</span>
    </time>
  );
}
