// Dashboard figures, all from read models (the approvals' and companies'
// tables are read here, through the database, not through their modules); the answers are written
// in schema/dashboard/answers.ts. The activity feed, by role, is in activity.ts.
import { sql } from 'kysely';
import type { z } from 'zod';
import type { DashboardStats as DashboardStatsAnswer } from '../../schema/dashboard/answers.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { recentActivity } from './activity.js';

export type { ActivityItem } from './activity.js';
export type DashboardStats = z.infer<typeof DashboardStatsAnswer>;

/**
 * Total Companies counts the companies that are not deleted; Pending Approvals the PENDING approvals
 * not deleted (approvals read model). API keys are not a feature of this product: always 0 (the field is in the spec's shape).
 */
export async function dashboardStats(app: AppServices, actor: Actor | null): Promise<DashboardStats> {
  authorize(actor, 'dashboard.read');
  const [companies, active, activity, pending, payments] = await Promise.all([
    companyCount(app),
    app.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('is_active', '=', true)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
    recentActivity(app, actor, 10),
    pendingApprovalCount(app),
    // Payments held, counted by the approvals module (its port) as its list's problem filter counts.
    app.paymentHolds.counts(),
  ]);
  return {
    totalCompanies: companies,
    activeUsers: Number(active.n),
    pendingApprovals: pending,
    paymentsNeedingAttention: payments.attention,
    paymentsWaiting: payments.waiting,
    totalApiKeys: 0,
    recentActivity: activity,
  };
}

/** The dashboard's Pending Approvals, from the running totals. */
export async function pendingApprovalCount(app: AppServices): Promise<number> {
  const r = await app.db
    .selectFrom('approval_counts')
    .select(sql<string>`coalesce(sum(n), 0)`.as('n'))
    .where('status', '=', 'PENDING')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Companies that are not deleted (the dashboard's Total Companies). */
export async function companyCount(app: AppServices): Promise<number> {
  const r = await app.db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
