// /api/bill-approval/*. Thin: parse the path, query or body, call the
// application function. Routes with a fixed path come before /:id.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  Approval,
  ApprovalBillCandidate,
  ApprovalHistoryEntry,
  ApprovalManagerOption,
  ApprovalPolicy,
  ApprovalStats,
} from '../../../../schema/approvals/answers.js';
import {
  ApprovalExportInput,
  ApprovalListInput,
  ApprovalStatsInput,
  ApprovalsByDayInput,
  BillsForApprovalInput,
  ManagerOptionsInput,
} from '../../../../schema/approvals/commands.js';
import { ApprovalsDay } from '../../../../schema/dashboard/answers.js';
import { attachment } from '../../../gateway/rest/attachment.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { billsForApproval } from '../../bills.js';
import { approvalsByDay } from '../../by-day.js';
import { getApproval } from '../../detail.js';
import { APPROVAL_EXPORT_FILENAME, exportApprovalsCsv } from '../../export-csv.js';
import { approvalHistory } from '../../history.js';
import { approvalInvoice } from '../../invoice.js';
import { LIST_READ_MODELS, listApprovals } from '../../list.js';
import { approvalManagerOptions } from '../../manager-options.js';
import { getApprovalPolicy } from '../../policy.js';
import { approvalStats } from '../../stats.js';
import { pageForViewer, withViewer } from '../../viewer.js';

const TAGS = ['approvals'];

const BASE = '/api/bill-approval';
type IdParams = { Params: { id: string } };
const ApprovalIdParams = z.object({ id: z.string().max(64).describe('Approval id (UUID)') });

export function approvalRoutes(server: FastifyInstance, { app, actorOf, responses }: RestDeps) {
  const A = `${BASE}/approvals`;
  server.get(
    A,
    {
      schema: routeDoc({
        summary:
          'List approvals (search, status, priority, company; 5/10/25/50/100 a page; sortBy, sortOrder)',
        tags: TAGS,
        querystring: ApprovalListInput,
        data: z.array(Approval),
        paginated: true,
      }),
    },
    async (req, reply) => {
      const actor = await actorOf(req);
      // Staff keep this list open: an unchanged page is sent again as it was (response-cache.ts).
      return responses.rest(req, reply, actor, LIST_READ_MODELS, async () => {
        const page = pageForViewer(await listApprovals(app, actor, req.query), actor);
        return {
          success: true,
          data: page.data,
          meta: {
            pagination: {
              total: page.total,
              page: page.page,
              limit: page.limit,
              totalPages: page.totalPages,
            },
          },
        };
      });
    },
  );
  server.get(
    `${A}/stats`,
    {
      schema: routeDoc({
        summary:
          'Approval figures (optionally of one company): counts, bills, amounts, by status and priority',
        tags: TAGS,
        querystring: ApprovalStatsInput,
        data: ApprovalStats,
      }),
    },
    async (req, reply) => ok(reply, await approvalStats(app, await actorOf(req), req.query)),
  );
  server.get(
    `${A}/export`,
    {
      schema: routeDoc({
        summary: 'The filtered approvals as CSV (approvals-export.csv)',
        tags: TAGS,
        querystring: ApprovalExportInput,
        file: { contentType: 'text/csv', description: 'approvals-export.csv (an attachment)' },
      }),
    },
    async (req, reply) => {
      const csv = await exportApprovalsCsv(app, await actorOf(req), req.query);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${APPROVAL_EXPORT_FILENAME}"`)
        .send(csv);
    },
  );
  server.get<IdParams>(
    `${A}/:id`,
    {
      schema: routeDoc({
        summary: 'One approval with its bills (vendor contacts, ACH status masked) and recipients',
        tags: TAGS,
        params: ApprovalIdParams,
        data: Approval,
        errors: [404],
      }),
    },
    async (req, reply) => {
      const actor = await actorOf(req);
      return ok(reply, withViewer(await getApproval(app, actor, req.params.id), actor));
    },
  );
  server.get<IdParams>(
    `${A}/:id/history`,
    {
      schema: routeDoc({
        summary: 'The approval’s history from its stream (oldest first)',
        tags: TAGS,
        params: ApprovalIdParams,
        data: z.array(ApprovalHistoryEntry),
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await approvalHistory(app, await actorOf(req), req.params.id)),
  );
  server.get<{ Params: { id: string; billId: string } }>(
    `${A}/:id/bills/:billId/invoice`,
    {
      schema: routeDoc({
        summary: 'The bill’s invoice (its QuickBooks attachable, PDF)',
        tags: TAGS,
        params: z.object({ id: z.string().max(64), billId: z.string().max(40) }),
        file: { contentType: 'application/pdf', description: 'The invoice file (inline)' },
        errors: [404],
      }),
    },
    async (req, reply) => {
      const file = await approvalInvoice(app, await actorOf(req), req.params.id, req.params.billId);
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', attachment(file.fileName))
        .send(file.body);
    },
  );
  server.get(
    `${BASE}/bills`,
    {
      schema: routeDoc({
        summary:
          'The company’s open QuickBooks bills for a new approval (banking ready, in an open approval, possible duplicate)',
        tags: TAGS,
        querystring: BillsForApprovalInput,
        data: z.array(ApprovalBillCandidate),
        errors: [404, 409],
      }),
    },
    async (req, reply) => ok(reply, await billsForApproval(app, await actorOf(req), req.query)),
  );
  server.get(
    `${BASE}/manager-options`,
    {
      schema: routeDoc({
        summary:
          'The ACTIVE managers an approval can be assigned to (ADMIN, MODERATOR): id, display name, e-mail; with companyId, the company’s assigned manager marked',
        tags: TAGS,
        querystring: ManagerOptionsInput,
        data: z.array(ApprovalManagerOption),
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await approvalManagerOptions(app, await actorOf(req), req.query)),
  );
  server.get(
    '/api/dashboard/approvals-by-status',
    {
      schema: routeDoc({
        summary:
          'The dashboard chart: approvals created per day (UTC) over the last `days` (30), by status now',
        tags: ['dashboard'],
        querystring: ApprovalsByDayInput,
        data: z.array(ApprovalsDay),
      }),
    },
    async (req, reply) => ok(reply, await approvalsByDay(app, await actorOf(req), req.query)),
  );
  server.get<{ Params: { companyId: string } }>(
    `${BASE}/policies/:companyId`,
    {
      schema: routeDoc({
        summary:
          'The company’s approval policy (ADMIN): by default the creator may not approve, and only assigned staff see its approvals',
        tags: TAGS,
        params: z.object({ companyId: z.string().max(12) }),
        data: ApprovalPolicy,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getApprovalPolicy(app, await actorOf(req), req.params.companyId)),
  );
}
