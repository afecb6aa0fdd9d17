// Companies (spec 1 §2–§9): client companies, their assignees, payment account and NACHA settings.
// The QuickBooks connection joins this module with issue 10 item 2.
import type pg from 'pg';
import { type CompaniesTables, companiesProjection } from '../../projections/companies.js';
import {
  AssignmentsInput,
  CompanyInput,
  CompanyListInput,
  CompanySearchInput,
  NachaConfigInput,
  PaymentAccountInput,
} from '../../schema/commands/company.js';
import { companyEvents } from '../../schema/events/company.js';
import { COMPANY_IDS_SEQUENCE } from '../app/companies.js';
import { ADMIN_ONLY } from '../auth/permissions.js';
import '../gateway/graphql/types/company.js';
import { companyRoutes } from '../gateway/rest/company-routes.js';
import { defineModule } from './module.js';

const permissions = {
  // The approvals screens (USER and up) filter by company: they read the list (spec 2 §9).
  'companies.read': ['ADMIN', 'MODERATOR', 'USER'] as const,
  // Spec 1 §6: companies are ADMIN's.
  'companies.write': ADMIN_ONLY,
};

type CompanyPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends CompanyPermissions {}
}

export const companyModule = defineModule<CompaniesTables>({
  name: 'company',
  events: companyEvents,
  commands: {
    CompanyInput,
    AssignmentsInput,
    PaymentAccountInput,
    NachaConfigInput,
    CompanyListInput,
    CompanySearchInput,
  },
  permissions,
  projections: [companiesProjection],
  routes: [companyRoutes],
  storage: async (pool: pg.Pool) => {
    await pool.query(`CREATE SEQUENCE IF NOT EXISTS ${COMPANY_IDS_SEQUENCE}`);
  },
});
