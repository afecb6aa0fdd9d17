// The QuickBooks Online simulator: Intuit's OAuth and v3 API paths on a local server, so the real
// client (intuit-oauth, fetch) reaches it by configuration alone (QBO_OAUTH_BASE, QBO_API_BASE).
// Facts and shapes from reference/quickbooks.md (Intuit's docs, XSDs and client sources); state is
// in memory, per realm, from a deterministic seed. Test hooks live under /__sim.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { invoicePdf } from './pdf.js';
import { parseQuery, QueryError, runQuery, withActiveDefault } from './query.js';
import { type Realm, seedRealms } from './seed.js';

export interface SandboxClient {
  clientId: string;
  clientSecret: string;
  /** Registered redirect URIs; empty: any http(s) URI is accepted (local demos). */
  redirectUris?: string[];
  /** Access-token lifetime for this app, seconds (default: the sandbox's). */
  accessTtlSeconds?: number;
}

export interface SandboxOptions {
  clients: SandboxClient[];
  /** Access-token lifetime, seconds (Intuit: 3600). */
  accessTtlSeconds?: number;
  /** Rolling refresh-token lifetime, seconds (Intuit: 8726400, ~101 days). */
  refreshTtlSeconds?: number;
  /** How long a rotated-away refresh token still works, seconds (Intuit: 24 h). */
  rotationGraceSeconds?: number;
  /** Authorization-code lifetime, seconds. */
  codeTtlSeconds?: number;
  /** Requests per minute per realm, and at once per realm (Intuit: 500 and 10). */
  ratePerMinute?: number;
  concurrentPerRealm?: number;
  /**
   * Requests a second per realm and app (Intuit's limits page, blog 2025-08-13: 10). Default:
   * `concurrentPerRealm` or 10.
   */
  ratePerSecond?: number;
  /** The long window of `ratePerMinute`, seconds, and the wait a 429 asks for (Intuit: 60). */
  rateWindowSeconds?: number;
  seed?: number;
  /** Vendors in each realm, or per realm in the seed's order (default: 24 – 39, drawn). */
  vendorsPerRealm?: number | readonly (number | undefined)[];
  /** Open bills in each realm (default: 70 – 109, drawn). */
  billsPerRealm?: number;
  /**
   * Absolute refresh-token lifetime from the grant's consent, seconds (Intuit: 5 years, returned as
   * `x_refresh_token_hard_expires_in` when asked for; blogs.intuit.com/2025/11/12).
   */
  refreshHardTtlSeconds?: number;
  /**
   * A JSON file that keeps the state (companies, grants, codes, tokens, bills, payments, vendors,
   * requestid replays) across restarts, as Intuit keeps it: loaded at start when present, written
   * atomically (a temporary file renamed over it) after every change. Absent: memory only (tests).
   */
  stateFile?: string;
}

interface Grant {
  id: string;
  clientId: string;
  realmId: string;
  revoked: boolean;
  /** The refresh token's hard cap: no refresh after this, whatever the rolling expiry says. */
  hardExpiresAt?: number;
}

interface AccessToken {
  grant: Grant;
  expiresAt: number;
}

interface RefreshToken {
  grant: Grant;
  expiresAt: number;
  /** Set once rotated: the token still works until then. */
  graceUntil: number | null;
}

interface Code {
  clientId: string;
  redirectUri: string;
  realmId: string;
  expiresAt: number;
  used: boolean;
  grant: Grant | null;
}

export interface FaultRule {
  method?: string;
  /** A regular expression over the path (no query). */
  path?: string;
  realmId?: string;
  /**
   * Only requests about this bill: its own path (`/bill/<id>`), or a body whose lines link it
   * (a BillPayment's `Line[].LinkedTxn[]` with `TxnType: 'Bill'`). Fails one chosen bill of a run.
   */
  billId?: string;
  /** How many matching requests it applies to (default: all). */
  count?: number;
  probability?: number;
  latencyMs?: number;
  /** throttle (429/3001), unauthorized (401 lowercase fault), validation (400), server (500), unavailable (503), invalid_grant (400 on the token endpoint). */
  kind?:
    | 'throttle'
    | 'unauthorized'
    | 'forbidden'
    | 'validation'
    | 'stale'
    | 'server'
    | 'unavailable'
    | 'invalid_grant';
  /** Answer as XML instead of JSON, as Intuit sometimes does. */
  xml?: boolean;
}

