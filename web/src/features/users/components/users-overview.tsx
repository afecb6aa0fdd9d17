import { Shield, UserCheck, UserPlus, Users } from 'lucide-react';
import type { ReactNode } from 'react';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Skeleton } from '../../../components/ui/skeleton';
import type { OverviewStats } from '../api/users';
import { USER_ROLES } from '../utils/user-rules';

function Stat({
  title,
  value,
  icon,
  testId,
}: {
  title: string;
  value: ReactNode;
  icon: ReactNode;
  testId: string;
}) {
  return (
    <Card className="gap-2">
      <CardHeader className="flex flex-row items-center justify-between">
        <CardTitle as="h2" className="text-sm font-medium">
          {title}
        </CardTitle>
        {icon}
      </CardHeader>
      <CardContent>
        <div className="text-2xl font-bold" data-testid={testId}>
          {value}
        </div>
      </CardContent>
    </Card>
  );
}

/** The statistics overview of /users (GET /api/user/overview-stats). */
export function UsersOverview({ stats }: { stats: OverviewStats | undefined }) {
  const value = (n: number | undefined) => (n === undefined ? <Skeleton className="h-7 w-12" /> : n);
  const icon = 'size-4 text-muted-foreground';
  return (
    <section aria-label="User statistics" className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <Stat
        title="Total Users"
        value={value(stats?.totalUsers)}
        icon={<Users className={icon} aria-hidden="true" />}
        testId="stat-total-users"
      />
      <Stat
        title="Active Users"
        value={value(stats?.activeUsers)}
        icon={<UserCheck className={icon} aria-hidden="true" />}
        testId="stat-active-users"
      />
      <Stat
        title="New This Month"
        value={value(stats?.newUsersThisMonth)}
        icon={<UserPlus className={icon} aria-hidden="true" />}
        testId="stat-new-users"
      />
      <Stat
        title="Users by Role"
        testId="stat-users-by-role"
        icon={<Shield className={icon} aria-hidden="true" />}
        value={
          stats ? (
            <ul className="grid grid-cols-[repeat(auto-fit,minmax(7.5rem,1fr))] gap-x-3 text-xs font-normal">
              {USER_ROLES.map((r) => (
                <li key={r} className="flex min-w-0 justify-between gap-1" data-testid={`stat-role-${r}`}>
                  <span className="text-muted-foreground">{r}</span>
                  <span className="font-semibold">{stats.usersByRole[r] ?? 0}</span>
                </li>
              ))}
            </ul>
          ) : (
            <Skeleton className="h-7 w-24" />
          )
        }
      />
    </section>
  );
}
