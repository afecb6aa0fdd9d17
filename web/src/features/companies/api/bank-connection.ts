// The company's bank connection (ADMIN): how its files reach the bank, by hand or over SFTP, and a
// check of the SFTP login, and Send now of the files waiting for their cut-off window. The connection itself is read with the company (CompanyFields); its
// password or key is never read back. Writes re-read the company (lib/cache-rules.ts).
import { graphql, type VariablesOf } from '../../../lib/graphql';
import type { Company } from './companies';

export type BankConnection = Company['bankConnection'];
export type BankConnectionCheck = NonNullable<BankConnection['lastCheck']>;

export const SetCompanyBankConnection = graphql(`
  mutation SetCompanyBankConnection($id: Int!, $input: BankConnectionInput!) {
    setCompanyBankConnection(id: $id, input: $input) {
      id
    }
  }
`);

export type BankConnectionPayload = VariablesOf<typeof SetCompanyBankConnection>['input'];

export const TestBankConnection = graphql(`
  mutation TestBankConnection($companyId: Int!) {
    testBankConnection(companyId: $companyId) {
      ok
      message
      inbox
      outbox
      checkedAt
    }
  }
`);

/**
 * Send now (ADMIN, a company that sends over SFTP): its files waiting for their cut-off window go to
 * the bank at once; the answer is the server's message ("2 waiting files will be sent now").
 */
export const CompanySendWaitingFilesNow = graphql(`
  mutation CompanySendWaitingFilesNow($companyId: Int!) {
    sendWaitingFilesNow(companyId: $companyId)
  }
`);

/** The texts the REST answers carry (services/companies/endpoints.ts). */
export const BANK_CONNECTION_SAVED = 'Bank connection saved';

/** The check waits up to 10 s for the bank, then records what it found: more than the client's 10 s. */
export const CHECK_TIMEOUT_MS = 25_000;
