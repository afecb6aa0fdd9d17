// The three figures of the dashboard: Total Companies, Active Users, Pending Approvals.
import { Building2, Clock, Users } from 'lucide-react';
import type { ComponentType } from 'react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import type { DashboardStats } from '../api/dashboard';

interface StatDefinition {
  key: 'totalCompanies' | 'activeUsers' | 'pendingApprovals';
  title: string;
  description: string;
  icon: ComponentType<{ className?: string; 'aria-hidden'?: boolean }>;
}

export const STAT_CARDS: readonly StatDefinition[] = [
  {
    key: 'totalCompanies',
    title: 'Total Companies',
    description: 'Active business accounts',
    icon: Building2,
  },
  { key: 'activeUsers', title: 'Active Users', description: 'Registered users', icon: Users },
  { key: 'pendingApprovals', title: 'Pending Approvals', description: 'Awaiting review', icon: Clock },
];

export function StatCard({
  id,
  title,
  description,
  value,
  loading,
  icon: Icon,
}: {
  id: string;
  title: string;
  description: string;
  value: number;
  loading: boolean;
  icon: StatDefinition['icon'];
}) {
  const titleId = `stat-${id}-title`;
  return (
    <Card role="group" aria-labelledby={titleId} data-testid={`stat-${id}`} className="gap-2">
      <CardHeader className="flex flex-row items-center justify-between">
        <CardTitle as="h2" id={titleId} className="text-sm font-medium">
          {title}
        </CardTitle>
        <Icon className="size-4 text-muted-foreground" aria-hidden />
      </CardHeader>
      <CardContent className="grid gap-1">
        {loading ? (
          <Skeleton className="h-8 w-16" />
        ) : (
          <p className="text-2xl font-bold tabular-nums" data-testid={`stat-${id}-value`}>
            {value.toLocaleString()}
          </p>
        )}
        <CardDescription>{description}</CardDescription>
      </CardContent>
    </Card>
  );
}

export function StatCards({ stats, loading }: { stats: DashboardStats; loading: boolean }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      {STAT_CARDS.map((s) => (
        <StatCard
          key={s.key}
          id={s.key}
          title={s.title}
          description={s.description}
          icon={s.icon}
          value={stats[s.key]}
          loading={loading}
        />
      ))}
    </div>
  );
}
