// The QuickBooks Online simulator: Intuit's OAuth and v3 API paths on a local server, so the real
// client (intuit-oauth, fetch) reaches it by configuration alone (QBO_OAUTH_BASE, QBO_API_BASE).
// Facts and shapes from reference/quickbooks.md (Intuit's docs, XSDs and client sources); state is
// in memory, per realm, from a deterministic seed. Test hooks live under /__sim.
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { apiOf, registerApiReads } from './api.js';
import { registerApiWrites } from './api-writes.js';
import { faultsOf } from './faults.js';
import { registerTestHooks } from './hooks.js';
import { registerOAuth } from './oauth.js';
import { seedRealms } from './seed.js';
import { SandboxState } from './state.js';
import type { QboSandbox, SandboxOptions } from './types.js';

export type { FaultRule, LoggedRequest, QboSandbox, SandboxClient, SandboxOptions } from './types.js';

export function buildQboSandbox(options: SandboxOptions): FastifyInstance {
  const sim = new SandboxState(options);
  const { now } = sim;

  const server = Fastify({ logger: false, bodyLimit: 1_048_576 });
  server.addHook('onClose', async () => {
    if (sim.saveQueued) sim.saveNow();
  });
  server.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  const tid = () => `1-${randomUUID()}`;
  server.addHook('onRequest', async (_req, reply) => {
    reply.header('intuit_tid', tid());
  });
  // A fault rule's lost answer (FaultRule.afterWrite): the write stands, the caller sees a failure.
  server.addHook('onSend', async (req, reply, payload) => {
    const lost = (req as { simLostAnswer?: string }).simLostAnswer;
    if (!lost) return payload;
    if (lost === 'unavailable') {
      reply.status(503).type('text/plain');
      return 'Service Unavailable';
    }
    reply.status(500).type('application/json');
    return JSON.stringify({
      Fault: {
        Error: [{ Message: 'An application error has occurred', code: '10000' }],
        type: 'SystemFault',
      },
      time: sim.time(),
    });
  });
  server.addHook('onResponse', async (req, reply) => {
    const path = req.url.split('?')[0];
    // Anything but a read may have changed the state (tokens, bills, payments, vendors, clock).
    if (req.method !== 'GET' && req.method !== 'HEAD') sim.save();
    if (path.startsWith('/__sim')) return;
    sim.log.push({
      at: new Date(now()).toISOString(),
      method: req.method,
      path,
      realmId: (req.params as { realmId?: string })?.realmId ?? null,
      status: reply.statusCode,
      requestId: (req.query as Record<string, string>)?.requestid ?? null,
      ...((req as { simPaidBillIds?: string[] }).simPaidBillIds
        ? { paidBillIds: (req as { simPaidBillIds?: string[] }).simPaidBillIds }
        : {}),
    });
    if (sim.log.length > 5000) sim.log.splice(0, sim.log.length - 5000);
  });

  const faults = faultsOf(sim);
  const api = apiOf(sim, faults);
  registerOAuth(server, sim, faults);
  registerApiReads(server, sim, api);
  registerApiWrites(server, sim, api);
  registerTestHooks(server, sim);
  return server;
}

/** Starts the simulator on a loopback port (0: any free one). */
export async function startQboSandbox(
  options: SandboxOptions & { port?: number; host?: string },
): Promise<QboSandbox> {
  const server = buildQboSandbox(options);
  const address = await server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  return {
    server,
    url: address.replace('[::1]', '127.0.0.1'),
    close: () => server.close(),
    realms: () =>
      seedRealms({
        seed: options.seed,
        vendorsPerRealm: options.vendorsPerRealm,
        billsPerRealm: options.billsPerRealm,
      }),
  };
}

/** A stable id for a demo app's client id (so a restart keeps working with stored credentials). */
export const demoClientSecret = (seed: string) =>
  createHash('sha256').update(`qbo-sandbox:${seed}`).digest('base64url');
