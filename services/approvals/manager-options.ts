// GET /manager-options: the managers an approval can be assigned to.
import { sql } from 'kysely';
import type { z } from 'zod';
import type { ApprovalManagerOption } from '../../schema/approvals/answers.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';

export type ManagerOption = z.infer<typeof ApprovalManagerOption>;

export const MANAGER_OPTIONS_MAX = 1000;

/**
 * GET /manager-options: the ACTIVE managers an approval can be assigned to (ADMIN, MODERATOR). The
 * managers list itself is ADMIN's (spec 2 §2); this gives staff only what the picker needs.
 */
export async function approvalManagerOptions(
  app: AppServices,
  actor: Actor | null,
): Promise<ManagerOption[]> {
  authorize(actor, 'approvals.write');
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
    return { id: m.id, displayName: first && last ? `${first} ${last}` : m.email, email: m.email };
  });
}
