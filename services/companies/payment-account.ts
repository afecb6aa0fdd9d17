// A company's payment account: one of its active bank accounts in QuickBooks.
import { PaymentAccountInput } from '../../schema/companies/commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { AppError, parseInput } from '../shared/errors.js';
import { answer, load, run } from './company-command.js';
import { type CompanyDto, parseId } from './company-rows.js';
import { quickbooksCompanyInfo } from './quickbooks-company-info.js';

/**
 * A payment account is one of the company's bank accounts in QuickBooks (Active, AccountType Bank):
 * the account bill payments draw on. Read from QuickBooks (cached 5 minutes).
 */
export async function checkPaymentAccount(
  app: AppServices,
  actor: Actor,
  companyId: number,
  reference: string,
) {
  let accounts: Awaited<ReturnType<typeof quickbooksCompanyInfo>>['QueryResponse']['Account'];
  try {
    accounts = (await quickbooksCompanyInfo(app, actor, companyId)).QueryResponse.Account;
  } catch (err) {
    if (err instanceof AppError && err.code === 'CONFLICT')
      throw new AppError(
        'VALIDATION',
        'Connect the company to QuickBooks before choosing its payment account',
        [{ field: 'qbPaymentAccountReference', message: 'The company is not connected to QuickBooks' }],
      );
    throw err;
  }
  const account = accounts.find((a) => a.Id === reference);
  if (!account?.Active || account.AccountType !== 'Bank') {
    const message = 'The payment account must be one of the company’s active bank accounts in QuickBooks';
    throw new AppError('VALIDATION', message, [{ field: 'qbPaymentAccountReference', message }]);
  }
}

export async function setPaymentAccount(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const { qbPaymentAccountReference } = parseInput(PaymentAccountInput, input);
  await load(app, companyId);
  if (qbPaymentAccountReference !== null)
    await checkPaymentAccount(app, actor, companyId, qbPaymentAccountReference);
  const r = await run(app, actor, companyId, {
    type: 'SetPaymentAccount',
    reference: qbPaymentAccountReference,
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}
