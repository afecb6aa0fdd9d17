// The approvals chart's arithmetic: stacked segments per day, scaled to the busiest day.
export const CHART_SERIES = [
  { key: 'pending', label: 'Pending', color: '#b45309' },
  { key: 'approved', label: 'Approved', color: '#15803d' },
  { key: 'rejected', label: 'Rejected', color: '#b91c1c' },
  { key: 'expired', label: 'Expired', color: '#4b5563' },
] as const;
export type SeriesKey = (typeof CHART_SERIES)[number]['key'];

export type DayCounts = { date: string } & Record<SeriesKey, number>;

/** Each day's segments bottom-up with y and height on a chart `height` tall. */
export function stackDays(days: readonly DayCounts[], height: number) {
  const max = Math.max(1, ...days.map((d) => CHART_SERIES.reduce((s, x) => s + d[x.key], 0)));
  return days.map((d) => {
    let base = height;
    const segments = CHART_SERIES.filter((s) => d[s.key] > 0).map((s) => {
      const h = (d[s.key] / max) * height;
      base -= h;
      return { key: s.key, color: s.color, y: base, height: h, count: d[s.key] };
    });
    return { date: d.date, segments, total: CHART_SERIES.reduce((s, x) => s + d[x.key], 0) };
  });
}

/** Totals per series over the whole period (the legend). */
export function seriesTotals(days: readonly DayCounts[]): Record<SeriesKey, number> {
  const out = { pending: 0, approved: 0, rejected: 0, expired: 0 };
  for (const d of days) for (const s of CHART_SERIES) out[s.key] += d[s.key];
  return out;
}

/** A 'YYYY-MM-DD' day (UTC) as the axis shows it, e.g. 'Nov 3'. */
export function dayLabel(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  return d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** The days the date axis names: the first, the last, and about `count` evenly between. */
export function axisTicks(days: readonly { date: string }[], count = 5): { index: number; label: string }[] {
  if (days.length === 0) return [];
  const last = days.length - 1;
  const step = Math.max(1, Math.round(last / Math.max(1, count - 1)));
  const indices = new Set<number>([0]);
  for (let i = step; i < last; i += step) if (last - i >= step / 2) indices.add(i);
  indices.add(last);
  return [...indices].map((index) => ({ index, label: dayLabel(days[index].date) }));
}
