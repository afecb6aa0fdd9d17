// A company's assignees: its manager, processor, approver and accountant.
import { AssignmentsInput } from '../../schema/companies/commands.js';
import type { AssignmentRole } from '../../schema/companies/events.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { AppError, type FieldError, parseInput } from '../shared/errors.js';
import { answer, load, run } from './company-command.js';
import type { Assignments } from './company-decider.js';
import { type CompanyDto, parseId } from './company-rows.js';

/** The manager from the managers, the others from users with role ADMIN, MODERATOR or USER. */
export async function checkAssignees(
  app: AppServices,
  assignments: Partial<Assignments>,
  current?: Assignments,
) {
  const errors: FieldError[] = [];
  for (const role of ['manager', 'processor', 'approver', 'accountant'] as const satisfies AssignmentRole[]) {
    const field = `${role}Id` as const;
    const id = assignments[field];
    // Unchanged ids are not checked again: an assignee deleted since shows as unassigned.
    if (id === undefined || id === null || id === current?.[field]) continue;
    if (role === 'manager') {
      const m = await app.db
        .selectFrom('managers')
        .select('id')
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!m) errors.push({ field, message: 'Manager not found' });
      continue;
    }
    const u = await app.db
      .selectFrom('users')
      .select(['role', 'is_active'])
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!u) errors.push({ field, message: 'User not found' });
    else if (u.role === 'GUEST')
      errors.push({ field, message: 'Only an ADMIN, MODERATOR or USER can be assigned' });
  }
  if (errors.length > 0) throw new AppError('VALIDATION', errors[0].message, errors);
}

export async function changeAssignments(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const assignments = parseInput(AssignmentsInput, input);
  const state = await load(app, companyId);
  await checkAssignees(app, assignments, state.assignments);
  const r = await run(app, actor, companyId, {
    type: 'ChangeAssignments',
    assignments,
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}
