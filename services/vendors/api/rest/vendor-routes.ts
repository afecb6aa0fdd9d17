// /api/vendors/*: the reads and the CSV import and export. Thin:
// parse the path, query, body or upload, call the application function. The other commands are
// declared once in services/vendors/endpoints.ts. Routes with a fixed path come before /:id.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  BankingChange,
  BankingControl,
  CsvImportResult,
  Vendor,
  VendorAchStatus,
  VendorHistoryEntry,
  VendorSync,
} from '../../../../schema/vendors/answers.js';
import {
  AchStatusInput,
  MissingBankingInput,
  VendorExportInput,
  VendorGetInput,
  VendorListInput,
} from '../../../../schema/vendors/commands.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { uploadedFile } from '../../../gateway/rest/upload.js';
import { getBankingControl, vendorBankingChanges } from '../../banking-changes.js';
import { exportVendorsCsv } from '../../csv-export.js';
import { CSV_MAX_BYTES, importVendorsCsv } from '../../csv-import.js';
import { vendorHistory } from '../../history.js';
import { getVendor, listVendors, vendorAchStatus, vendorsMissingBanking } from '../../queries.js';
import { getVendorSync } from '../../sync.js';

const TAGS = ['vendors'];
const BASE = '/api/vendors';
type IdParams = { Params: { id: string } };
const VendorIdParams = z.object({ id: z.string().regex(/^\d+$/).describe('Vendor id') });

export function vendorRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    BASE,
    {
      schema: routeDoc({
        summary: 'List vendors (search, company, has banking, active; 20 a page, by name); numbers masked',
        tags: TAGS,
        querystring: VendorListInput,
        data: z.array(Vendor),
        paginated: true,
      }),
    },
    async (req, reply) => {
      const page = await listVendors(app, await actorOf(req), req.query);
      return ok(reply, page.data, {
        pagination: { total: page.total, page: page.page, limit: page.limit, totalPages: page.totalPages },
      });
    },
  );
  server.get(
    `${BASE}/missing-banking`,
    {
      schema: routeDoc({
        summary: 'Active vendors without bank details (optionally of one company)',
        tags: TAGS,
        querystring: MissingBankingInput,
        data: z.array(Vendor),
      }),
    },
    async (req, reply) => ok(reply, await vendorsMissingBanking(app, await actorOf(req), req.query)),
  );
  server.get(
    `${BASE}/ach-status`,
    {
      schema: routeDoc({
        summary: 'Whether a QuickBooks vendor of a company is ready for ACH (numbers masked)',
        tags: TAGS,
        querystring: AchStatusInput,
        data: VendorAchStatus,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await vendorAchStatus(app, await actorOf(req), req.query)),
  );
  server.get<{ Params: { syncId: string } }>(
    `${BASE}/sync/:syncId`,
    {
      schema: routeDoc({
        summary: 'A vendor sync: queued, completed or failed, with its counts',
        tags: TAGS,
        params: z.object({ syncId: z.string().max(64) }),
        data: VendorSync,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getVendorSync(app, await actorOf(req), req.params.syncId)),
  );
  server.get(
    `${BASE}/export-csv`,
    {
      schema: routeDoc({
        summary: 'The vendors as CSV (bank numbers masked), downloaded as vendors-export.csv',
        description:
          'With full=true (ADMIN only, else 403) the file holds the full routing and account numbers, so an import reads it back as it is (vendors-export-full.csv); every vendor it shows records the export in its history (who, when, the filter and how many vendors; never the numbers), as Show Full Numbers does.',
        tags: TAGS,
        querystring: VendorExportInput,
        file: { contentType: 'text/csv', description: 'vendors-export.csv (an attachment)' },
        errors: [403, 404],
      }),
    },
    async (req, reply) => {
      const csv = await exportVendorsCsv(app, await actorOf(req), req.query);
      const name =
        String((req.query as { full?: unknown }).full) === 'true' ? 'vendors-export-full' : 'vendors-export';
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}.csv"`)
        .send(csv);
    },
  );
  // The upload route has its own scope: multipart is parsed here only, at most 5 MB, one file.
  server.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: CSV_MAX_BYTES, files: 1, fields: 5, parts: 6 } });
    scope.post(
      `${BASE}/import-csv`,
      {
        schema: routeDoc({
          summary: 'Import bank details from CSV (multipart field `file`, .csv, at most 5 MB)',
          description:
            'Required columns: ID, Routing Number, Account Number, Account Type, Bank Name. Good rows are applied; bad rows come back with their row number and reason.',
          tags: TAGS,
          consumes: ['multipart/form-data'],
          data: CsvImportResult,
          errors: [400, 404],
        }),
      },
      async (req, reply) => {
        const actor = await actorOf(req);
        const { filename, content } = await uploadedFile(req, '5 MB');
        return ok(reply, await importVendorsCsv(app, actor, { filename, content }));
      },
    );
  });
  server.get<IdParams>(
    `${BASE}/:id`,
    {
      schema: routeDoc({
        summary:
          'One vendor; showUnmasked=true (ADMIN, MODERATOR) records the unmask, then shows the numbers',
        tags: TAGS,
        params: VendorIdParams,
        querystring: VendorGetInput,
        data: Vendor,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getVendor(app, await actorOf(req), req.params.id, req.query)),
  );
  server.get<IdParams>(
    `${BASE}/:id/history`,
    {
      schema: routeDoc({
        summary: 'The vendor’s history from its stream, unmasks included (newest first)',
        tags: TAGS,
        params: VendorIdParams,
        data: z.array(VendorHistoryEntry),
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await vendorHistory(app, await actorOf(req), req.params.id)),
  );
  server.get<IdParams>(
    `${BASE}/:id/banking-changes`,
    {
      schema: routeDoc({
        summary: 'Every change of the vendor’s bank details, newest first (masked)',
        tags: TAGS,
        params: VendorIdParams,
        data: z.array(BankingChange),
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await vendorBankingChanges(app, await actorOf(req), req.params.id)),
  );
  server.get<{ Params: { companyId: string } }>(
    `${BASE}/banking-control/:companyId`,
    {
      schema: routeDoc({
        summary: 'The company’s control on bank detail changes (on by default)',
        tags: TAGS,
        params: z.object({ companyId: z.string().regex(/^\d+$/).describe('Company id') }),
        data: BankingControl,
        errors: [404],
      }),
    },
    async (req, reply) => ok(reply, await getBankingControl(app, await actorOf(req), req.params.companyId)),
  );
}
