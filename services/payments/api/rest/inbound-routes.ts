// /api/payments/inbound-files: an ADMIN uploads a file the bank sent back (multipart field `file`);
// staff list what was read. Hand-written: an upload is not a JSON command (the declarations' bodies
// are JSON, and a return file of 10,000 entries is far above their limit).
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { InboundFileOutcome, InboundFileRow } from '../../../../schema/payments/answers.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { uploadedFile } from '../../../gateway/rest/upload.js';
import { applyInboundFile, MAX_INBOUND_BYTES } from '../../inbound.js';
import { listInboundFiles } from '../../queries.js';

const TAGS = ['payments'];
const BASE = '/api/payments/inbound-files';

export function paymentInboundRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get(
    BASE,
    {
      schema: routeDoc({
        summary: 'The files the bank sent back (returns, notifications of change), newest first',
        tags: TAGS,
        data: z.array(InboundFileRow),
      }),
    },
    async (req, reply) => ok(reply, await listInboundFiles(app, await actorOf(req))),
  );
  server.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_INBOUND_BYTES, files: 1, fields: 2, parts: 3 },
    });
    scope.post(
      BASE,
      {
        schema: routeDoc({
          summary:
            'Read a return or notification-of-change file from the bank (multipart field `file`, at most 16 MB)',
          description:
            'ADMIN only. The file is checked as an ACH file (refused, 400, with its reasons, and nothing applied); each return or notification of change is matched by its original trace to an entry of a Billflow file and recorded once; entries that match nothing are parked for a person. The same file twice applies nothing the second time (appliedNow false).',
          tags: TAGS,
          consumes: ['multipart/form-data'],
          data: InboundFileOutcome,
          errors: [400],
        }),
      },
      async (req, reply) => {
        const actor = await actorOf(req);
        const upload = await uploadedFile(req, '16 MB');
        const outcome = await applyInboundFile(
          app,
          actor,
          { fileName: upload.filename, content: upload.content.toString('latin1') },
          'upload',
          { userId: actor ? String(actor.id) : null, request: actor?.request },
        );
        return ok(reply, outcome);
      },
    );
  });
}
