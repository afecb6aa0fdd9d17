// The v3 accounting API's reads: the guard every call passes (token, realm, rate limits, faults),
// queries, reads by id, attachments and their signed download, and change data capture.
import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Faults, json } from './faults.js';
import { bearer } from './oauth.js';
import { invoicePdf } from './pdf.js';
import { parseQuery, QueryError, runQuery, withActiveDefault } from './query.js';
import type { Realm } from './seed.js';
import type { SandboxState } from './state.js';

/** What every API route shares: the guard, Intuit's not-found fault, and the entities by name. */
export function apiOf(sim: SandboxState, faults: Faults) {
  const { now, time, perMinute, concurrent, perSecond, rateWindowMs } = sim;
  const { injected, unauthorized, xmlFault, sendFault } = faults;
  /** Authentication, the per-realm limiter and fault injection: the realm when the call may go on. */
  async function guard(req: FastifyRequest, reply: FastifyReply): Promise<Realm | null> {
    const realmId = (req.params as { realmId: string }).realmId;
    let delayMs = 0;
    const slow = (ms: number) => {
      delayMs = ms;
    };
    if (await injected(req, reply, realmId, slow)) return null;
    const t = bearer(sim, req);
    if (!t || t.grant.revoked) {
      unauthorized(reply, 'Token revoked or invalid');
      return null;
    }
    if (t.expiresAt < now()) {
      unauthorized(reply, `Token expired: ${new Date(t.expiresAt).toISOString()}`);
      return null;
    }
    if (t.grant.realmId !== realmId) {
      // A token used against another realm: XML whatever the Accept header, code 100
      // (an Intuit engineer's reproduction in intuit/oauth-jsclient#91; python-quickbooks#120).
      reply
        .status(401)
        .type('application/xml')
        .send(
          xmlFault(
            'AuthenticationFault',
            '100',
            'General Authentication Error',
            'AuthenticationErrorGeneral: SRV-110-Authentication Failure , statusCode: 401',
          ),
        );
      return null;
    }
    const realm = sim.realms.get(realmId);
    if (!realm) {
      reply
        .status(400)
        .type(json)
        .send({
          Fault: {
            Error: [{ Message: 'Object Not Found', Detail: `Realm ${realmId}`, code: '610' }],
            type: 'ValidationFault',
          },
          time: time(),
        });
      return null;
    }
    // 500 a minute per realm, 10 a second per realm and app, 10 at once (Intuit's limits page and
    // blog 2016-08-08): the one-second count is per app (the token's client id).
    const window = (sim.windows.get(realmId) ?? []).filter((at) => at > now() - rateWindowMs);
    const appKey = `${realmId}:${t.grant.clientId}`;
    const second = (sim.seconds.get(appKey) ?? []).filter((at) => at > now() - 1000);
    if (
      window.length >= perMinute ||
      second.length >= perSecond ||
      (sim.inFlight.get(realmId) ?? 0) >= concurrent
    ) {
      sim.windows.set(realmId, window);
      sendFault(reply, 'throttle');
      return null;
    }
    window.push(now());
    sim.windows.set(realmId, window);
    second.push(now());
    sim.seconds.set(appKey, second);
    sim.inFlight.set(realmId, (sim.inFlight.get(realmId) ?? 0) + 1);
    reply.raw.once('close', () =>
      sim.inFlight.set(realmId, Math.max(0, (sim.inFlight.get(realmId) ?? 1) - 1)),
    );
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    return realm;
  }

  const notFound = (reply: FastifyReply, what: string) =>
    reply
      .status(400)
      .type(json)
      .send({
        Fault: {
          Error: [
            { Message: 'Object Not Found', Detail: `Object Not Found : ${what}`, code: '610', element: '' },
          ],
          type: 'ValidationFault',
        },
        time: time(),
      });

  const ENTITIES: Record<string, (r: Realm) => Array<Record<string, unknown>>> = {
    bill: (r) => r.bills as never,
    vendor: (r) => r.vendors as never,
    account: (r) => r.accounts as never,
    attachable: (r) => r.attachables as never,
    billpayment: (r) => r.billPayments,
    companyinfo: (r) => [r.info] as never,
  };
  const entityName = (e: string) =>
    ({
      bill: 'Bill',
      vendor: 'Vendor',
      account: 'Account',
      attachable: 'Attachable',
      billpayment: 'BillPayment',
      companyinfo: 'CompanyInfo',
    })[e.toLowerCase()];

  return { guard, notFound, ENTITIES, entityName };
}

export type Api = ReturnType<typeof apiOf>;

