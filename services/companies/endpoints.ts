// The companies' commands, each declared once (services/app/endpoints.ts): create, update, delete,
// activate and deactivate a company, change its assignees, choose its payment account, save its
// NACHA settings, set and check its bank connection, and its QuickBooks connection (credentials, the
// OAuth start, a token refresh). The gateway makes each one's REST route (/api/company/companies/*),
// GraphQL mutation and OpenAPI entry; their GraphQL input objects are in graphql-inputs.ts.
// The OAuth callback stays a hand-written route: it is public and answers the popup with a page.
import { z } from 'zod';
import {
  BankConnectionTest,
  Company,
  QbAuthUrl,
  QbCredentials,
  QbTokenStatus,
} from '../../schema/companies/answers.js';
import { BankConnectionInput } from '../../schema/companies/bank-connection-commands.js';
import {
  AssignmentsInput,
  CompanyInput,
  CompanyUpdateInput,
  NachaConfigInput,
  PaymentAccountInput,
  SameDayAchInput,
} from '../../schema/companies/commands.js';
import { QbCredentialsInput, QbOAuthStartInput } from '../../schema/companies/quickbooks-commands.js';
import { byId, declareCommand, type WithId, withoutNulls } from '../app/endpoints.js';
import { changeAssignments } from './assignments.js';
import { setBankConnection, testBankConnection } from './bank-connection.js';
import { createCompany } from './create.js';
import { configureNacha, setSameDayAch } from './nacha.js';
import { setPaymentAccount } from './payment-account.js';
import { putQbCredentials } from './quickbooks-credentials.js';
import { deleteQbCredentials } from './quickbooks-disconnect.js';
import { startQbOAuth } from './quickbooks-oauth.js';
import { refreshQbToken } from './quickbooks-refresh.js';
import { activateCompany, deactivateCompany, deleteCompany } from './status.js';
import { updateCompany } from './update.js';

export { companyInputs } from './graphql-inputs.js';

const BASE = '/api/company/companies';
const TAGS = ['companies'];
const QB_TAGS = ['quickbooks'];
const CompanyIdParams = z.object({ id: z.string().regex(/^\d+$/).describe('Company id') });
/** Companies are the administrator's: any company not deleted. */
const ANY_COMPANY = 'any company not deleted (companies are the administrator’s)';

const idOnly = (r: { params: Record<string, string> }) => r.params.id;

