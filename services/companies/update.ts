// Changing a company: its details, assignees and payment account in one form; a
// rename of an active company moves its name's claim. The assignees and the payment account keep
// their value when absent (null clears them): a partial update never silently stops payments.
import { CompanyUpdateInput } from '../../schema/companies/commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { checkAssignees } from './assignments.js';
import { answer, lastOf, load, names, run } from './company-command.js';
import { type CompanyDto, parseId } from './company-rows.js';
import { checkPaymentAccount } from './payment-account.js';

export async function updateCompany(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(CompanyUpdateInput, input);
  const state = await load(app, companyId);
  const { managerId, processorId, approverId, accountantId, qbPaymentAccountReference, ...details } = data;
  const assignments = { managerId, processorId, approverId, accountantId };
  await checkAssignees(app, assignments, state.assignments);
  if (qbPaymentAccountReference && qbPaymentAccountReference !== state.paymentAccountReference)
    await checkPaymentAccount(app, actor, companyId, qbPaymentAccountReference);
  const now = new Date().toISOString();
  const renamed = details.name !== state.details!.name;
  // An active company holds its name: a rename moves the claim (refused when the name is taken).
  if (renamed && state.status === 'ACTIVE')
    await names(app, actor, {
      type: 'RenameClaim',
      companyId,
      from: state.details!.name,
      to: details.name,
      now,
    });
  const updated = await run(app, actor, companyId, { type: 'UpdateCompany', ...details, now });
  const assigned = await run(app, actor, companyId, { type: 'ChangeAssignments', assignments, now });
  const account =
    qbPaymentAccountReference === undefined
      ? null
      : await run(app, actor, companyId, {
          type: 'SetPaymentAccount',
          reference: qbPaymentAccountReference,
          now,
        });
  return answer(app, companyId, lastOf(updated.position, assigned.position, account?.position ?? null));
}
