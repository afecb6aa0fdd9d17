// Approvals by status over the last 30 days (issue 12 §8): stacked SVG bars, no chart library. Loaded
// with React.lazy from the dashboard so neither /login nor the dashboard's first paint carry it.
// Live: any approval change refetches it.
import { useEffect, useRef } from 'react';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { useApprovalChanged } from '../../../hooks/use-approval-changed';
import { useRemote } from '../../../lib/use-remote';
import { getApprovalsByStatus } from '../api/get-approvals-by-status';
import { CHART_SERIES, seriesTotals, stackDays } from '../utils/chart';

const W = 600;
const H = 160;

export default function ApprovalsChart() {
  const data = useRemote((signal) => getApprovalsByStatus(signal), []);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const { reload } = data;
  useApprovalChanged(null, () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(reload, 300);
  });
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const days = data.data ?? [];
  const bars = stackDays(days, H);
  const totals = seriesTotals(days);
  const slot = days.length > 0 ? W / days.length : W;
  const barWidth = Math.max(2, slot * 0.7);
  const summary = `Approvals created in the last ${days.length} days by status: ${CHART_SERIES.map((s) => `${s.label} ${totals[s.key]}`).join(', ')}`;

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
            <svg viewBox={`0 0 ${W} ${H}`} className="h-40 w-full" role="img" aria-label={summary}>
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
