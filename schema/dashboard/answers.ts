// Every answer of the dashboard, written once: the application's types are
// `z.infer` of these (services/app/dashboard.ts, the chart in services/app/approvals.ts), REST
// documents them, and the GraphQL types are derived from them and held to them by
// services/gateway/graphql/answers-approvals.unit.test.ts.
import { z } from 'zod';

/** One line of the activity feed. */
export const ActivityItem = z.object({
  id: z.string(),
  type: z.string(),
  description: z.string(),
  timestamp: z.iso.datetime(),
});

/** GET /api/dashboard/stats: the figures and the recent activity. */
export const DashboardStats = z.object({
  totalCompanies: z.number().int(),
  activeUsers: z.number().int(),
  pendingApprovals: z.number().int(),
  paymentsNeedingAttention: z
    .number()
    .int()
    .describe(
      'Approvals whose payment someone must act on: a failed job, a file waiting on a fix, a failed QuickBooks record',
    ),
  paymentsWaiting: z
    .number()
    .int()
    .describe('Approvals whose file only waits for the next banking day (the day’s file limit)'),
  totalApiKeys: z.number().int(),
  recentActivity: z.array(ActivityItem),
});

/** One day of the dashboard's chart: approvals created that day (UTC), by their status now. */
export const ApprovalsDay = z.object({
  /** YYYY-MM-DD (UTC). */
  date: z.string(),
  pending: z.number().int(),
  approved: z.number().int(),
  rejected: z.number().int(),
  expired: z.number().int(),
  total: z.number().int(),
});