export function registerApiReads(server: FastifyInstance, sim: SandboxState, api: Api) {
  const { now, time, fileKey } = sim;
  const { guard, notFound, ENTITIES, entityName } = api;
  server.get('/v3/company/:realmId/query', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    try {
      // Name lists answer their active rows unless the query speaks of Active (README: behaviours).
      const q = withActiveDefault(parseQuery(String((req.query as Record<string, string>).query ?? '')));
      const name = entityName(q.entity);
      if (!name) throw new QueryError(`Unknown entity ${q.entity}`);
      const { rows, total } = runQuery(q, ENTITIES[name.toLowerCase()](realm));
      if (q.count) return reply.type(json).send({ QueryResponse: { totalCount: total }, time: time() });
      // No rows: the entity key is absent (reference §2).
      const body = rows.length ? { [name]: rows, startPosition: q.start, maxResults: rows.length } : {};
      return reply.type(json).send({ QueryResponse: body, time: time() });
    } catch (err) {
      return reply
        .status(400)
        .type(json)
        .send({
          Fault: {
            Error: [
              {
                Message: 'Error parsing query',
                Detail: `QueryParserError: ${(err as Error).message}`,
                code: '4000',
              },
            ],
            type: 'ValidationFault',
          },
          time: time(),
        });
    }
  });

  server.get('/v3/company/:realmId/companyinfo/:id', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    return reply.type(json).send({ CompanyInfo: realm.info, time: time() });
  });

  for (const entity of ['bill', 'vendor', 'account', 'attachable', 'billpayment'])
    server.get(`/v3/company/:realmId/${entity}/:id`, async (req, reply) => {
      const realm = await guard(req, reply);
      if (!realm) return reply;
      const id = (req.params as { id: string }).id;
      const row = ENTITIES[entity](realm).find((x) => x.Id === id);
      if (!row) return notFound(reply, `${entityName(entity)} ${id}`);
      return reply.type(json).send({ [entityName(entity)!]: row, time: time() });
    });

  const sign = (realmId: string, id: string, expires: number) =>
    createHmac('sha256', fileKey).update(`${realmId}:${id}:${expires}`).digest('base64url');

  server.get('/v3/company/:realmId/download/:id', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    const { id } = req.params as { id: string };
    if (!realm.attachables.some((a) => a.Id === id)) return notFound(reply, `Attachable ${id}`);
    const expires = now() + 15 * 60_000;
    const base = `${req.protocol}://${req.host}`;
    return reply
      .type('text/plain')
      .send(
        `${base}/__sim/files/${realm.realmId}/${id}?Expires=${expires}&Signature=${sign(realm.realmId, id, expires)}`,
      );
  });

  server.get('/__sim/files/:realmId/:id', async (req, reply) => {
    const { realmId, id } = req.params as { realmId: string; id: string };
    const q = req.query as Record<string, string>;
    const expires = Number(q.Expires);
    const ok = q.Signature && q.Signature === sign(realmId, id, expires) && expires > now();
    const att = sim.realms.get(realmId)?.attachables.find((a) => a.Id === id);
    if (!ok || !att)
      return reply.status(403).type('text/plain').send('Request has expired or the signature does not match');
    const billId = att.AttachableRef[0]?.EntityRef.value;
    const bill = sim.realms.get(realmId)!.bills.find((b) => b.Id === billId);
    const pdf = invoicePdf([
      `Invoice ${bill?.DocNumber ?? id}`,
      `From: ${bill?.VendorRef.name ?? ''}`,
      `Date: ${bill?.TxnDate ?? ''}   Due: ${bill?.DueDate ?? ''}`,
      ...(bill?.Line ?? []).map((l) => `${l.Description}: $${l.Amount.toFixed(2)}`),
      `Total: $${bill?.TotalAmt.toFixed(2) ?? '0.00'}`,
    ]);
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${att.FileName}"`)
      .send(pdf);
  });

  server.get('/v3/company/:realmId/cdc', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    const q = req.query as Record<string, string>;
    const since = Date.parse(q.changedSince ?? '');
    if (!Number.isFinite(since) || since < now() - 30 * 86_400_000)
      return reply
        .status(400)
        .type(json)
        .send({
          Fault: {
            Error: [{ Message: 'Invalid changedSince: at most 30 days back', code: '2030' }],
            type: 'ValidationFault',
          },
          time: time(),
        });
    const names = (q.entities ?? '')
      .split(',')
      .map((e) => entityName(e.trim()))
      .filter((n): n is string => !!n);
    // Intuit: grouped by type, in order of last update within the group, objects deleted in the
    // look-back after the live ones, at most 1000 objects in all (README: change data capture).
    const updated = (x: Record<string, unknown>) =>
      Date.parse((x.MetaData as { LastUpdatedTime?: string } | undefined)?.LastUpdatedTime ?? '');
    let left = 1000;
    const responses = names.map((name) => {
      const live = ENTITIES[name.toLowerCase()](realm)
        .filter((x) => updated(x) >= since)
        .sort((a, b) => updated(a) - updated(b));
      const gone = (realm.deleted ?? [])
        .filter((d) => d.entity === name && Date.parse(d.MetaData.LastUpdatedTime) >= since)
        .map((d) => ({ status: 'Deleted', domain: 'QBO', Id: d.Id, MetaData: d.MetaData }));
      const rows = [...live, ...gone].slice(0, Math.max(0, left));
      left -= rows.length;
      return { [name]: rows, startPosition: 1, maxResults: rows.length };
    });
    return reply.type(json).send({ CDCResponse: [{ QueryResponse: responses }], time: time() });
  });
}
