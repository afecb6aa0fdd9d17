// PUT /approvals/{id} (priority, manager, recipients while PENDING) and PUT /approvals/{id}/recipients
// (while open).
import { RecipientsInput, UpdateApprovalInput } from '../../schema/approvals/commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { requireManager } from './checks.js';
import { answerApproval, onApproval } from './command.js';
import { findRow, parseApprovalId } from './rows.js';

/** PUT /approvals/{id}: priority, manager (null clears), recipients — while PENDING. */
export async function updateApproval(app: AppServices, actor: Actor | null, id: unknown, body: unknown) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const input = parseInput(UpdateApprovalInput, body);
  // Keeping the manager it has (even one no longer active) is no new assignment.
  if (input.managerId != null && (await findRow(app, approvalId))?.manager_id !== input.managerId)
    await requireManager(app, input.managerId);
  const r = await onApproval(app, actor, approvalId, {
    type: 'UpdateApproval',
    priority: input.priority,
    managerId: input.managerId,
    recipients: input.recipients,
    now: new Date().toISOString(),
  });
  return answerApproval(app, approvalId, r.position, r.state);
}

/** PUT /approvals/{id}/recipients: while the approval is open (PENDING or APPROVED). */
export async function updateApprovalRecipients(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body: unknown,
) {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const { recipients } = parseInput(RecipientsInput, body);
  const r = await onApproval(app, actor, approvalId, {
    type: 'UpdateRecipients',
    recipients,
    now: new Date().toISOString(),
  });
  return answerApproval(app, approvalId, r.position, r.state);
}
