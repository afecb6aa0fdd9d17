// Creating a company: its name claimed first, so two companies cannot share it.
import { CompanyInput } from '../../schema/companies/commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { checkAssignees } from './assignments.js';
import { answer, names, run } from './company-command.js';
import type { CompanyDto } from './company-rows.js';

export const COMPANY_IDS_SEQUENCE = 'company_ids';

export async function createCompany(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const data = parseInput(CompanyInput, input);
  const { managerId, processorId, approverId, accountantId, qbPaymentAccountReference, ...details } = data;
  const assignments = { managerId, processorId, approverId, accountantId };
  await checkAssignees(app, assignments);
  const companyId = Number(
    (await app.pool.query(`SELECT nextval('${COMPANY_IDS_SEQUENCE}')::int AS id`)).rows[0].id,
  );
  const now = new Date().toISOString();
  // The name first: a second company of that name is refused before anything is created.
  await names(app, actor, { type: 'ClaimName', companyId, name: details.name, now });
  let created: Awaited<ReturnType<typeof run>>;
  try {
    created = await run(app, actor, companyId, {
      type: 'CreateCompany',
      companyId,
      ...details,
      assignments,
      paymentAccountReference: qbPaymentAccountReference,
      now,
    });
  } catch (err) {
    await names(app, actor, { type: 'ReleaseName', companyId, name: details.name, now }).catch(() => {});
    throw err;
  }
  return answer(app, companyId, created.position);
}
