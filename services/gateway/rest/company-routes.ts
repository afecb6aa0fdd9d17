// /api/company/*. Thin: parse the path and query, call the application function.
// The QuickBooks calls of the same base path come with the connection.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Company, CompanyRead } from '../../../schema/companies/answers.js';
import {
  AssignmentsInput,
  CompanyInput,
  CompanyListInput,
  CompanySearchInput,
  CompanyUpdateInput,
  NachaConfigInput,
  PaymentAccountInput,
} from '../../../schema/companies/commands.js';
import { changeAssignments } from '../../companies/assignments.js';
import { createCompany } from '../../companies/create.js';
import { configureNacha } from '../../companies/nacha.js';
import { setPaymentAccount } from '../../companies/payment-account.js';
import { getCompany, listCompanies, searchCompanies } from '../../companies/queries.js';
import { activateCompany, deactivateCompany, deleteCompany } from '../../companies/status.js';
import { updateCompany } from '../../companies/update.js';
import { routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

type IdParams = { Params: { id: string } };
const CompanyIdParams = z.object({ id: z.string().regex(/^\d+$/).describe('Company id') });
const TAGS = ['companies'];
const BASE = '/api/company/companies';

export function companyRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    BASE,
    {
      schema: routeDoc({
        summary: 'List companies (search, status and connection filters; paged, newest first)',
        description:
          'MODERATOR and USER read each company’s id and name (a MODERATOR also its connection status); their search matches names only, and a filter on a field they cannot read is refused (403).',
        tags: TAGS,
        querystring: CompanyListInput,
        data: z.array(CompanyRead),
        paginated: true,
      }),
    },
    async (req, reply) => {
      const page = await listCompanies(app, await actorOf(req), req.query);
      return ok(reply, page.data, {
        pagination: { total: page.total, page: page.page, limit: page.limit, totalPages: page.totalPages },
      });
    },
  );
  // Before /:id, so that "search" is not taken for an id.
  server.get(
    `${BASE}/search`,
    {
      schema: routeDoc({
        summary: 'Companies whose name or e-mail contains q (at most 20; MODERATOR and USER: name only)',
        tags: TAGS,
        querystring: CompanySearchInput,
        data: z.array(CompanyRead),
      }),
    },
    async (req, reply) => ok(reply, await searchCompanies(app, await actorOf(req), req.query)),
  );
  server.post(
    BASE,
    {
      schema: routeDoc({
        summary: 'Create a company (ADMIN); its name must be unique among active companies',
        tags: TAGS,
        body: CompanyInput,
        status: 201,
        data: Company,
        errors: [409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await createCompany(app, await actorOf(req), req.body), {
        status: 201,
        message: 'Company created successfully',
      }),
  );
  server.get<IdParams>(
    `${BASE}/:id`,
    {
      schema: routeDoc({
        summary: 'One company (MODERATOR and USER: its id and name)',
        tags: TAGS,
        params: CompanyIdParams,
        data: CompanyRead,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getCompany(app, await actorOf(req), req.params.id)),
  );
  server.put<IdParams>(
    `${BASE}/:id`,
    {
      schema: routeDoc({
        summary:
          'Update a company’s form fields (ADMIN): absent assignments and payment account are kept, null clears them',
        description:
          'The details (email, phone, website, address, description, industry) are the form’s: an absent one is cleared, as the form sends an emptied field as absent. The four assignments (managerId, processorId, approverId, accountantId) and qbPaymentAccountReference keep their value when absent and are cleared only when given as null: a partial update (a name alone, say) never silently unassigns the company or stops its payments.',
        tags: TAGS,
        params: CompanyIdParams,
        body: CompanyUpdateInput,
        data: Company,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await updateCompany(app, await actorOf(req), req.params.id, req.body), {
        message: 'Company updated successfully',
      }),
  );
  server.delete<IdParams>(
    `${BASE}/:id`,
    {
      schema: routeDoc({
        summary: 'Delete a company (ADMIN): gone from lists, its history kept',
        tags: TAGS,
        params: CompanyIdParams,
        data: z.null(),
        errors: [404, 422],
      }),
    },
    async (req, reply) => {
      await deleteCompany(app, await actorOf(req), req.params.id);
      return ok(reply, null, { message: 'Company deleted successfully' });
    },
  );
  server.put<IdParams>(
    `${BASE}/:id/reactivate`,
    {
      schema: routeDoc({
        summary: 'Activate a company (ADMIN); refused when an active company has its name',
        tags: TAGS,
        params: CompanyIdParams,
        data: Company,
        errors: [404, 409, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await activateCompany(app, await actorOf(req), req.params.id), {
        message: 'Company activated successfully',
      }),
  );
  server.put<IdParams>(
    `${BASE}/:id/deactivate`,
    {
      schema: routeDoc({
        summary: 'Deactivate a company (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        data: Company,
        errors: [404, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await deactivateCompany(app, await actorOf(req), req.params.id), {
        message: 'Company deactivated successfully',
      }),
  );
  // Not in the spec's list: the detail page's inline assignment change.
  server.put<IdParams>(
    `${BASE}/:id/assignments`,
    {
      schema: routeDoc({
        summary: 'Change one or more assignees (ADMIN): absent unchanged, null unassigned',
        tags: TAGS,
        params: CompanyIdParams,
        body: AssignmentsInput,
        data: Company,
        errors: [404, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await changeAssignments(app, await actorOf(req), req.params.id, req.body), {
        message: 'Assignment updated successfully',
      }),
  );
  // Method and path of these two are this product's own choice.
  server.put<IdParams>(
    `${BASE}/:id/payment-account`,
    {
      schema: routeDoc({
        summary: 'Choose the QuickBooks bank account payments are drawn on (ADMIN)',
        tags: TAGS,
        params: CompanyIdParams,
        body: PaymentAccountInput,
        data: Company,
        errors: [404, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await setPaymentAccount(app, await actorOf(req), req.params.id, req.body), {
        message: 'Payment account updated successfully',
      }),
  );
  server.put<IdParams>(
    `${BASE}/:id/nacha-config`,
    {
      schema: routeDoc({
        summary: 'Save the NACHA settings (ADMIN); the account number is kept when sent masked or left out',
        tags: TAGS,
        params: CompanyIdParams,
        body: NachaConfigInput,
        data: Company,
        errors: [404, 422],
      }),
    },
    async (req, reply) =>
      ok(reply, await configureNacha(app, await actorOf(req), req.params.id, req.body), {
        message: 'NACHA configuration updated successfully',
      }),
  );
}
