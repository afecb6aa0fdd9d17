// Queues: each BullMQ queue's counts, and its failed jobs (newest first) with their error, the approval
// and company they hold up (linked), and a retry.
import { ListTodo } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '../../../components/ui/table';
import { type QueueOverview, useOperationsActions } from '../api/operations';
import { formatTime } from '../utils/format';
import { RetryButton } from './retry-button';

const COLUMNS = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

export function QueuesCard({
  queues,
  loading,
  onChanged,
}: {
  queues: readonly QueueOverview[] | undefined;
  loading: boolean;
  onChanged: () => void;
}) {
  const { retryFailedJob } = useOperationsActions();
  const failed = (queues ?? []).flatMap((q) => q.failedJobs.map((job) => ({ queue: q.name, job })));
  return (
    <Card role="group" aria-labelledby="queues-title" data-testid="queues-card">
      <CardHeader>
        <CardTitle as="h2" id="queues-title" className="flex items-center gap-2">
          <ListTodo className="size-4 text-muted-foreground" aria-hidden="true" />
          Queues
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-6">
        {loading && !queues ? (
          <div className="grid gap-2" aria-hidden="true">
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : (
          <Table aria-label="Queue counts">
            <TableHeader>
              <TableRow>
                <TableHead scope="col">Queue</TableHead>
                {COLUMNS.map((c) => (
                  <TableHead key={c} scope="col" className="text-right capitalize">
                    {c}
                  </TableHead>
                ))}
              </TableRow>
            </TableHeader>
            <TableBody>
              {(queues ?? []).map((q) => (
                <TableRow key={q.name} data-testid={`queue-row-${q.name}`}>
                  <TableCell className="font-medium">
                    {q.name}
                    {q.available ? null : (
                      <Badge variant="destructive" className="ml-2">
                        Unavailable
                      </Badge>
                    )}
                  </TableCell>
                  {COLUMNS.map((c) => (
                    <TableCell
                      key={c}
                      className="text-right tabular-nums"
                      data-testid={`queue-${q.name}-${c}`}
                    >
                      {q.counts ? q.counts[c] : '—'}
                    </TableCell>
                  ))}
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}

        <section aria-labelledby="failed-jobs-title" className="grid gap-3">
          <h3 id="failed-jobs-title" className="text-sm font-semibold">
            Failed jobs
          </h3>
          {queues && failed.length === 0 ? (
            <p className="text-sm text-muted-foreground">No failed jobs</p>
          ) : (
            <ul className="grid gap-3" aria-labelledby="failed-jobs-title" data-testid="failed-jobs">
              {failed.map(({ queue, job }) => (
                <li
                  key={`${queue}/${job.id}`}
                  data-testid={`failed-job-${job.id}`}
                  className="flex flex-col gap-2 rounded-md border p-3 sm:flex-row sm:items-start sm:justify-between"
                >
                  <div className="grid min-w-0 gap-1 text-sm">
                    <span className="font-medium [overflow-wrap:anywhere]">
                      {queue} / {job.name} <span className="text-muted-foreground">#{job.id}</span>
                    </span>
                    {job.approvalId ? (
                      <span className="[overflow-wrap:anywhere]">
                        {job.companyName ?? 'A company'}:{' '}
                        <Link className="underline" to={`/approvals/${job.approvalId}`}>
                          approval {job.approvalId.slice(0, 8)}
                        </Link>
                      </span>
                    ) : job.companyName ? (
                      <span className="[overflow-wrap:anywhere]">{job.companyName}</span>
                    ) : null}
                    <span className="text-destructive [overflow-wrap:anywhere]">
                      {job.failedReason || 'No reason given'}
                    </span>
                    <span className="text-xs text-muted-foreground">
                      Attempts: {job.attemptsMade} · Failed{' '}
                      {job.failedAt ? <time dateTime={job.failedAt}>{formatTime(job.failedAt)}</time> : '—'}
                    </span>
                  </div>
                  <RetryButton
                    label={`Retry job ${job.name} #${job.id}`}
                    action={() => retryFailedJob(queue, job.id)}
                    onDone={onChanged}
                  />
                </li>
              ))}
            </ul>
          )}
        </section>
      </CardContent>
    </Card>
  );
}
