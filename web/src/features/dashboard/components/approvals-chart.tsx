// Approvals by status over the last 30 days: stacked SVG bars, no chart library. Loaded
// with React.lazy from the dashboard so neither /login nor the dashboard's first paint carry it.
// Live: any approval change re-reads it through the cache, with the dashboard's figures.
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { ApprovalsChanged } from '../../../hooks/use-approval-changed';
import { useLive } from '../../../hooks/use-live';
import { useGqlQuery } from '../../../lib/use-graphql';
import { ApprovalsByStatusQuery } from '../api/approvals-by-status';
import { axisTicks, CHART_SERIES, dayLabel, seriesTotals, stackDays } from '../utils/chart';

const W = 600;
const H = 160;

export default function ApprovalsChart() {
  const data = useGqlQuery(
    ApprovalsByStatusQuery,
    { days: 30 },
    { fallback: 'Failed to fetch approvals by status' },
  );
  useLive(ApprovalsChanged, { id: null });

  const days = data.data?.dashboardApprovalsByStatus ?? [];
  const bars = stackDays(days, H);
  const totals = seriesTotals(days);
  const slot = days.length > 0 ? W / days.length : W;
  const barWidth = Math.max(2, slot * 0.7);
  const ticks = axisTicks(days);
  const range =
    days.length > 0 ? ` (${dayLabel(days[0].date)} to ${dayLabel(days[days.length - 1].date)})` : '';
  const summary = `Approvals created in the last ${days.length} days${range} by status: ${CHART_SERIES.map((s) => `${s.label} ${totals[s.key]}`).join(', ')}`;

  return (
    <Card role="group" aria-labelledby="approvals-chart-title" data-testid="approvals-chart">
      <CardHeader>
        <CardTitle as="h2" id="approvals-chart-title">
          Approvals by Status (30 days)
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-3">
        {data.error && !data.data ? (
          <p role="alert" className="text-sm text-destructive">
            {data.error.message}
          </p>
        ) : (
          <>
            <svg
              viewBox={`0 0 ${W} ${H}`}
              preserveAspectRatio="none"
              className="h-40 w-full"
              role="img"
              aria-label={summary}
            >
              <line x1={0} y1={H - 0.5} x2={W} y2={H - 0.5} stroke="#d1d5db" />
              {bars.map((d, i) => (
                <g key={d.date}>
                  {d.segments.map((s) => (
                    <rect
                      key={s.key}
                      x={i * slot + (slot - barWidth) / 2}
                      y={s.y}
                      width={barWidth}
                      height={s.height}
                      fill={s.color}
                    >
                      <title>{`${d.date}: ${s.count} ${s.key}`}</title>
                    </rect>
                  ))}
                </g>
              ))}
            </svg>
            {/* The date axis: the first and last day and a few between, under their bars. */}
            <div className="relative -mt-2 h-4 text-xs text-muted-foreground" data-testid="chart-date-axis">
              {ticks.map((t) => {
                const center = ((t.index + 0.5) / Math.max(1, days.length)) * 100;
                const edge =
                  t.index === 0
                    ? 'translate-x-0'
                    : t.index === days.length - 1
                      ? '-translate-x-full'
                      : '-translate-x-1/2';
                return (
                  <span
                    key={t.index}
                    className={`absolute top-0 whitespace-nowrap ${edge}`}
                    style={{ left: t.index === 0 ? 0 : t.index === days.length - 1 ? '100%' : `${center}%` }}
                  >
                    {t.label}
                  </span>
                );
              })}
            </div>
            <ul className="flex flex-wrap gap-4 text-sm" aria-label="Legend">
              {CHART_SERIES.map((s) => (
                <li key={s.key} className="flex items-center gap-1.5" data-testid={`chart-total-${s.key}`}>
                  <span
                    className="inline-block size-3 rounded-sm"
                    style={{ background: s.color }}
                    aria-hidden="true"
                  />
                  {s.label}: {totals[s.key]}
                </li>
              ))}
            </ul>
          </>
        )}
      </CardContent>
    </Card>
  );
}
