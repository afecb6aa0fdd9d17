// The activity feed (projections/dashboard/activity.ts) by role: an ADMIN reads every line; a
// MODERATOR or USER reads only the lines of the companies in their staff scope (decision 0001), and
// of those only the kinds their role may read elsewhere: approvals (approvals.read), a company's
// life (companies.read), its QuickBooks connection (companies.connectionStatus). People's lines
// (sign-ins, accounts) stay ADMIN's, as the feed was before it showed companies.
import type { ExpressionBuilder } from 'kysely';
import type { z } from 'zod';
import type { ActivityTables } from '../../projections/dashboard/tables.js';
import type { ActivityItem as ActivityItemAnswer } from '../../schema/dashboard/answers.js';
import { CompanyActivityInput } from '../../schema/dashboard/commands.js';
import type { AppServices } from '../app/context.js';
import { type CompanyScope, companyScope, inScope } from '../app/staff-scope.js';
import { type Actor, authorize, can, type Permission } from '../auth/permissions.js';
import { AppError, parseInput, parseRowId } from '../shared/errors.js';

export type ActivityItem = z.infer<typeof ActivityItemAnswer>;

/** What a reader needs, beyond the scope, to read a line of each kind. */
const KIND_PERMISSION: Record<string, Permission> = {
  user: 'users.read',
  company: 'companies.read',
  quickbooks: 'companies.connectionStatus',
  approval: 'approvals.read',
};

const readableKinds = (actor: Actor) =>
  Object.entries(KIND_PERMISSION)
    .filter(([, permission]) => can(actor, permission))
    .map(([kind]) => kind);

/** Whether this reader may read lines of this kind at all (a live push's first check; a push from
 * before lines had kinds is a person's line). */
export const kindReadable = (actor: Actor, kind: unknown) =>
  can(actor, KIND_PERMISSION[typeof kind === 'string' ? kind : 'user'] ?? 'users.read');

/** Whether this reader may read a line of this kind about this company (null: a person's line). */
export function activityVisible(
  actor: Actor,
  scope: CompanyScope,
  line: { kind: string; companyId: number | null },
): boolean {
  const permission = KIND_PERMISSION[line.kind];
  if (!permission || !can(actor, permission)) return false;
  return scope === 'all' || (line.companyId !== null && inScope(scope, line.companyId));
}

/** The lines a reader may read, as a where clause. */
function visibleTo(actor: Actor, scope: CompanyScope) {
  return (eb: ExpressionBuilder<ActivityTables, 'activity'>) => {
    const kinds = readableKinds(actor);
    if (kinds.length === 0) return eb.val(false);
    const ofKind = eb('kind', 'in', kinds);
    if (scope === 'all') return ofKind;
    if (scope.size === 0) return eb.val(false);
    return eb.and([ofKind, eb('company_id', 'in', [...scope])]);
  };
}

const clampLimit = (limit: number, fallback: number) =>
  Math.min(Math.max(Math.trunc(limit) || fallback, 1), 100);

const toItem = (r: { id: string; type: string; description: string; occurred_at: Date }): ActivityItem => ({
  id: r.id,
  type: r.type,
  description: r.description,
  timestamp: r.occurred_at.toISOString(),
});

/** The newest lines this reader may read. */
export async function recentActivity(
  app: AppServices,
  actor: Actor | null,
  limit = 10,
): Promise<ActivityItem[]> {
  authorize(actor, 'activity.read');
  const scope = await companyScope(app, actor);
  const rows = await app.db
    .selectFrom('activity')
    .select(['id', 'type', 'description', 'occurred_at'])
    .where(visibleTo(actor, scope))
    .orderBy('position', 'desc')
    .limit(clampLimit(limit, 10))
    .execute();
  return rows.map(toItem);
}

/**
 * One company's lines, newest first (the company detail's Recent Activity). A company outside the
 * reader's scope answers as one that does not exist.
 */
export async function companyActivity(
  app: AppServices,
  actor: Actor | null,
  companyId: unknown,
  input: unknown = {},
): Promise<ActivityItem[]> {
  authorize(actor, 'activity.read');
  const id = parseRowId(companyId, 'Company not found');
  const { limit } = parseInput(CompanyActivityInput, input);
  const scope = await companyScope(app, actor);
  const company = await app.db
    .selectFrom('companies')
    .select('id')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!company || !inScope(scope, id)) throw new AppError('NOT_FOUND', 'Company not found');
  const rows = await app.db
    .selectFrom('activity')
    .select(['id', 'type', 'description', 'occurred_at'])
    .where('company_id', '=', id)
    .where(visibleTo(actor, scope))
    .orderBy('position', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toItem);
}

/** One line for a live push, if this reader may read it (else null: the push is not theirs). */
export async function activityItemFor(
  app: AppServices,
  actor: Actor,
  id: string,
): Promise<ActivityItem | null> {
  const r = await app.db
    .selectFrom('activity')
    .select(['id', 'type', 'description', 'occurred_at', 'kind', 'company_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!r) return null;
  const scope = await companyScope(app, actor);
  return activityVisible(actor, scope, { kind: r.kind, companyId: r.company_id }) ? toItem(r) : null;
}
