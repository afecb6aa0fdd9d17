// GET /manager-options: the managers an approval can be assigned to; asked for a company, the one
// assigned to it is marked, so a new approval of that company starts with its manager.
import { sql } from 'kysely';
import type { z } from 'zod';
import type { ApprovalManagerOption } from '../../schema/approvals/answers.js';
import { ManagerOptionsInput } from '../../schema/approvals/commands.js';
import type { AppServices } from '../app/context.js';
import { requireCompanyInScope } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';

export type ManagerOption = z.infer<typeof ApprovalManagerOption>;

export const MANAGER_OPTIONS_MAX = 1000;

/**
 * GET /manager-options: the ACTIVE managers an approval can be assigned to (ADMIN, MODERATOR). The
 * managers list itself is ADMIN's; this gives staff only what the picker needs, and a
 * company's fields are ADMIN's too: `companyId` (a company in the caller's scope) marks the manager
 * assigned to it (`companyManager`), which MODERATORs could not read from the company.
 */
export async function approvalManagerOptions(
  app: AppServices,
  actor: Actor | null,
  query: unknown = {},
): Promise<ManagerOption[]> {
  authorize(actor, 'approvals.write');
  const { companyId } = parseInput(ManagerOptionsInput, query);
  let assigned: number | null = null;
  if (companyId !== undefined) {
    await requireCompanyInScope(app, actor, companyId);
    const company = await app.db
      .selectFrom('companies')
      .select('manager_id')
      .where('id', '=', companyId)
      .executeTakeFirst();
    assigned = company?.manager_id ?? null;
  }
  const rows = await app.db
    .selectFrom('managers')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('deleted_at', 'is', null)
    .where('status', '=', 'ACTIVE')
    .orderBy(sql`lower(first_name)`)
    .orderBy(sql`lower(last_name)`)
    .orderBy('id')
    .limit(MANAGER_OPTIONS_MAX)
    .execute();
  return rows.map((m) => {
    const first = m.first_name.trim();
    const last = m.last_name.trim();
    return {
      id: m.id,
      displayName: first && last ? `${first} ${last}` : m.email,
      email: m.email,
      companyManager: m.id === assigned,
    };
  });
}
