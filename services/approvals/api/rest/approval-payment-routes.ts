// GET /api/bill-approval/approvals/{id}/nacha-files/{fileId}: the stored files' downloads. The payment
// half's commands are declared in services/approvals/payments/endpoints.ts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { attachment } from '../../../gateway/rest/attachment.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { downloadNachaFile } from '../../payments/nacha-actions.js';

export function approvalPaymentRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
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
}
