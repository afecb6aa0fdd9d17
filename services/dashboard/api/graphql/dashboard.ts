// Dashboard stats and the live activity feed; fields derived from schema/dashboard/answers.ts.

import type { ChangeNotice } from '../../../../projections/projection.js';
import {
  ActivityItem as ActivityItemAnswer,
  DashboardStats as DashboardStatsAnswer,
} from '../../../../schema/dashboard/answers.js';
import { type Actor, authorize } from '../../../auth/permissions.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { inStaffScope } from '../../../gateway/live.js';
import { type ActivityItem, activityItemFor, companyActivity, kindReadable } from '../../activity.js';
import { type DashboardStats, dashboardStats } from '../../dashboard.js';

const ActivityRef = builder.objectRef<ActivityItem>('ActivityItem').implement({
  fields: (t) => answerFields(t, ActivityItemAnswer, { scalars: { id: 'ID', timestamp: 'DateTime' } }),
});

const StatsRef = builder.objectRef<DashboardStats>('DashboardStats').implement({
  fields: (t) => answerFields(t, DashboardStatsAnswer, { refs: { recentActivity: ActivityRef } }),
});

builder.queryField('dashboardStats', (t) =>
  t.field({ type: StatsRef, resolve: (_, __, ctx) => run(() => dashboardStats(ctx.app, ctx.actor)) }),
);

builder.queryField('companyActivity', (t) =>
  t.field({
    type: [ActivityRef],
    description:
      "A company's activity, newest first (at most `limit`, 20 unless told, up to 100); outside the staff scope the company is not found.",
    args: { companyId: t.arg.int({ required: true }), limit: t.arg.int() },
    resolve: (_, args, ctx) =>
      run(() => companyActivity(ctx.app, ctx.actor, args.companyId, { limit: args.limit ?? undefined })),
  }),
);

/** The kinds of line this reader may read (the scope is checked by inStaffScope), of one company if asked. */
async function* readableKinds(
  source: AsyncIterable<ChangeNotice>,
  actor: Actor | null,
  companyId: number | null | undefined,
) {
  for await (const n of source)
    if (
      actor &&
      kindReadable(actor, n.data?.kind) &&
      (companyId == null || Number(n.data?.companyId) === companyId)
    )
      yield n;
}

builder.subscriptionField('activityAdded', (t) =>
  t.field({
    type: ActivityRef,
    nullable: true,
    description:
      "Each new line of the activity feed the subscriber may read (an ADMIN every line; staff their companies' lines), after its read model commit.",
    authScopes: { permission: 'activity.read' },
    args: { companyId: t.arg.int({ description: "Only this company's lines (its detail page)." }) },
    subscribe: (_, args, ctx) =>
      readableKinds(
        inStaffScope(ctx.live.subscribe('activity'), ctx.app, ctx.actor),
        ctx.actor,
        args.companyId,
      ),
    resolve: async (notice, _, ctx) => {
      authorize(ctx.actor, 'activity.read');
      return activityItemFor(ctx.app, ctx.actor, notice.id);
    },
  }),
);
