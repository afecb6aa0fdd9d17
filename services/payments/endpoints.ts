// The payments module's commands, each declared once (services/app/endpoints.ts). Reading a bank's
// file is an upload (a multipart route: services/payments/api/rest/inbound-routes.ts).
import { z } from 'zod';
import { declareCommand } from '../app/endpoints.js';
import { type SendNowResult, sendWaitingFilesNow } from './send-now.js';

const SendNowAnswer = z.object({ companyId: z.number().int(), files: z.number().int(), message: z.string() });

export const paymentsEndpoints = [
  declareCommand({
    name: 'SendWaitingFilesNow',
    permission: 'payments.deliver',
    scope: 'any company that sends its files over SFTP',
    run: (app, actor, companyId: unknown) => sendWaitingFilesNow(app, actor, { companyId }),
    rest: {
      method: 'POST',
      path: '/api/payments/companies/:id/send-now',
      input: (r) => r.params.id,
      message: (r: SendNowResult) => r.message,
      doc: {
        summary: "Send the company's files waiting for their cut-off window now (ADMIN)",
        description:
          'Each waiting file goes to the bank at once, through the same once-only delivery as at its window. 409 when the company sends its files by hand.',
        tags: ['payments'],
        params: z.object({ id: z.string().max(12).describe('Company id') }),
        data: SendNowAnswer,
        errors: [400, 404, 409],
      },
    },
    graphql: {
      name: 'sendWaitingFilesNow',
      description: "Sends the company's files waiting for their cut-off window now (ADMIN)",
      args: { companyId: 'Int!' },
      returns: 'String!',
      input: (args) => args.companyId,
      answer: (r: SendNowResult) => r.message,
    },
  }),
];
