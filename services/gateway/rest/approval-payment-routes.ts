// /api/bill-approval/approvals/{id}/… of the payment half staff use signed in:
// regenerate-nacha, approve-again, generate-penny-test, retry-qb-sync, and the stored files' downloads.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Approval } from '../../../schema/approvals/answers.js';
import { PennyTestResult } from '../../../schema/approvals/payment-answers.js';
import { approveBankingAgain } from '../../approvals/approve-again.js';
import {
  PENNY_LIMIT,
  PENNY_TESTS_PER_COMPANY_PER_DAY,
  PENNY_TESTS_PER_VENDOR_PER_DAY,
} from '../../approvals/payments/file-modifier.js';
import { downloadNachaFile, regenerateNacha } from '../../approvals/payments/nacha-actions.js';
import { generatePennyTest } from '../../approvals/payments/penny-test.js';
import { retryQbSync } from '../../approvals/payments/retry-qb-sync.js';
import { withViewer } from '../../approvals/viewer.js';
import { attachment } from './approval-routes.js';
import { routeDoc } from './contracts.js';
import type { RestDeps } from './deps.js';
import { ok } from './envelope.js';

export function approvalPaymentRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  const params = z.object({ id: z.string().max(64).describe('Approval id (UUID)') });
  server.post<{ Params: { id: string } }>(
    '/api/bill-approval/approvals/:id/regenerate-nacha',
    {
      schema: routeDoc({
        summary: 'Ask for a new version of the approval’s NACHA file (GenerateNacha)',
        description:
          'The file is made by a job; earlier versions stay downloadable. Refused (409) from BANK_UPLOADED on: the file is at the bank, a second one would pay twice.',
        tags: ['approvals'],
        params,
        data: Approval,
        errors: [403, 404, 409],
      }),
    },
    async (req, reply) => {
      const actor = await actorOf(req);
      const r = await regenerateNacha(app, actor, req.params.id);
      return ok(reply, withViewer(r.approval, actor), { message: r.message });
    },
  );
  server.post<{ Params: { id: string } }>(
    '/api/bill-approval/approvals/:id/approve-again',
    {
      schema: routeDoc({
        summary: 'Approve again the bank details of vendors whose banking changed after approval',
        description:
          'A file pays a vendor only the banking its approver was shown (a fingerprint recorded at approval); a vendor whose banking changed since is held out of the file, named. This records the live banking of those vendors as approved (the detail’s bankingReview shows the tails first), so Regenerate makes a file that pays it. ADMIN, MODERATOR; not the creator when the company’s policy says so (403). Refused (409) before approval, once the file is at the bank, and when no vendor’s banking changed.',
        tags: ['approvals'],
        params,
        data: Approval,
        errors: [403, 404, 409],
      }),
    },
    async (req, reply) => {
      const actor = await actorOf(req);
      const r = await approveBankingAgain(app, actor, req.params.id);
      return ok(reply, withViewer(r.approval, actor), { message: r.message });
    },
  );
  server.post<{ Params: { id: string } }>(
    '/api/bill-approval/approvals/:id/generate-penny-test',
    {
      schema: routeDoc({
        summary: 'A penny-test file: 1–99 cents to each vendor with complete banking (GeneratePennyTest)',
        description: `400 'No vendors have complete banking information', or 'Penny test validation failed: …' naming the vendors whose banking a file cannot hold. 409 '${PENNY_LIMIT}: …' past ${PENNY_TESTS_PER_VENDOR_PER_DAY} penny tests a vendor or ${PENNY_TESTS_PER_COMPANY_PER_DAY} a company in one New York day, or when the company's payment files have used the file ids penny tests may take; the text says when the limit resets (midnight New York time).`,
        tags: ['approvals'],
        params,
        data: PennyTestResult,
        errors: [403, 404, 409],
      }),
    },
    async (req, reply) => {
      const r = await generatePennyTest(app, await actorOf(req), req.params.id);
      return ok(reply, r, { message: 'Penny test generated' });
    },
  );
  server.get<{ Params: { id: string; fileId: string } }>(
    '/api/bill-approval/approvals/:id/nacha-files/:fileId',
    {
      schema: routeDoc({
        summary: 'A stored NACHA or penny-test file as text (ADMIN, MODERATOR; each download recorded)',
        tags: ['approvals'],
        params: z.object({ id: z.string().max(64), fileId: z.string().max(64) }),
        file: { contentType: 'text/plain', description: 'The NACHA file (an attachment)' },
        errors: [403, 404],
      }),
    },
    async (req, reply) => {
      const file = await downloadNachaFile(app, await actorOf(req), req.params.id, req.params.fileId);
      return reply
        .header('content-type', 'text/plain; charset=us-ascii')
        .header('content-disposition', attachment(file.fileName))
        .header('cache-control', 'no-store')
        .send(file.text);
    },
  );
  server.post<{ Params: { id: string } }>(
    '/api/bill-approval/approvals/:id/retry-qb-sync',
    {
      schema: routeDoc({
        summary:
          'Pay in QuickBooks the bills of a PAYMENT_COMPLETED approval not yet paid there (RetryQbSync)',
        description:
          'Starts a new run of the QuickBooks payment sync; each bill is paid once across every run (its requestid derives from the approval and the bill). Refused (409) before the payment is completed, while a run is going, and once every bill is paid.',
        tags: ['approvals'],
        params: z.object({ id: z.string().max(64).describe('Approval id (UUID)') }),
        data: Approval,
        errors: [403, 404, 409],
      }),
    },
    async (req, reply) => {
      const actor = await actorOf(req);
      const r = await retryQbSync(app, actor, req.params.id);
      return ok(reply, withViewer(r.approval, actor), { message: r.message });
    },
  );
}