export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  realmId: string | null;
  status: number;
  requestId: string | null;
}

export interface QboSandbox {
  server: FastifyInstance;
  url: string;
  close(): Promise<void>;
  /** The seeded companies (read-only use in tests and demos). */
  realms(): Realm[];
}

const json = 'application/json';

/** Intuit's words when a write names an inactive vendor, account or other name-list object. */
const INACTIVE_TEXT =
  "Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees.";
const INACTIVE_DETAIL = `Object Not Found : ${INACTIVE_TEXT}`;

export function buildQboSandbox(options: SandboxOptions): FastifyInstance {
  const accessTtl = options.accessTtlSeconds ?? 3600;
  const refreshTtl = options.refreshTtlSeconds ?? 8_726_400;
  const grace = options.rotationGraceSeconds ?? 86_400;
  const codeTtl = options.codeTtlSeconds ?? 300;
  const perMinute = options.ratePerMinute ?? 500;
  const concurrent = options.concurrentPerRealm ?? 10;
  const perSecond = options.ratePerSecond ?? options.concurrentPerRealm ?? 10;
  const rateWindowMs = (options.rateWindowSeconds ?? 60) * 1000;
  const hardTtl = options.refreshHardTtlSeconds ?? 157_680_000;
  const fileKey = randomBytes(32);

  let clockOffsetMs = 0;
  const now = () => Date.now() + clockOffsetMs;
  let realms = new Map<string, Realm>();
  let codes = new Map<string, Code>();
  let access = new Map<string, AccessToken>();
  let refresh = new Map<string, RefreshToken>();
  let faults: Array<FaultRule & { used: number }> = [];
  let log: LoggedRequest[] = [];
  let replays = new Map<string, { status: number; body: unknown }>();
  let windows = new Map<string, number[]>();
  let seconds = new Map<string, number[]>();
  let inFlight = new Map<string, number>();
  const reset = () => {
    realms = new Map(
      seedRealms({
        seed: options.seed,
        vendorsPerRealm: options.vendorsPerRealm,
        billsPerRealm: options.billsPerRealm,
      }).map((r) => [r.realmId, r]),
    );
    codes = new Map();
    access = new Map();
    refresh = new Map();
    faults = [];
    log = [];
    replays = new Map();
    windows = new Map();
    seconds = new Map();
    inFlight = new Map();
    clockOffsetMs = 0;
  };
  reset();

  // ---- The file-backed store (options.stateFile) -------------------------------------------
  // Grants are shared by reference between codes and tokens: saved once each, by id.
  const snapshot = () => {
    const grants = new Map<string, Grant>();
    const ref = (g: Grant | null) => {
      if (!g) return null;
      grants.set(g.id, g);
      return g.id;
    };
    const codeRows = [...codes].map(([k, c]) => [k, { ...c, grant: ref(c.grant) }]);
    const accessRows = [...access].map(([k, t]) => [k, { ...t, grant: ref(t.grant) }]);
    const refreshRows = [...refresh].map(([k, t]) => [k, { ...t, grant: ref(t.grant) }]);
    return {
      version: 1,
      savedAt: new Date().toISOString(),
      realms: [...realms.values()],
      grants: [...grants.values()],
      codes: codeRows,
      access: accessRows,
      refresh: refreshRows,
      replays: [...replays],
    };
  };
  const restore = (file: string): boolean => {
    if (!existsSync(file)) return false;
    const data = JSON.parse(readFileSync(file, 'utf8')) as ReturnType<typeof snapshot>;
    if (data.version !== 1) return false;
    const grants = new Map(data.grants.map((g) => [g.id, g]));
    const grantOf = (id: unknown) => grants.get(String(id))!;
    realms = new Map(data.realms.map((r) => [r.realmId, r]));
    codes = new Map(
      (data.codes as Array<[string, Code & { grant: string | null }]>).map(([k, c]) => [
        k,
        { ...c, grant: c.grant ? grantOf(c.grant) : null },
      ]),
    );
    access = new Map(
      (data.access as Array<[string, { grant: string; expiresAt: number }]>).map(([k, t]) => [
        k,
        { ...t, grant: grantOf(t.grant) },
      ]),
    );
    refresh = new Map(
      (data.refresh as Array<[string, { grant: string; expiresAt: number; graceUntil: number | null }]>).map(
        ([k, t]) => [k, { ...t, grant: grantOf(t.grant) }],
      ),
    );
    replays = new Map(data.replays);
    return true;
  };
  let saveQueued = false;
  const saveNow = () => {
    saveQueued = false;
    if (!options.stateFile) return;
    mkdirSync(dirname(options.stateFile), { recursive: true });
    const tmp = `${options.stateFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(snapshot()), { mode: 0o600 });
    renameSync(tmp, options.stateFile);
  };
  /** After a change: one write for the changes of this turn of the event loop. */
  const save = () => {
    if (!options.stateFile || saveQueued) return;
    saveQueued = true;
    setImmediate(saveNow);
  };
  if (options.stateFile && !restore(options.stateFile)) saveNow();
  // Copies: a rotated secret (/__sim/clients/secret) changes the simulator's app, not the caller's object.
  const clients = new Map(options.clients.map((c) => [c.clientId, { ...c }]));

  const server = Fastify({ logger: false, bodyLimit: 1_048_576 });
  server.addHook('onClose', async () => {
    if (saveQueued) saveNow();
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
  server.addHook('onResponse', async (req, reply) => {
    const path = req.url.split('?')[0];
    // Anything but a read may have changed the state (tokens, bills, payments, vendors, clock).
    if (req.method !== 'GET' && req.method !== 'HEAD') save();
    if (path.startsWith('/__sim')) return;
    log.push({
      at: new Date(now()).toISOString(),
      method: req.method,
      path,
      realmId: (req.params as { realmId?: string })?.realmId ?? null,
      status: reply.statusCode,
      requestId: (req.query as Record<string, string>)?.requestid ?? null,
    });
    if (log.length > 5000) log.splice(0, log.length - 5000);
  });

  const time = () => new Date(now()).toISOString().replace('Z', '-00:00');
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
                  'The access token does not have sufficient scope',
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
          .send({ error: 'invalid_grant', error_description: 'Incorrect or invalid refresh token' });
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
    for (const rule of faults) {
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
      sendFault(reply, rule.kind, rule.xml);
      return true;
    }
    return false;
  }

  const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  // ---- OAuth -------------------------------------------------------------------------------
  server.get('/connect/oauth2', async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const client = q.client_id ? clients.get(q.client_id) : undefined;
    if (!client) return reply.status(400).type('text/html').send('<h1>Invalid client_id</h1>');
    const uri = q.redirect_uri ?? '';
    const uriOk = client.redirectUris?.length ? client.redirectUris.includes(uri) : /^https?:\/\//.test(uri);
    if (!uriOk)
      return reply
        .status(400)
        .type('text/html')
        .send('<h1>The redirect_uri is not registered for this app</h1>');
    if (q.response_type !== 'code')
      return reply.status(400).type('text/html').send('<h1>response_type must be code</h1>');
    if (!(q.scope ?? '').split(' ').includes('com.intuit.quickbooks.accounting'))
      return reply
        .status(400)
        .type('text/html')
        .send('<h1>The com.intuit.quickbooks.accounting scope is required</h1>');
    const hidden = ['client_id', 'redirect_uri', 'state', 'scope']
      .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(q[k] ?? '')}">`)
      .join('');
    const companies = [...realms.values()]
      .map(
        (r) =>
          `<li><form method="post" action="/connect/oauth2/consent">${hidden}<input type="hidden" name="realmId" value="${r.realmId}"><button type="submit" name="decision" value="allow" data-realm="${r.realmId}">Connect ${escapeHtml(r.info.CompanyName)}</button></form></li>`,
      )
      .join('');
    return reply
      .type('text/html')
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>QuickBooks sandbox: connect</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;color:#1f2937}button{margin:.25rem 0;padding:.5rem 1rem;border-radius:.4rem;border:1px solid #2ca01c;background:#2ca01c;color:#fff;cursor:pointer}button.cancel{background:#fff;color:#374151;border-color:#9ca3af}li{list-style:none}</style></head>
<body><h1>QuickBooks sandbox</h1><p>An app (<code>${escapeHtml(client.clientId)}</code>) asks to connect to a company. Choose one:</p>
<ul>${companies}</ul>
<form method="post" action="/connect/oauth2/consent">${hidden}<button class="cancel" type="submit" name="decision" value="deny">Cancel</button></form></body></html>`);
  });

  server.post('/connect/oauth2/consent', async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, string>;
    const client = clients.get(b.client_id ?? '');
    if (!client) return reply.status(400).type('text/html').send('<h1>Invalid client_id</h1>');
    const target = new URL(b.redirect_uri);
    if (b.state) target.searchParams.set('state', b.state);
    if (b.decision !== 'allow') {
      target.searchParams.set('error', 'access_denied');
      return reply.redirect(target.toString(), 302);
    }
    if (!realms.has(b.realmId)) return reply.status(400).type('text/html').send('<h1>Unknown company</h1>');
    const code = `AB11${randomBytes(24).toString('base64url')}`;
    codes.set(code, {
      clientId: client.clientId,
      redirectUri: b.redirect_uri,
      realmId: b.realmId,
      expiresAt: now() + codeTtl * 1000,
      used: false,
      grant: null,
    });
    target.searchParams.set('code', code);
    target.searchParams.set('realmId', b.realmId);
    return reply.redirect(target.toString(), 302);
  });

  function basicClient(req: FastifyRequest): SandboxClient | null {
    const h = req.headers.authorization ?? '';
    if (!h.startsWith('Basic ')) return null;
    const [id, secret] = Buffer.from(h.slice(6), 'base64').toString('utf8').split(':');
    const c = clients.get(id);
    if (!c) return null;
    const a = Buffer.from(secret ?? '');
    const e = Buffer.from(c.clientSecret);
    return a.length === e.length && timingSafeEqual(a, e) ? c : null;
  }

  function issue(grant: Grant, client: SandboxClient, withHardExpiry: boolean) {
    const a = `eyJ${randomBytes(48).toString('base64url')}`;
    const r = `AB11${randomBytes(32).toString('base64url')}`;
    const ttl = client.accessTtlSeconds ?? accessTtl;
    // The hard cap counts from the consent, not from this refresh (Intuit's 5-year policy,
    // blogs.intuit.com/2025/11/12/important-changes-to-refresh-token-policy): each answer gives
    // what is left of it, and the rolling expiry never goes past it.
    grant.hardExpiresAt ??= now() + hardTtl * 1000;
    const hardLeft = Math.max(0, Math.floor((grant.hardExpiresAt - now()) / 1000));
    const rolling = Math.min(refreshTtl, hardLeft);
    access.set(a, { grant, expiresAt: now() + ttl * 1000 });
    refresh.set(r, { grant, expiresAt: now() + rolling * 1000, graceUntil: null });
    return {
      token_type: 'bearer',
      access_token: a,
      expires_in: ttl,
      refresh_token: r,
      x_refresh_token_expires_in: rolling,
      // Only when asked for (header x-include-refresh-token-hard-expires-in; intuit-oauth 4.2.4's
      // includeRefreshTokenHardExpiresIn).
      ...(withHardExpiry ? { x_refresh_token_hard_expires_in: hardLeft } : {}),
    };
  }

  const invalidGrant = (reply: FastifyReply, description: string) =>
    reply.status(400).type(json).send({ error: 'invalid_grant', error_description: description });

  const revokeGrant = (grant: Grant) => {
    grant.revoked = true;
  };

  server.post('/oauth2/v1/tokens/bearer', async (req, reply) => {
    if (await injected(req, reply, null)) return reply;
    const client = basicClient(req);
    if (!client) return reply.status(401).type(json).send({ error: 'invalid_client' });
    const b = (req.body ?? {}) as Record<string, string>;
    const hard = req.headers['x-include-refresh-token-hard-expires-in'] !== undefined;
    if (b.grant_type === 'authorization_code') {
      const code = codes.get(b.code ?? '');
      if (!code || code.clientId !== client.clientId)
        return invalidGrant(reply, 'Invalid authorization code');
      if (code.used) {
        // A code used twice poisons its grant (Intuit, oauth-jsclient#173): the first tokens stop working too.
        if (code.grant) revokeGrant(code.grant);
        return invalidGrant(reply, 'Authorization code has already been used');
      }
      if (code.expiresAt < now()) return invalidGrant(reply, 'Authorization code has expired');
      if (code.redirectUri !== b.redirect_uri)
        return invalidGrant(reply, 'redirect_uri does not match the authorization request');
      code.used = true;
      const grant: Grant = {
        id: randomUUID(),
        clientId: client.clientId,
        realmId: code.realmId,
        revoked: false,
        hardExpiresAt: now() + hardTtl * 1000,
      };
      code.grant = grant;
      return reply.type(json).send(issue(grant, client, hard));
    }
    if (b.grant_type === 'refresh_token') {
      const t = refresh.get(b.refresh_token ?? '');
      if (!t || t.grant.clientId !== client.clientId || t.grant.revoked)
        return invalidGrant(reply, 'Incorrect or invalid refresh token');
      if (t.expiresAt < now() || (t.graceUntil !== null && t.graceUntil < now()))
        return invalidGrant(reply, 'Incorrect or invalid refresh token');
      if (t.grant.hardExpiresAt !== undefined && t.grant.hardExpiresAt < now())
        return invalidGrant(reply, 'The refresh token has reached its maximum lifetime');
      // Rotation: the old token keeps working for the grace period, then invalid_grant.
      if (t.graceUntil === null) t.graceUntil = now() + grace * 1000;
      return reply.type(json).send(issue(t.grant, client, hard));
    }
    return reply.status(400).type(json).send({ error: 'unsupported_grant_type' });
  });

  // Intuit's revoke endpoint is https://developer.api.intuit.com/v2/oauth2/tokens/revoke, and
  // intuit-oauth's revoke() POSTs JSON `{token}` there (src/OAuthClient.js, revokeEndpoint): the same
  // path here. Either token of a grant revokes the whole grant (its access tokens answer 401 and its
  // refresh tokens invalid_grant from then on).
  server.post('/v2/oauth2/tokens/revoke', async (req, reply) => {
    const client = basicClient(req);
    if (!client) return reply.status(401).type(json).send({ error: 'invalid_client' });
    const token = ((req.body ?? {}) as Record<string, string>).token ?? '';
    const grant = refresh.get(token)?.grant ?? access.get(token)?.grant;
    if (grant && grant.clientId === client.clientId) revokeGrant(grant);
    return reply.status(200).send();
  });

  function bearer(req: FastifyRequest): AccessToken | null {
    const h = req.headers.authorization ?? '';
    const t = h.startsWith('Bearer ') ? access.get(h.slice(7)) : undefined;
    return t ?? null;
  }

  server.get('/v1/openid_connect/userinfo', async (req, reply) => {
    const t = bearer(req);
    if (!t || t.expiresAt < now() || t.grant.revoked) return unauthorized(reply, 'Token invalid');
    return reply.type(json).send({
      sub: t.grant.id,
      givenName: 'Sandbox',
      familyName: 'User',
      email: 'sandbox@example.com',
      emailVerified: true,
    });
  });

  // ---- API ---------------------------------------------------------------------------------
  /** Authentication, the per-realm limiter and fault injection: the realm when the call may go on. */
  async function guard(req: FastifyRequest, reply: FastifyReply): Promise<Realm | null> {
    const realmId = (req.params as { realmId: string }).realmId;
    let delayMs = 0;
    const slow = (ms: number) => {
      delayMs = ms;
    };
    if (await injected(req, reply, realmId, slow)) return null;
    const t = bearer(req);
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
    const realm = realms.get(realmId);
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
    const window = (windows.get(realmId) ?? []).filter((at) => at > now() - rateWindowMs);
    const appKey = `${realmId}:${t.grant.clientId}`;
    const second = (seconds.get(appKey) ?? []).filter((at) => at > now() - 1000);
    if (
      window.length >= perMinute ||
      second.length >= perSecond ||
      (inFlight.get(realmId) ?? 0) >= concurrent
    ) {
      windows.set(realmId, window);
      sendFault(reply, 'throttle');
      return null;
    }
    window.push(now());
    windows.set(realmId, window);
    second.push(now());
    seconds.set(appKey, second);
    inFlight.set(realmId, (inFlight.get(realmId) ?? 0) + 1);
    reply.raw.once('close', () => inFlight.set(realmId, Math.max(0, (inFlight.get(realmId) ?? 1) - 1)));
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
    const att = realms.get(realmId)?.attachables.find((a) => a.Id === id);
    if (!ok || !att)
      return reply.status(403).type('text/plain').send('Request has expired or the signature does not match');
    const billId = att.AttachableRef[0]?.EntityRef.value;
    const bill = realms.get(realmId)!.bills.find((b) => b.Id === billId);
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

  // Creating a bill (Intuit's POST /bill, create only): tests make look-alike bills with it.
  server.post('/v3/company/:realmId/bill', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    const fault = (detail: string) =>
      reply
        .status(400)
        .type(json)
        .send({
          Fault: {
            Error: [{ Message: 'Invalid Reference Id', Detail: detail, code: '2500', element: '' }],
            type: 'ValidationFault',
          },
          time: time(),
        });
    const b = (req.body ?? {}) as Record<string, any>;
    const vendor = realm.vendors.find((v) => v.Id === b.VendorRef?.value);
    if (!vendor) return fault('Invalid Reference Id : Vendor');
    // A bill for an inactive vendor (intuit/QuickBooks-V3-PHP-SDK#110 answers 2500 with this text).
    if (!vendor.Active) return fault(`Invalid Reference Id : ${INACTIVE_TEXT}`);
    const ap = realm.accounts.find((a) => a.AccountType === 'Accounts Payable');
    const lines = (Array.isArray(b.Line) ? b.Line : []).filter((l: any) => Number(l?.Amount) > 0);
    if (lines.length === 0 || !ap) return fault('Line');
    const stamp = new Date(now()).toISOString();
    const total = Math.round(lines.reduce((sum: number, l: any) => sum + Number(l.Amount), 0) * 100) / 100;
    const bill = {
      Id: String(realm.nextId++),
      SyncToken: '0',
      DocNumber: typeof b.DocNumber === 'string' ? b.DocNumber : '',
      TxnDate: typeof b.TxnDate === 'string' ? b.TxnDate : stamp.slice(0, 10),
      DueDate: typeof b.DueDate === 'string' ? b.DueDate : stamp.slice(0, 10),
      VendorRef: { value: vendor.Id, name: vendor.DisplayName },
      APAccountRef: { value: ap.Id, name: ap.Name },
      Line: lines.map((l: any, i: number) => ({
        Id: String(i + 1),
        LineNum: i + 1,
        Amount: Number(l.Amount),
        Description: String(l.Description ?? ''),
        DetailType: 'AccountBasedExpenseLineDetail' as const,
        AccountBasedExpenseLineDetail: {
          AccountRef: l.AccountBasedExpenseLineDetail?.AccountRef ?? { value: ap.Id },
        },
      })),
      TotalAmt: total,
      Balance: total,
      CurrencyRef: { value: 'USD' },
      LinkedTxn: [],
      MetaData: { CreateTime: stamp, LastUpdatedTime: stamp },
    };
    realm.bills.push(bill);
    vendor.Balance = Math.round((vendor.Balance + total) * 100) / 100;
    return reply.type(json).send({ Bill: bill, time: time() });
  });

  server.post('/v3/company/:realmId/billpayment', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    const requestId = (req.query as Record<string, string>).requestid;
    const replayKey = requestId ? `${realm.realmId}:${requestId}` : null;
    if (replayKey && replays.has(replayKey)) {
      const first = replays.get(replayKey)!;
      return reply.status(first.status).type(json).send(first.body);
    }
    const answer = (status: number, body: unknown) => {
      if (replayKey) replays.set(replayKey, { status, body });
      return reply.status(status).type(json).send(body);
    };
    const fault = (code: string, message: string, detail: string) =>
      answer(400, {
        Fault: { Error: [{ Message: message, Detail: detail, code, element: '' }], type: 'ValidationFault' },
        time: time(),
      });
    const b = (req.body ?? {}) as Record<string, any>;
    const vendor = realm.vendors.find((v) => v.Id === b.VendorRef?.value);
    if (!vendor) return fault('2500', 'Invalid Reference Id', 'Invalid Reference Id : Vendor');
    // An inactive (or deleted) vendor cannot be paid (intuit/QuickBooks-V3-DotNET-SDK#353).
    if (!vendor.Active) return fault('610', 'Object Not Found', INACTIVE_DETAIL);
    const payType = b.PayType === 'CreditCard' ? 'CreditCard' : b.PayType === 'Check' ? 'Check' : null;
    if (!payType)
      return fault(
        '2020',
        'Required param missing, need to supply the required value for the API',
        'PayType',
      );
    const bankRef =
      payType === 'Check' ? b.CheckPayment?.BankAccountRef?.value : b.CreditCardPayment?.CCAccountRef?.value;
    const bank = realm.accounts.find((a) => a.Id === bankRef && a.Active);
    if (
      !bank ||
      (payType === 'Check' && bank.AccountType !== 'Bank') ||
      (payType === 'CreditCard' && bank.AccountType !== 'Credit Card')
    )
      return fault('2500', 'Invalid Reference Id', 'Invalid Reference Id : Account');
    const lines = Array.isArray(b.Line) ? b.Line : [];
    if (lines.length === 0)
      return fault('2020', 'Required param missing, need to supply the required value for the API', 'Line');
    // TotalAmt is required on a BillPayment (Intuit's API reference, BillPayment: "TotalAmt … required").
    if (typeof b.TotalAmt !== 'number' || !Number.isFinite(b.TotalAmt))
      return fault(
        '2020',
        'Required param missing, need to supply the required value for the API',
        'Required parameter TotalAmt is missing in the request',
      );
    const applied: Array<{ bill: (typeof realm.bills)[number]; amount: number }> = [];
    for (const line of lines) {
      const link = line?.LinkedTxn?.[0];
      const bill = realm.bills.find((x) => x.Id === link?.TxnId && link?.TxnType === 'Bill');
      const amount = Number(line?.Amount);
      if (!bill) return fault('2500', 'Invalid Reference Id', 'Invalid Reference Id : Bill');
      if (bill.VendorRef.value !== vendor.Id)
        return fault(
          '6000',
          'A business validation error has occurred while processing your request',
          'The bill belongs to another vendor',
        );
      if (!(amount > 0) || Math.round(amount * 100) > Math.round(bill.Balance * 100))
        return fault(
          '6000',
          'A business validation error has occurred while processing your request',
          `Amount exceeds the open balance of bill ${bill.Id}`,
        );
      applied.push({ bill, amount });
    }
    const total = Math.round(applied.reduce((s, a) => s + a.amount, 0) * 100) / 100;
    if (Math.round(b.TotalAmt * 100) !== Math.round(total * 100))
      return fault(
        '6000',
        'A business validation error has occurred while processing your request',
        'TotalAmt does not equal the sum of the lines',
      );
    const id = String(realm.nextId++);
    const stamp = new Date(now()).toISOString();
    for (const { bill, amount } of applied) {
      bill.Balance = Math.round((bill.Balance - amount) * 100) / 100;
      bill.LinkedTxn.push({
        TxnId: id,
        TxnType: payType === 'Check' ? 'BillPaymentCheck' : 'BillPaymentCreditCard',
      });
      bill.SyncToken = String(Number(bill.SyncToken) + 1);
      bill.MetaData = { ...bill.MetaData, LastUpdatedTime: stamp };
    }
    vendor.Balance = Math.round((vendor.Balance - total) * 100) / 100;
    bank.CurrentBalance = Math.round((bank.CurrentBalance - total) * 100) / 100;
    bank.CurrentBalanceWithSubAccounts = bank.CurrentBalance;
    const payment = {
      Id: id,
      SyncToken: '0',
      VendorRef: { value: vendor.Id, name: vendor.DisplayName },
      PayType: payType,
      ...(payType === 'Check'
        ? { CheckPayment: { BankAccountRef: { value: bank.Id, name: bank.Name }, PrintStatus: 'NotSet' } }
        : { CreditCardPayment: { CCAccountRef: { value: bank.Id, name: bank.Name } } }),
      TotalAmt: total,
      TxnDate: b.TxnDate ?? stamp.slice(0, 10),
      Line: applied.map(({ bill, amount }) => ({
        Amount: amount,
        LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }],
      })),
      CurrencyRef: { value: 'USD' },
      MetaData: { CreateTime: stamp, LastUpdatedTime: stamp },
    };
    realm.billPayments.push(payment);
    return answer(200, { BillPayment: payment, time: time() });
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

  // ---- Test hooks ----------------------------------------------------------------------------
  server.post('/__sim/reset', async () => {
    reset();
    return { ok: true };
  });
  server.post('/__sim/faults', async (req) => {
    const b = (req.body ?? {}) as { rules?: FaultRule[]; clear?: boolean };
    if (b.clear) faults = [];
    for (const r of b.rules ?? []) faults.push({ ...r, used: 0 });
    return { rules: faults.length };
  });
  server.get('/__sim/requests', async () => ({ requests: log }));
  server.post('/__sim/clock', async (req) => {
    const b = (req.body ?? {}) as { offsetSeconds?: number; advanceSeconds?: number };
    if (b.offsetSeconds !== undefined) clockOffsetMs = b.offsetSeconds * 1000;
    if (b.advanceSeconds !== undefined) clockOffsetMs += b.advanceSeconds * 1000;
    return { now: new Date(now()).toISOString() };
  });
  /** Ends every access token of a realm (or all), as if their hour had passed. */
  /**
   * The app's secret is rotated in Intuit's developer portal: the token endpoint answers the old one
   * with `invalid_client` (RFC 6749 §5.2; reference/quickbooks.md §6), while the company's grant and
   * tokens stay valid.
   */
  server.post('/__sim/clients/secret', async (req, reply) => {
    const b = (req.body ?? {}) as { clientId?: string; clientSecret?: string };
    const c = b.clientId ? clients.get(b.clientId) : undefined;
    if (!c || !b.clientSecret) return reply.status(404).send({ error: 'no such client' });
    c.clientSecret = b.clientSecret;
    return { ok: true };
  });
  server.post('/__sim/expire-tokens', async (req) => {
    const realmId = ((req.body ?? {}) as { realmId?: string }).realmId;
    let n = 0;
    for (const t of access.values())
      if (!realmId || t.grant.realmId === realmId) {
        t.expiresAt = now() - 1;
        n++;
      }
    return { expired: n };
  });
  server.get('/__sim/realms', async () => ({
    realms: [...realms.values()].map((r) => ({
      realmId: r.realmId,
      name: r.info.CompanyName,
      bills: r.bills.length,
      vendors: r.vendors.length,
    })),
  }));
  /**
   * A vendor changed in QuickBooks as a person does on its page: made inactive (or active again;
   * deleting a vendor in QuickBooks makes it inactive) or renamed. SyncToken and LastUpdatedTime move on.
   */
  /**
   * A bill deleted in QuickBooks: gone from queries and reads, and answered by CDC as
   * `{"status":"Deleted","Id":…}` for 30 days (README: change data capture).
   */
  server.post('/__sim/bills/delete', async (req, reply) => {
    const b = (req.body ?? {}) as { realmId?: string; billId?: string };
    const realm = realms.get(String(b.realmId));
    const at = realm ? realm.bills.findIndex((x) => x.Id === String(b.billId)) : -1;
    if (!realm || at < 0)
      return reply.status(400).send({ error: 'realmId and billId of a bill are required' });
    const [bill] = realm.bills.splice(at, 1);
    realm.deleted = [
      ...(realm.deleted ?? []).filter(
        (d) => Date.parse(d.MetaData.LastUpdatedTime) >= now() - 30 * 86_400_000,
      ),
      { entity: 'Bill', Id: bill.Id, MetaData: { LastUpdatedTime: new Date(now()).toISOString() } },
    ];
    return { deleted: bill.Id };
  });
  server.post('/__sim/vendors/update', async (req, reply) => {
    const b = (req.body ?? {}) as {
      realmId?: string;
      vendorId?: string;
      active?: boolean;
      displayName?: string;
    };
    const realm = realms.get(String(b.realmId));
    const vendor = realm?.vendors.find((v) => v.Id === String(b.vendorId));
    if (!vendor || !realm)
      return reply.status(400).send({ error: 'realmId and vendorId of a vendor are required' });
    if (typeof b.active === 'boolean') vendor.Active = b.active;
    if (typeof b.displayName === 'string' && b.displayName) {
      vendor.DisplayName = b.displayName;
      vendor.CompanyName = b.displayName;
      // QuickBooks shows a bill's vendor by its current name.
      for (const bill of realm.bills)
        if (bill.VendorRef.value === vendor.Id) {
          bill.VendorRef = { ...bill.VendorRef, name: b.displayName };
          // The change shows in CDC's bills too (a copy of open bills keeps the vendor's name).
          bill.MetaData = { ...bill.MetaData, LastUpdatedTime: new Date(now()).toISOString() };
        }
    }
    vendor.SyncToken = String(Number(vendor.SyncToken) + 1);
    vendor.MetaData = { ...vendor.MetaData, LastUpdatedTime: new Date(now()).toISOString() };
    return { vendor };
  });
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
