// Dashboard stats and the live activity feed; fields derived from schema/dashboard/answers.ts.
import {
  ActivityItem as ActivityItemAnswer,
  DashboardStats as DashboardStatsAnswer,
} from '../../../../schema/dashboard/answers.js';
import { authorize } from '../../../auth/permissions.js';
import {
  type ActivityItem,
  activityItem,
  type DashboardStats,
  dashboardStats,
} from '../../../dashboard/dashboard.js';
import { answerFields } from '../answer-fields.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';

const ActivityRef = builder.objectRef<ActivityItem>('ActivityItem').implement({
  fields: (t) => answerFields(t, ActivityItemAnswer, { scalars: { id: 'ID', timestamp: 'DateTime' } }),
});

const StatsRef = builder.objectRef<DashboardStats>('DashboardStats').implement({
  fields: (t) => answerFields(t, DashboardStatsAnswer, { refs: { recentActivity: ActivityRef } }),
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
