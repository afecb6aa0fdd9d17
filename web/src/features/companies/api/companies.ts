// The Companies reads and writes and the QuickBooks connection's, as GraphQL documents;
// the answer types come from them. Writes re-read the lists and details through the cache
// (lib/cache-rules.ts).
import { useCallback } from 'react';
import { graphql, type ResultOf, type VariablesOf } from '../../../lib/graphql';
import { type GqlQuery, useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';

const AssigneeFields = graphql(`
  fragment CompanyAssigneeFields on CompanyAssignee @_unmask {
    id
    firstName
    lastName
    email
  }
`);

/** The whole company as an ADMIN reads it (the NACHA fields null until configured; never a bank secret). */
export const CompanyFields = graphql(
  `
    fragment CompanyFields on Company @_unmask {
      id
      name
      email
      phone
      website
      address
      description
      industry
      status
      isActive
      qbRealmId
      qbConnectionStatus
      qbLastRefresh
      qbPaymentAccountReference
      managerId
      processorId
      approverId
      accountantId
      manager {
        ...CompanyAssigneeFields
      }
      processor {
        ...CompanyAssigneeFields
      }
      approver {
        ...CompanyAssigneeFields
      }
      accountant {
        ...CompanyAssigneeFields
      }
      nachaConfigured
      bankRoutingNumber
      bankAccountNumber
      bankAccountType
      bankName
      originatorStatusCode
      companyTaxId
      achCompanyId
      immediateDestinationName
      immediateOriginName
      companyEntryDescription
      companyDiscretionaryData
      balancedFile
      sameDayAch
      bankConnection {
        mode
        host
        port
        username
        passwordSet
        keySet
        inbox
        outbox
        hostKeyFingerprint
        windows
        lastCheck {
          ok
          message
          host
          hostKeyFingerprint
          inboxFiles
          outboxFiles
          at
        }
      }
      createdAt
      updatedAt
    }
  `,
  [AssigneeFields],
);

export type Company = ResultOf<typeof CompanyFields>;
export type CompanyStatus = Company['status'];
export type Assignee = NonNullable<Company['manager']>;

/** A page of companies, 10 a page (COMPANIES_PAGE_SIZE), newest first. */
export const CompaniesQuery = graphql(
  `
    query Companies(
      $search: String
      $status: CompanyStatus
      $qbConnectionStatus: String
      $page: Int
      $limit: Int
    ) {
      companies(
        search: $search
        status: $status
        qbConnectionStatus: $qbConnectionStatus
        page: $page
        limit: $limit
      ) {
        data {
          ...CompanyFields
        }
        total
        page
        limit
        totalPages
      }
    }
  `,
  [CompanyFields],
);

export const CompanyQuery = graphql(
  `
    query Company($id: Int!) {
      company(id: $id) {
        ...CompanyFields
      }
    }
  `,
  [CompanyFields],
);

/** The manager picker: managers (limit 100). */
export const ManagerChoicesQuery = graphql(`
  query CompanyManagerChoices($limit: Int) {
    managers(page: 1, limit: $limit) {
      data {
        id
        firstName
        lastName
        email
      }
    }
  }
`);

/** The processor/approver/accountant pickers: users, limit 100. */
export const UserChoicesQuery = graphql(`
  query CompanyUserChoices($limit: Int) {
    users(page: 1, limit: $limit) {
      data {
        id
        firstName
        lastName
        email
        role
        isActive
      }
    }
  }
`);

export type ManagerChoice = ResultOf<typeof ManagerChoicesQuery>['managers']['data'][number];
export type UserChoice = ResultOf<typeof UserChoicesQuery>['users']['data'][number];

export const CreateCompany = graphql(`
  mutation CreateCompany($input: CompanyInput!) {
    createCompany(input: $input) {
      id
    }
  }
`);

export const UpdateCompany = graphql(`
  mutation UpdateCompany($id: Int!, $input: CompanyInput!) {
    updateCompany(id: $id, input: $input) {
      id
    }
  }
`);

/** The form's body: optional strings absent when empty, assignees null when 'none'. */
export type CompanyPayload = VariablesOf<typeof CreateCompany>['input'];

export const ActivateCompany = graphql(`
  mutation ActivateCompany($id: Int!) {
    activateCompany(id: $id) {
      id
    }
  }
`);

export const DeactivateCompany = graphql(`
  mutation DeactivateCompany($id: Int!) {
    deactivateCompany(id: $id) {
      id
    }
  }
`);

export const DeleteCompany = graphql(`
  mutation DeleteCompany($id: Int!) {
    deleteCompany(id: $id)
  }
`);

/** Absent: unchanged; null: unassigned. */
export const ChangeCompanyAssignments = graphql(`
  mutation ChangeCompanyAssignments($id: Int!, $input: CompanyAssignmentsInput!) {
    changeCompanyAssignments(id: $id, input: $input) {
      id
    }
  }
`);

export const SetCompanyPaymentAccount = graphql(`
  mutation SetCompanyPaymentAccount($id: Int!, $qbPaymentAccountReference: String) {
    setCompanyPaymentAccount(id: $id, qbPaymentAccountReference: $qbPaymentAccountReference) {
      id
    }
  }
`);

export const SetCompanySameDayAch = graphql(`
  mutation SetCompanySameDayAch($id: Int!, $sameDayAch: Boolean!) {
    setCompanySameDayAch(id: $id, sameDayAch: $sameDayAch) {
      id
      sameDayAch
    }
  }
`);

export const ConfigureCompanyNacha = graphql(`
  mutation ConfigureCompanyNacha($id: Int!, $input: NachaConfigInput!) {
    configureCompanyNacha(id: $id, input: $input) {
      id
    }
  }
`);

/** The NACHA form's body: digits without dashes, text upper-cased. */
export type NachaPayload = VariablesOf<typeof ConfigureCompanyNacha>['input'];

export const RefreshQbToken = graphql(`
  mutation RefreshQbToken($companyId: Int!) {
    refreshQbToken(companyId: $companyId) {
      hasTokens
      isExpired
      expiresIn
    }
  }
`);

export const QbCredentialsQuery = graphql(`
  query QbCredentials($companyId: Int!) {
    qbCredentials(companyId: $companyId) {
      hasCredentials
      qbClientId
      qbIsSandbox
    }
  }
`);

export const SaveQbCredentials = graphql(`
  mutation SaveQbCredentials(
    $companyId: Int!
    $qbClientId: String!
    $qbClientSecret: String!
    $qbIsSandbox: Boolean
  ) {
    saveQbCredentials(
      companyId: $companyId
      qbClientId: $qbClientId
      qbClientSecret: $qbClientSecret
      qbIsSandbox: $qbIsSandbox
    ) {
      hasCredentials
      qbClientId
      qbIsSandbox
    }
  }
`);

/** Saves the credentials and answers the URL the popup opens. */
export const StartQbOAuth = graphql(`
  mutation StartQbOAuth(
    $companyId: Int!
    $qbClientId: String!
    $qbClientSecret: String!
    $qbCallbackUrl: String!
    $qbIsSandbox: Boolean
  ) {
    startQbOAuth(
      companyId: $companyId
      qbClientId: $qbClientId
      qbClientSecret: $qbClientSecret
      qbCallbackUrl: $qbCallbackUrl
      qbIsSandbox: $qbIsSandbox
    )
  }
`);

/** The bank accounts the payment account is chosen from (cached 5 minutes on the server). */
export const QbBankAccountsQuery = graphql(`
  query QbBankAccounts($companyId: Int!) {
    qbBankAccounts(companyId: $companyId) {
      Id
      Name
      AccountType
      AccountSubType
      Active
      CurrentBalance
    }
  }
`);

export type BankAccount = ResultOf<typeof QbBankAccountsQuery>['qbBankAccounts'][number];

/** The texts the REST answers carried (services/companies/endpoints.ts). */
export const COMPANY_MESSAGES = {
  created: 'Company created successfully',
  updated: 'Company updated successfully',
  deleted: 'Company deleted successfully',
  activated: 'Company activated successfully',
  deactivated: 'Company deactivated successfully',
  paymentAccount: 'Payment account updated successfully',
  nacha: 'NACHA configuration updated successfully',
  tokenRefreshed: 'QuickBooks token refreshed successfully',
} as const;

/** Activate or deactivate a company; resolves with the REST answer's text. */
export function useSetCompanyActive() {
  const activate = useGqlMutation(ActivateCompany, 'Failed to activate company');
  const deactivate = useGqlMutation(DeactivateCompany, 'Failed to deactivate company');
  return useCallback(
    async (id: number, active: boolean) => {
      if (active) await activate({ id });
      else await deactivate({ id });
      return active ? COMPANY_MESSAGES.activated : COMPANY_MESSAGES.deactivated;
    },
    [activate, deactivate],
  );
}

/** The QuickBooks token status: expiry, when the company must consent again, and any recorded problem. */
export const QbTokenStatusQuery = graphql(`
  query QbTokenStatus($companyId: Int!) {
    qbTokenStatus(companyId: $companyId) {
      hasTokens
      isExpired
      expiresIn
      reconsentBy
      reconsentDue
      problem
    }
  }
`);

export type TokenStatus = ResultOf<typeof QbTokenStatusQuery>['qbTokenStatus'];

/** The token status of a connected company (paused while `enabled` is false). */
export function useTokenStatus(companyId: number, enabled: boolean): GqlQuery<TokenStatus> {
  const q = useGqlQuery(
    QbTokenStatusQuery,
    { companyId },
    { pause: !enabled, fallback: 'Failed to check QuickBooks connection' },
  );
  return { ...q, data: enabled ? q.data?.qbTokenStatus : undefined };
}
