// System Health: status in capitals (default badge when 'healthy', destructive otherwise),
// uptime as hours and minutes, and the version.
import { Activity } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import type { SystemHealth } from '../api/dashboard';
import { formatUptime } from '../utils/format';

export function SystemHealthCard({
  health,
  loading,
  error,
  onRetry,
}: {
  health: SystemHealth | undefined;
  loading: boolean;
  error: string | null;
  onRetry: () => void;
}) {
  return (
    <Card role="group" aria-labelledby="system-health-title" data-testid="system-health" className="gap-4">
      <CardHeader className="flex flex-row items-center justify-between">
        <CardTitle as="h2" id="system-health-title" className="flex items-center gap-2">
          <Activity className="size-4 text-muted-foreground" aria-hidden="true" />
          System Health
        </CardTitle>
        {health ? (
          <Badge
            variant={health.status === 'healthy' ? 'default' : 'destructive'}
            data-testid="health-status"
            data-variant={health.status === 'healthy' ? 'default' : 'destructive'}
          >
            {health.status.toUpperCase()}
          </Badge>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-3">
        {error && !health ? (
          <div role="alert" className="flex flex-wrap items-center gap-3 text-sm text-destructive">
            <span>Error loading system health: {error}</span>
            <Button variant="outline" size="sm" onClick={onRetry}>
              Retry
            </Button>
          </div>
        ) : null}
        {loading && !health ? (
          <div className="grid gap-2" aria-hidden="true">
            <Skeleton className="h-4 w-40" />
            <Skeleton className="h-4 w-32" />
          </div>
        ) : null}
        {health ? (
          <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
            <dt className="text-muted-foreground">Uptime</dt>
            <dd className="font-medium" data-testid="health-uptime">
              {formatUptime(health.uptime)}
            </dd>
            <dt className="text-muted-foreground">Version</dt>
            <dd className="font-medium" data-testid="health-version">
              {health.version}
            </dd>
          </dl>
        ) : null}
      </CardContent>
    </Card>
  );
}
