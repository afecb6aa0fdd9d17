// Companies: client companies, their assignees, payment account, NACHA settings and
// QuickBooks connection (credentials, OAuth, token refresh by the `quickbooks` process manager).
import type pg from 'pg';
import { companiesProjection } from '../../projections/companies/companies.js';
import { BankConnectionInput } from '../../schema/companies/bank-connection-commands.js';
import {
  AssignmentsInput,
  CompanyInput,
  CompanyListInput,
  CompanySearchInput,
  CompanyUpdateInput,
  NachaConfigInput,
  PaymentAccountInput,
} from '../../schema/companies/commands.js';
import { companyEvents } from '../../schema/companies/events.js';
import {
  QUICKBOOKS_QUEUE,
  quickbooksJobHandlers,
  quickbooksProcessManager,
} from '../../workers/companies/quickbooks.js';
import { ADMIN_ONLY } from '../auth/permissions.js';
import { COMPANY_IDS_SEQUENCE } from '../companies/create.js';
import { companyEndpoints, companyInputs } from '../companies/endpoints.js';
import '../companies/api/graphql/company.js';
import '../companies/api/graphql/quickbooks.js';
import { companyRoutes } from '../companies/api/rest/company-routes.js';
import { quickbooksRoutes } from '../companies/api/rest/quickbooks-routes.js';
import { QbConnections } from '../quickbooks/connections.js';
import { OAuthStates } from '../quickbooks/oauth-states.js';
import { defineModule } from './module.js';

const permissions = {
  // A company's id and name: the approvals, /bills and vendors screens pick a company.
  'companies.read': ['ADMIN', 'MODERATOR', 'USER'] as const,
  // Companies are ADMIN's; every other field (contact, tax id, NACHA settings,
  // assignees, QuickBooks connection, bank accounts and balances) is read by ADMIN alone.
  'companies.details': ADMIN_ONLY,
  // Whether a company is connected to QuickBooks: the vendors page syncs a connected one.
  'companies.connectionStatus': ['ADMIN', 'MODERATOR'] as const,
  'companies.write': ADMIN_ONLY,
};

type CompanyPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends CompanyPermissions {}
}

export const companyModule = defineModule({
  name: 'company',
  folder: 'companies',
  events: companyEvents,
  commands: {
    CompanyInput,
    CompanyUpdateInput,
    AssignmentsInput,
    PaymentAccountInput,
    NachaConfigInput,
    CompanyListInput,
    CompanySearchInput,
    BankConnectionInput,
  },
  permissions,
  projections: [companiesProjection],
  processManagers: [quickbooksProcessManager],
  jobHandlers: { [QUICKBOOKS_QUEUE]: quickbooksJobHandlers },
  endpoints: companyEndpoints,
  graphqlInputs: companyInputs,
  routes: [companyRoutes, quickbooksRoutes],
  storage: async (pool: pg.Pool) => {
    await pool.query(`CREATE SEQUENCE IF NOT EXISTS ${COMPANY_IDS_SEQUENCE}`);
    await QbConnections.setup(pool);
    await OAuthStates.setup(pool);
  },
});
