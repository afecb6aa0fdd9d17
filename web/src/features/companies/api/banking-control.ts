// The company's control on bank detail changes (ADMIN): whether a change of a vendor's account waits
// for a second look (on unless turned off, on record with a reason), and for how many days a change
// is flagged where money is decided. Writes re-read it through the cache (lib/cache-rules.ts).
import { graphql, type ResultOf } from '../../../lib/graphql';

export const BankingChangeControlQuery = graphql(`
  query BankingChangeControl($companyId: Int!) {
    bankingChangeControl(companyId: $companyId) {
      companyId
      enabled
      flagDays
    }
  }
`);

export type BankingChangeControl = ResultOf<typeof BankingChangeControlQuery>['bankingChangeControl'];

export const SetBankingChangeControl = graphql(`
  mutation SetBankingChangeControl($companyId: Int!, $enabled: Boolean!, $flagDays: Int, $reason: String) {
    setBankingChangeControl(companyId: $companyId, enabled: $enabled, flagDays: $flagDays, reason: $reason) {
      companyId
      enabled
      flagDays
    }
  }
`);

/** The text the REST answer carries (services/vendors/endpoints.ts). */
export const BANKING_CONTROL_SAVED = 'Bank detail change control saved';
