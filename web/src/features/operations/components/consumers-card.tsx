// Read models and process managers: where each stands in the log, how far behind it is, and the
// events it parked (kept failing on) with their error, a retry and a dismissal; dismissed events stay
// listed below with who dismissed them, when and why.
import { Workflow } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '../../../components/ui/table';
import { type LogConsumer, useOperationsActions } from '../api/operations';
import { formatLag, formatTime, shortPosition } from '../utils/format';
import { DismissParkedButton } from './dismiss-parked-dialog';
import { RetryButton } from './retry-button';

const KIND_LABEL = { PROJECTION: 'Read model', PROCESS_MANAGER: 'Process manager' } as const;

export function ConsumersCard({
  consumers,
  loading,
  onChanged,
}: {
  consumers: readonly LogConsumer[] | undefined;
  loading: boolean;
  onChanged: () => void;
}) {
  const { retryParkedEvent } = useOperationsActions();
  const parked = (consumers ?? []).flatMap((c) => c.parked.map((event) => ({ consumer: c.name, event })));
  const dismissed = (consumers ?? [])
    .flatMap((c) => (c.dismissed ?? []).map((event) => ({ consumer: c.name, event })))
    .sort((a, b) => b.event.dismissedAt.localeCompare(a.event.dismissedAt));
  return (
    <Card role="group" aria-labelledby="consumers-title" data-testid="consumers-card">
      <CardHeader>
        <CardTitle as="h2" id="consumers-title" className="flex items-center gap-2">
          <Workflow className="size-4 text-muted-foreground" aria-hidden="true" />
          Read models and process managers
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-6">
        {loading && !consumers ? (
          <div className="grid gap-2" aria-hidden="true">
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : (
          <Table aria-label="Consumers of the event log">
            <TableHeader>
              <TableRow>
                <TableHead scope="col">Name</TableHead>
                <TableHead scope="col">Kind</TableHead>
                <TableHead scope="col">Checkpoint</TableHead>
                <TableHead scope="col" className="text-right">
                  Lag
                </TableHead>
                <TableHead scope="col" className="text-right">
                  Parked
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {(consumers ?? []).map((c) => (
                <TableRow key={c.name} data-testid={`consumer-row-${c.name}`}>
                  <TableCell className="font-medium">{c.name}</TableCell>
                  <TableCell>{KIND_LABEL[c.kind]}</TableCell>
                  <TableCell className="font-mono text-xs" title={c.checkpoint ?? 'not started'}>
                    {c.checkpoint === null ? 'not started' : shortPosition(c.checkpoint)}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{formatLag(c.lagSeconds)}</TableCell>
                  <TableCell className="text-right tabular-nums">
                    {c.parked.length > 0 ? <Badge variant="destructive">{c.parked.length}</Badge> : 0}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}

        <section aria-labelledby="parked-title" className="grid gap-3">
          <h3 id="parked-title" className="text-sm font-semibold">
            Parked events
          </h3>
          {consumers && parked.length === 0 ? (
            <p className="text-sm text-muted-foreground">No parked events</p>
          ) : (
            <ul className="grid gap-3" aria-labelledby="parked-title" data-testid="parked-events">
              {parked.map(({ consumer, event }) => (
                <li
                  key={`${consumer}/${event.eventId}`}
                  data-testid={`parked-${event.eventId}`}
                  className="flex flex-col gap-2 rounded-md border p-3 sm:flex-row sm:items-start sm:justify-between"
                >
                  <div className="grid min-w-0 gap-1 text-sm">
                    <span className="font-medium [overflow-wrap:anywhere]">
                      {event.eventType} <span className="text-muted-foreground">in {consumer}</span>
                    </span>
                    <span className="text-destructive [overflow-wrap:anywhere]">{event.error}</span>
                    <span className="text-xs text-muted-foreground">
                      Attempts: {event.attempts} · Position{' '}
                      <span className="font-mono" title={event.position}>
                        {shortPosition(event.position)}
                      </span>{' '}
                      · Parked <time dateTime={event.parkedAt}>{formatTime(event.parkedAt)}</time>
                    </span>
                  </div>
                  <div className="flex shrink-0 flex-wrap items-center gap-2">
                    {event.retryRequested ? (
                      <Badge variant="secondary">Retry requested</Badge>
                    ) : (
                      <RetryButton
                        label={`Retry ${event.eventType} in ${consumer}`}
                        action={() => retryParkedEvent(consumer, event.eventId)}
                        onDone={onChanged}
                      />
                    )}
                    <DismissParkedButton
                      consumer={consumer}
                      eventId={event.eventId}
                      eventType={event.eventType}
                      onDone={onChanged}
                    />
                  </div>
                </li>
              ))}
            </ul>
          )}
        </section>

        {dismissed.length > 0 ? (
          <section aria-labelledby="dismissed-title" className="grid gap-3">
            <h3 id="dismissed-title" className="text-sm font-semibold">
              Dismissed events
            </h3>
            <ul className="grid gap-3" aria-labelledby="dismissed-title" data-testid="dismissed-events">
              {dismissed.map(({ consumer, event }) => (
                <li
                  key={`${consumer}/${event.eventId}`}
                  data-testid={`dismissed-${event.eventId}`}
                  className="grid gap-1 rounded-md border border-dashed p-3 text-sm"
                >
                  <span className="font-medium [overflow-wrap:anywhere]">
                    {event.eventType} <span className="text-muted-foreground">in {consumer}</span>
                  </span>
                  <span className="[overflow-wrap:anywhere]">Reason: {event.reason}</span>
                  <span className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
                    Dismissed by {event.dismissedBy?.name ?? 'unknown'}{' '}
                    <time dateTime={event.dismissedAt}>{formatTime(event.dismissedAt)}</time> · Error:{' '}
                    {event.error}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </CardContent>
    </Card>
  );
}
