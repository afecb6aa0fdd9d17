// Intuit's OAuth 2.0 paths: the consent page, the token endpoint (codes, refresh with rotation and
// its grace, the hard cap), revoke, and userinfo.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Faults, json } from './faults.js';
import type { SandboxState } from './state.js';
import type { AccessToken, Grant, SandboxClient } from './types.js';

/** The access token a request carries (Authorization: Bearer), if the simulator issued it. */
export function bearer(sim: SandboxState, req: FastifyRequest): AccessToken | null {
  const h = req.headers.authorization ?? '';
  const t = h.startsWith('Bearer ') ? sim.access.get(h.slice(7)) : undefined;
  return t ?? null;
}

export function registerOAuth(server: FastifyInstance, sim: SandboxState, faults: Faults) {
  const { now, clients, accessTtl, refreshTtl, grace, codeTtl, hardTtl } = sim;
  const { injected, unauthorized } = faults;
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
    const companies = [...sim.realms.values()]
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
    if (!sim.realms.has(b.realmId))
      return reply.status(400).type('text/html').send('<h1>Unknown company</h1>');
    const code = `AB11${randomBytes(24).toString('base64url')}`;
    sim.codes.set(code, {
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
    sim.access.set(a, { grant, expiresAt: now() + ttl * 1000 });
    sim.refresh.set(r, { grant, expiresAt: now() + rolling * 1000, graceUntil: null });
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
      const code = sim.codes.get(b.code ?? '');
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
      const t = sim.refresh.get(b.refresh_token ?? '');
      if (!t || t.grant.clientId !== client.clientId || t.grant.revoked)
        return invalidGrant(reply, 'Incorrect or invalid sim.refresh token');
      if (t.expiresAt < now() || (t.graceUntil !== null && t.graceUntil < now()))
        return invalidGrant(reply, 'Incorrect or invalid sim.refresh token');
      if (t.grant.hardExpiresAt !== undefined && t.grant.hardExpiresAt < now())
        return invalidGrant(reply, 'The sim.refresh token has reached its maximum lifetime');
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
    const grant = sim.refresh.get(token)?.grant ?? sim.access.get(token)?.grant;
    if (grant && grant.clientId === client.clientId) revokeGrant(grant);
    return reply.status(200).send();
  });

  server.get('/v1/openid_connect/userinfo', async (req, reply) => {
    const t = bearer(sim, req);
    if (!t || t.expiresAt < now() || t.grant.revoked) return unauthorized(reply, 'Token invalid');
    return reply.type(json).send({
      sub: t.grant.id,
      givenName: 'Sandbox',
      familyName: 'User',
      email: 'sandbox@example.com',
      emailVerified: true,
    });
  });
}
