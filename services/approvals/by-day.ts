// The dashboard's chart of approvals by day: counts only.
import { sql } from 'kysely';
import type { z } from 'zod';
import { ApprovalsByDayInput } from '../../schema/approvals/commands.js';
import type { ApprovalStatus } from '../../schema/approvals/events.js';
import type { ApprovalsDay as ApprovalsDayAnswer } from '../../schema/dashboard/answers.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { APPROVED_GROUP } from './list.js';
import { num } from './rows.js';

export type ApprovalsDay = z.infer<typeof ApprovalsDayAnswer>;

/**
 * The dashboard's chart: approvals created each day of the last `days` days (UTC),
 * by their status now; days without any are zeros. Counts only, so it sits with the dashboard's figures.
 * 'approved' counts the payment statuses after it too, as the stats' Approved card does: each approval
 * is in exactly one series, so the series add up to the day's total.
 */
export async function approvalsByDay(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<ApprovalsDay[]> {
  authorize(actor, 'dashboard.read');
  const { days } = parseInput(ApprovalsByDayInput, query);
  const today = new Date();
  const start = new Date(
    Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)),
  );
  const rows = await app.db
    .selectFrom('approvals')
    .select((eb) => [
      sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      'status',
      eb.fn.countAll<string>().as('n'),
    ])
    .where(sql<boolean>`NOT deleted`)
    .where('created_at', '>=', start)
    .groupBy([sql`1`, 'status'])
    .execute();
  const out: ApprovalsDay[] = Array.from({ length: days }, (_, i) => {
    const d = new Date(start.getTime() + i * 86_400_000);
    return { date: d.toISOString().slice(0, 10), pending: 0, approved: 0, rejected: 0, expired: 0, total: 0 };
  });
  const byDate = new Map(out.map((d) => [d.date, d]));
  for (const r of rows) {
    const d = byDate.get(r.day);
    if (!d) continue;
    const n = num(r.n);
    const status = r.status as ApprovalStatus;
    const key = APPROVED_GROUP.includes(status)
      ? 'approved'
      : (status.toLowerCase() as 'pending' | 'rejected' | 'expired');
    if (key in d) d[key] += n;
    d.total += n;
  }
  return out;
}