export const companyEndpoints = [
  declareCommand({
    name: 'CreateCompany',
    permission: 'companies.write',
    scope: 'a new company; its name not held by an active company',
    run: (app, actor, body: unknown) => createCompany(app, actor, body),
    rest: {
      method: 'POST',
      path: BASE,
      input: (r) => r.body,
      status: 201,
      message: 'Company created successfully',
      doc: {
        summary: 'Create a company (ADMIN); its name must be unique among active companies',
        tags: TAGS,
        body: CompanyInput,
        data: Company,
        errors: [409, 422],
      },
    },
    graphql: {
      name: 'createCompany',
      args: { input: 'CompanyInput!' },
      returns: 'Company!',
      input: (args) => args.input,
    },
  }),
  declareCommand({
    name: 'UpdateCompany',
    permission: 'companies.write',
    scope: `${ANY_COMPANY}; a new name not held by another active company`,
    run: (app, actor, { id, body }: WithId) => updateCompany(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id`,
      input: byId,
      message: 'Company updated successfully',
      doc: {
        summary:
          'Update a company’s form fields (ADMIN): absent assignments and payment account are kept, null clears them',
        description:
          'The details (email, phone, website, address, description, industry) are the form’s: an absent one is cleared, as the form sends an emptied field as absent. The four assignments (managerId, processorId, approverId, accountantId) and qbPaymentAccountReference keep their value when absent and are cleared only when given as null: a partial update (a name alone, say) never silently unassigns the company or stops its payments.',
        tags: TAGS,
        params: CompanyIdParams,
        body: CompanyUpdateInput,
        data: Company,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'updateCompany',
      args: { id: 'Int!', input: 'CompanyInput!' },
      returns: 'Company!',
      description:
        'Updates the form fields: absent details are cleared; absent assignments and payment account are kept, null clears them.',
      // null is meaningful here (it clears an assignee or the payment account), so nulls are kept.
      input: (args) => ({ id: args.id, body: args.input }),
    },
  }),
  declareCommand({
    name: 'DeleteCompany',
    permission: 'companies.write',
    scope: ANY_COMPANY,
    run: (app, actor, id: unknown) => deleteCompany(app, actor, id).then(() => null),
    rest: {
      method: 'DELETE',
      path: `${BASE}/:id`,
      input: idOnly,
      message: 'Company deleted successfully',
      doc: {
        summary: 'Delete a company (ADMIN): gone from lists, its history kept',
        tags: TAGS,
        params: CompanyIdParams,
        data: z.null(),
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'deleteCompany',
      args: { id: 'Int!' },
      returns: 'Boolean!',
      description: 'Gone from lists; its history stays in the log.',
      input: (args) => args.id,
      answer: () => true,
    },
  }),
  declareCommand({
    name: 'ActivateCompany',
    permission: 'companies.write',
    scope: `${ANY_COMPANY}; its name not held by another active company`,
    run: (app, actor, id: unknown) => activateCompany(app, actor, id),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/reactivate`,
      input: idOnly,
      message: 'Company activated successfully',
      doc: {
        summary: 'Activate a company (ADMIN); refused when an active company has its name',
        tags: TAGS,
        params: CompanyIdParams,
        data: Company,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'activateCompany',
      args: { id: 'Int!' },
      returns: 'Company!',
      description: 'Refused when an active company has the same name.',
      input: (args) => args.id,
    },
  }),
  declareCommand({
    name: 'DeactivateCompany',
    permission: 'companies.write',
    scope: ANY_COMPANY,
    run: (app, actor, id: unknown) => deactivateCompany(app, actor, id),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/deactivate`,
      input: idOnly,
      message: 'Company deactivated successfully',
      doc: {
        summary: 'Deactivate a company (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        data: Company,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'deactivateCompany',
      args: { id: 'Int!' },
      returns: 'Company!',
      description: 'Frees the name for another active company.',
      input: (args) => args.id,
    },
  }),
  // Not in the spec's list: the detail page's inline assignment change.
  declareCommand({
    name: 'ChangeCompanyAssignments',
    permission: 'companies.write',
    scope: `${ANY_COMPANY}; a live manager, or a user who is not a GUEST, as each assignee`,
    run: (app, actor, { id, body }: WithId) => changeAssignments(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/assignments`,
      input: byId,
      message: 'Assignment updated successfully',
      doc: {
        summary: 'Change one or more assignees (ADMIN): absent unchanged, null unassigned',
        tags: TAGS,
        params: CompanyIdParams,
        body: AssignmentsInput,
        data: Company,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'changeCompanyAssignments',
      args: { id: 'Int!', input: 'CompanyAssignmentsInput!' },
      returns: 'Company!',
      // null unassigns, so nulls are kept.
      input: (args) => ({ id: args.id, body: args.input }),
    },
  }),
  // Method and path of this one and the next are this product's own choice.
  declareCommand({
    name: 'SetCompanyPaymentAccount',
    permission: 'companies.write',
    scope: `${ANY_COMPANY}; one of its active bank accounts in QuickBooks`,
    run: (app, actor, { id, body }: WithId) => setPaymentAccount(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/payment-account`,
      input: byId,
      message: 'Payment account updated successfully',
      doc: {
        summary: 'Choose the QuickBooks bank account payments are drawn on (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        body: PaymentAccountInput,
        data: Company,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'setCompanyPaymentAccount',
      args: { id: 'Int!', qbPaymentAccountReference: 'String' },
      returns: 'Company!',
      input: (args) => ({
        id: args.id,
        body: { qbPaymentAccountReference: args.qbPaymentAccountReference },
      }),
    },
  }),
  declareCommand({
    name: 'ConfigureCompanyNacha',
    permission: 'companies.write',
    scope: ANY_COMPANY,
    run: (app, actor, { id, body }: WithId) => configureNacha(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/nacha-config`,
      input: byId,
      message: 'NACHA configuration updated successfully',
      doc: {
        summary: 'Save the NACHA settings (ADMIN); the account number is kept when sent masked or left out',
        tags: TAGS,
        params: CompanyIdParams,
        body: NachaConfigInput,
        data: Company,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'configureCompanyNacha',
      args: { id: 'Int!', input: 'NachaConfigInput!' },
      returns: 'Company!',
      input: (args) => ({ id: args.id, body: withoutNulls(args.input as object) }),
    },
  }),
  declareCommand({
    name: 'SetCompanySameDayAch',
    permission: 'companies.write',
    scope: ANY_COMPANY,
    run: (app, actor, { id, body }: WithId) => setSameDayAch(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/same-day-ach`,
      input: byId,
      message: 'Same-Day ACH setting saved',
      doc: {
        summary: 'Turn Same-Day ACH on or off for the company’s payment files (ADMIN)',
        description:
          'On: a file made before 14:45 New York on a banking day is effective that day (batch header SD1700), unless an entry is above $1,000,000.00 (then the whole file is effective the next banking day). Off (the default): the next banking day.',
        tags: TAGS,
        params: CompanyIdParams,
        body: SameDayAchInput,
        data: Company,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'setCompanySameDayAch',
      args: { id: 'Int!', sameDayAch: 'Boolean!' },
      returns: 'Company!',
      input: (args) => ({ id: args.id, body: { sameDayAch: args.sameDayAch } }),
    },
  }),
  declareCommand({
    name: 'SetCompanyBankConnection',
    permission: 'companies.write',
    scope: ANY_COMPANY,
    run: (app, actor, { id, body }: WithId) => setBankConnection(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/bank-connection`,
      input: byId,
      message: 'Bank connection saved',
      doc: {
        summary:
          'Choose how the company’s files reach its bank (ADMIN): by hand, or SFTP with its login, folders, pinned host key and cut-offs',
        description:
          'The password or private key is sealed with the company’s key and never returned: answers say only whether one is set. Left out (or empty), the stored one is kept; a new one replaces the other kind. Manual forgets the SFTP settings.',
        tags: TAGS,
        params: CompanyIdParams,
        body: BankConnectionInput,
        data: Company,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'setCompanyBankConnection',
      args: { id: 'Int!', input: 'BankConnectionInput!' },
      returns: 'Company!',
      input: (args) => ({ id: args.id, body: withoutNulls(args.input as object) }),
    },
  }),
  declareCommand({
    name: 'TestBankConnection',
    permission: 'companies.write',
    scope: `${ANY_COMPANY}; its files going over SFTP`,
    run: (app, actor, id: unknown) => testBankConnection(app, actor, id),
    rest: {
      method: 'POST',
      path: `${BASE}/:id/bank-connection/test`,
      input: idOnly,
      message: 'Bank connection checked',
      doc: {
        summary:
          'Check the SFTP connection (ADMIN): log in with the host key pinned and list both folders; the outcome is recorded on the company',
        description:
          'Refused (409) in words when the bank’s host key is not the pinned one (nothing is sent), when the bank refuses the login or a folder, or when it does not answer within 10 seconds.',
        tags: TAGS,
        params: CompanyIdParams,
        data: BankConnectionTest,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'testBankConnection',
      args: { companyId: 'Int!' },
      returns: 'BankConnectionTest!',
      input: (args) => args.companyId,
    },
  }),
  declareCommand({
    name: 'SaveQbCredentials',
    permission: 'companies.write',
    scope: ANY_COMPANY,
    run: (app, actor, { id, body }: WithId) => putQbCredentials(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/qb-credentials`,
      input: byId,
      message: 'QuickBooks credentials have been saved successfully',
      doc: {
        summary: 'Save the QuickBooks app credentials, sealed with the company’s key (ADMIN)',
        tags: QB_TAGS,
        params: CompanyIdParams,
        body: QbCredentialsInput,
        data: QbCredentials,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'saveQbCredentials',
      args: {
        companyId: 'Int!',
        qbClientId: 'String!',
        qbClientSecret: 'String!',
        qbIsSandbox: 'Boolean',
      },
      returns: 'QbCredentials!',
      input: ({ companyId, ...input }) => ({
        id: companyId,
        body: { ...input, qbIsSandbox: input.qbIsSandbox ?? undefined },
      }),
    },
  }),
  declareCommand({
    name: 'RemoveQbCredentials',
    permission: 'companies.write',
    scope: ANY_COMPANY,
    run: (app, actor, id: unknown) => deleteQbCredentials(app, actor, id).then(() => null),
    rest: {
      method: 'DELETE',
      path: `${BASE}/:id/qb-credentials`,
      input: idOnly,
      message: 'QuickBooks credentials removed',
      doc: {
        summary: 'Remove the QuickBooks credentials and tokens (ADMIN)',
        tags: QB_TAGS,
        params: CompanyIdParams,
        data: z.null(),
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'deleteQbCredentials',
      args: { companyId: 'Int!' },
      returns: 'Boolean!',
      input: (args) => args.companyId,
      answer: () => true,
    },
  }),
  declareCommand({
    name: 'StartQbOAuth',
    permission: 'companies.write',
    scope: `${ANY_COMPANY}; a callback on this product’s own address`,
    // With no PUBLIC_URL, the callback must come back to the host the request came to.
    run: (app, actor, { id, body }: WithId, caller) =>
      startQbOAuth(app, actor, id, body, { origin: caller.origin ?? undefined }),
    rest: {
      method: 'POST',
      path: `${BASE}/:id/qb-oauth/start`,
      input: byId,
      doc: {
        summary: 'Save the credentials and start the OAuth flow: the URL to open in the popup (ADMIN)',
        tags: QB_TAGS,
        params: CompanyIdParams,
        body: QbOAuthStartInput,
        data: QbAuthUrl,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'startQbOAuth',
      args: {
        companyId: 'Int!',
        qbClientId: 'String!',
        qbClientSecret: 'String!',
        qbCallbackUrl: 'String!',
        qbIsSandbox: 'Boolean',
      },
      returns: 'String!',
      description: 'Saves the credentials and answers the URL to open in the popup.',
      input: ({ companyId, ...input }) => ({
        id: companyId,
        body: { ...input, qbIsSandbox: input.qbIsSandbox ?? undefined },
      }),
      answer: (result) => result.authUrl,
    },
  }),
  declareCommand({
    name: 'RefreshQbToken',
    permission: 'companies.write',
    scope: `${ANY_COMPANY}; connected to QuickBooks`,
    run: (app, actor, id: unknown) => refreshQbToken(app, actor, id),
    rest: {
      method: 'POST',
      path: `${BASE}/:id/refresh-qb-token`,
      input: idOnly,
      message: 'QuickBooks token refreshed successfully',
      doc: {
        summary: 'Refresh the QuickBooks tokens now (ADMIN)',
        tags: QB_TAGS,
        params: CompanyIdParams,
        data: QbTokenStatus,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'refreshQbToken',
      args: { companyId: 'Int!' },
      returns: 'QbTokenStatus!',
      input: (args) => args.companyId,
    },
  }),
];
