// What the simulator answers when a fault is due: Intuit's fault bodies (JSON, lowercase `fault`,
// XML), the 401 of a bad token, and the rules of /__sim/faults applied to a request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxState } from './state.js';
import type { FaultRule } from './types.js';

export const json = 'application/json';

/** The fault answers over one simulator's state and clock. */
export function faultsOf(sim: SandboxState) {
  const { now, time, rateWindowMs } = sim;
  const xmlFault = (type: string, code: string, message: string, detail?: string) =>
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><IntuitResponse xmlns="http://schema.intuit.com/finance/v3" time="${time()}"><Fault type="${type}"><Error code="${code}"><Message>${message}</Message>${detail ? `<Detail>${detail}</Detail>` : ''}</Error></Fault></IntuitResponse>`;

  function sendFault(reply: FastifyReply, kind: NonNullable<FaultRule['kind']>, xml = false) {
    switch (kind) {
      case 'throttle':
        // Intuit: "wait 60 seconds" before retrying (limits page; reference/quickbooks.md §6).
        reply.header('retry-after', String(Math.ceil(rateWindowMs / 1000)));
        return xml
          ? reply
              .status(429)
              .type('application/xml')
              .send(
                xmlFault(
                  'SERVICE',
                  '3001',
                  'message=ThrottleExceeded; errorCode=003001; statusCode=429',
                  'The request limit was reached.  Try again later',
                ),
              )
          : reply
              .status(429)
              .type(json)
              .send({
                Fault: {
                  Error: [
                    {
                      Message: 'message=ThrottleExceeded; errorCode=003001; statusCode=429',
                      Detail: 'The request limit was reached.  Try again later',
                      code: '3001',
                    },
                  ],
                  type: 'SERVICE',
                },
                time: time(),
              });
      case 'unauthorized':
        return unauthorized(reply, 'Token expired');
      case 'forbidden':
        // 403 code 3100, lowercase `fault` (intuit/oauth-jsclient#2, node-quickbooks#154), or XML
        // with a Detail (IntuitDeveloper/QBOConceptsTutorial-PHP#13).
        return xml
          ? reply
              .status(403)
              .type('application/xml')
              .send(
                xmlFault(
                  'SERVICE',
                  '3100',
                  'message=AuthorizationFailed; errorCode=003100; statusCode=403',
                  'The sim.access token does not have sufficient scope',
                ),
              )
          : reply
              .status(403)
              .type(json)
              .send({
                fault: {
                  error: [
                    {
                      message: 'message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403',
                      detail: null,
                      code: '3100',
                      element: null,
                    },
                  ],
                  type: 'SERVICE',
                },
                time: now(),
              });
      case 'validation':
        return reply
          .status(400)
          .type(json)
          .send({
            Fault: {
              Error: [
                {
                  Message: 'A business validation error has occurred while processing your request',
                  Detail: 'Business Validation Error',
                  code: '6000',
                  element: '',
                },
              ],
              type: 'ValidationFault',
            },
            time: time(),
          });
      case 'stale':
        // Intuit's optimistic locking: a write whose SyncToken is not the latest (code 5010,
        // developer.intuit.com/app/developer/qbo/docs/develop/troubleshooting/error-codes).
        return reply
          .status(400)
          .type(json)
          .send({
            Fault: {
              Error: [
                {
                  Message: 'Stale Object Error',
                  Detail:
                    'Stale Object Error : You and another user were working on the same thing. The other user finished before you did, so your work was not saved.',
                  code: '5010',
                  element: '',
                },
              ],
              type: 'ValidationFault',
            },
            time: time(),
          });
      case 'server':
        return reply
          .status(500)
          .type(json)
          .send({
            Fault: {
              Error: [{ Message: 'An application error has occurred', code: '10000' }],
              type: 'SystemFault',
            },
            time: time(),
          });
      case 'unavailable':
        return reply.status(503).type('text/plain').send('Service Unavailable');
      case 'invalid_grant':
        return reply
          .status(400)
          .type(json)
          .send({ error: 'invalid_grant', error_description: 'Incorrect or invalid sim.refresh token' });
    }
  }

  function unauthorized(reply: FastifyReply, detail: string, code = '3200') {
    return reply
      .status(401)
      .type(json)
      .send({
        fault: {
          error: [
            { message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401', detail, code },
          ],
          type: 'AUTHENTICATION',
        },
        time: now(),
      });
  }

  /** The request is about this bill: its path, or a line of its body linking it (a BillPayment's). */
  function aboutBill(req: FastifyRequest, path: string, billId: string): boolean {
    if (path.endsWith(`/bill/${billId}`)) return true;
    const lines = (req.body as { Line?: unknown } | undefined)?.Line;
    return (
      Array.isArray(lines) &&
      lines.some(
        (l) =>
          Array.isArray(l?.LinkedTxn) &&
          l.LinkedTxn.some(
            (x: { TxnId?: unknown; TxnType?: unknown }) =>
              x?.TxnType === 'Bill' && String(x.TxnId) === billId,
          ),
      )
    );
  }

  /** Applies the first matching fault rule; true when it answered. */
  async function injected(
    req: FastifyRequest,
    reply: FastifyReply,
    realmId: string | null,
    slow?: (ms: number) => void,
  ): Promise<boolean> {
    const path = req.url.split('?')[0];
    for (const rule of sim.faults) {
      if (rule.method && rule.method.toUpperCase() !== req.method) continue;
      if (rule.path && !new RegExp(rule.path).test(path)) continue;
      if (rule.realmId && rule.realmId !== realmId) continue;
      if (rule.billId !== undefined && !aboutBill(req, path, rule.billId)) continue;
      if (rule.count !== undefined && rule.used >= rule.count) continue;
      if (rule.probability !== undefined && Math.random() >= rule.probability) continue;
      rule.used++;
      // Latency alone: the caller sleeps once the call counts as in flight (the limiter sees it).
      if (!rule.kind && rule.latencyMs && slow) {
        slow(rule.latencyMs);
        return false;
      }
      if (rule.latencyMs) await new Promise((r) => setTimeout(r, rule.latencyMs));
      if (!rule.kind) return false;
      if (rule.afterWrite) {
        // The route runs; the server's onSend replaces its answer (server.ts).
        (req as { simLostAnswer?: FaultRule['kind'] }).simLostAnswer = rule.kind;
        return false;
      }
      sendFault(reply, rule.kind, rule.xml);
      return true;
    }
    return false;
  }

  return { xmlFault, sendFault, unauthorized, injected };
}

export type Faults = ReturnType<typeof faultsOf>;
