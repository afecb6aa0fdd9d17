// POST /api/quickbooks/webhook: Intuit's change notifications. Public (Intuit
// calls it); the `intuit-signature` over the raw body is the authentication, so this route reads
// its body as bytes. Not configured (no QBO_WEBHOOK_VERIFIER_TOKEN): 404.
import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { QbWebhookAnswer } from '../../../../schema/vendors/answers.js';
import { ErrorEnvelope } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';
import { receiveQbWebhook } from '../../quickbooks-webhook.js';

export function quickbooksWebhookRoutes(server: FastifyInstance, { app }: RestDeps) {
  server.register(async (scope) => {
    // The signature is over the bytes Intuit sent: no JSON parse before it is checked.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1_048_576 }, (_req, body, done) =>
      done(null, body),
    );
    scope.post(
      '/api/quickbooks/webhook',
      {
        schema: {
          summary:
            'Intuit’s change notifications: checks intuit-signature, then queues an incremental sync per named realm',
          tags: ['quickbooks'],
          security: [],
          response: {
            200: {
              description: 'Accepted: how many syncs it queued',
              content: {
                'application/json': {
                  schema: z.object({
                    success: z.literal(true),
                    data: QbWebhookAnswer,
                  }),
                },
              },
            },
            401: { description: 'Bad signature', content: { 'application/json': { schema: ErrorEnvelope } } },
            404: {
              description: 'Not configured',
              content: { 'application/json': { schema: ErrorEnvelope } },
            },
          },
        } as FastifySchema,
      },
      async (req, reply) => {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        return ok(reply, await receiveQbWebhook(app, body, req.headers['intuit-signature']));
      },
    );
  });
}
