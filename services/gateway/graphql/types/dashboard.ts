// Dashboard stats and the live activity feed.

import { authorize } from '../../../auth/permissions.js';
import {
  type ActivityItem,
  activityItem,
  type DashboardStats,
  dashboardStats,
} from '../../../dashboard/dashboard.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';

const ActivityRef = builder.objectRef<ActivityItem>('ActivityItem').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type'),
    description: t.exposeString('description'),
    timestamp: t.field({ type: 'DateTime', resolve: (a) => a.timestamp }),
  }),
});

const StatsRef = builder.objectRef<DashboardStats>('DashboardStats').implement({
  fields: (t) => ({
    totalCompanies: t.exposeInt('totalCompanies'),
    activeUsers: t.exposeInt('activeUsers'),
    pendingApprovals: t.exposeInt('pendingApprovals'),
    totalApiKeys: t.exposeInt('totalApiKeys'),
    recentActivity: t.field({ type: [ActivityRef], resolve: (s) => s.recentActivity }),
  }),
});

builder.queryField('dashboardStats', (t) =>
  t.field({ type: StatsRef, resolve: (_, __, ctx) => run(() => dashboardStats(ctx.app, ctx.actor)) }),
);

builder.subscriptionField('activityAdded', (t) =>
  t.field({
    type: ActivityRef,
    nullable: true,
    description: 'Each new line of the system-wide activity feed, after its read model commit.',
    authScopes: { permission: 'activity.read' },
    subscribe: (_, __, ctx) => ctx.live.subscribe('activity'),
    resolve: async (notice, _, ctx) => {
      authorize(ctx.actor, 'activity.read');
      return activityItem(ctx.app, notice.id);
    },
  }),
);
