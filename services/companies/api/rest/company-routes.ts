// /api/company/* reads. Thin: parse the path and query, call the application function. The
// commands are declared once in services/companies/endpoints.ts; the QuickBooks calls of the same
// base path come with the connection.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CompanyRead } from '../../../../schema/companies/answers.js';
import { CompanyListInput, CompanySearchInput } from '../../../../schema/companies/commands.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { getCompany, listCompanies, searchCompanies } from '../../queries.js';

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
}
