// GET /approvals/stats: the counts, bills and amounts, summed over the running totals.
import { sql } from 'kysely';
import type { z } from 'zod';
import type { ApprovalStats as ApprovalStatsAnswer } from '../../schema/approvals/answers.js';
import { ApprovalStatsInput } from '../../schema/approvals/commands.js';
import type { AppServices } from '../app/context.js';
import { companyScope } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { APPROVED_GROUP, scopeFilter } from './list.js';
import { num } from './rows.js';

export type ApprovalStats = z.infer<typeof ApprovalStatsAnswer>;

/** GET /approvals/stats (optionally of one company): the five counts, bills and amounts. */
export async function approvalStats(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<ApprovalStats> {
  authorize(actor, 'approvals.read');
  const { companyId } = parseInput(ApprovalStatsInput, query);
  const companyIds = scopeFilter(await companyScope(app, actor));
  let q = app.db
    .selectFrom('approval_counts')
    .select((eb) => [
      'status',
      'priority',
      eb.fn.sum<string>('n').as('n'),
      eb.fn.sum<string>('bills').as('bills'),
      eb.fn.sum<string>('approved_bills').as('approved_bills'),
      eb.fn.sum<string>('amount').as('amount'),
      eb.fn.sum<string>('approved_amount').as('approved_amount'),
    ])
    .groupBy(['status', 'priority']);
  if (companyId !== undefined) q = q.where('company_id', '=', companyId);
  if (companyIds)
    q = companyIds.length > 0 ? q.where('company_id', 'in', companyIds) : q.where(sql<boolean>`false`);
  const rows = await q.execute();
  const byStatus: Record<string, number> = {};
  const byPriority: Record<string, number> = { URGENT: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
  let total = 0;
  let processedBills = 0;
  let approvedBills = 0;
  let processedTotalAmount = 0;
  let approvedTotalAmount = 0;
  for (const r of rows) {
    const n = num(r.n);
    total += n;
    byStatus[r.status] = (byStatus[r.status] ?? 0) + n;
    byPriority[r.priority] = (byPriority[r.priority] ?? 0) + n;
    processedBills += num(r.bills);
    approvedBills += num(r.approved_bills);
    processedTotalAmount += num(r.amount);
    approvedTotalAmount += num(r.approved_amount);
  }
  const round = (x: number) => Math.round(x * 100) / 100;
  for (const s of ['PENDING', ...APPROVED_GROUP, 'REJECTED', 'EXPIRED']) byStatus[s] ??= 0;
  return {
    total,
    pending: byStatus.PENDING,
    // The 'Approved' card: approved, and every payment status after it.
    approved: APPROVED_GROUP.reduce((sum, s) => sum + byStatus[s], 0),
    rejected: byStatus.REJECTED,
    expired: byStatus.EXPIRED,
    processedBills,
    approvedBills,
    processedTotalAmount: round(processedTotalAmount),
    approvedTotalAmount: round(approvedTotalAmount),
    byStatus,
    byPriority,
  };
}
