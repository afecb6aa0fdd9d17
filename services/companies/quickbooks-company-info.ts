// A company's bank accounts in QuickBooks, with its CompanyInfo: the payment account
// is chosen among them.
import type { QbBankAccount, QbCompanyInfo } from '../../schema/companies/answers.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { QbApiError } from '../quickbooks/client.js';
import { AppError } from '../shared/errors.js';
import { ACCOUNTS_CACHE_MS, liveCompany, parseId, qb } from './quickbooks.js';
import { qbAccess } from './quickbooks-access.js';

export type BankAccount = QbBankAccount;

export type BankAccountsAnswer = QbCompanyInfo;

/** The company's active bank accounts in QuickBooks, with its CompanyInfo; cached 5 minutes. */
export async function quickbooksCompanyInfo(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<BankAccountsAnswer> {
  // Bank accounts and their balances: ADMIN's, who chooses the payment account.
  authorize(actor, 'companies.details');
  const companyId = parseId(id);
  await liveCompany(app, companyId);
  const s = qb(app);
  const cached = s.accounts.get(companyId);
  if (cached && Date.now() - cached.at < ACCOUNTS_CACHE_MS) return cached.value;
  const { isSandbox, realmId, auth } = await qbAccess(app, companyId, commandContext(actor));
  const conn = { isSandbox };
  try {
    const [info, accounts] = await Promise.all([
      s.client.get<{ CompanyInfo?: Record<string, unknown> }>(
        conn.isSandbox,
        realmId,
        auth,
        `companyinfo/${realmId}`,
      ),
      s.client.query<{ Account?: BankAccount[] }>(
        conn.isSandbox,
        realmId,
        auth,
        "select * from Account where AccountType = 'Bank' and Active = true",
      ),
    ]);
    const value: BankAccountsAnswer = {
      CompanyInfo: info.CompanyInfo ?? null,
      QueryResponse: { Account: accounts.QueryResponse.Account ?? [] },
    };
    s.accounts.set(companyId, { at: Date.now(), value });
    return value;
  } catch (err) {
    if (err instanceof QbApiError)
      throw new AppError('UNAVAILABLE', err.message || 'Failed to fetch QuickBooks company information');
    throw err;
  }
}
