// Hostile-input limits of the gateway (GraphQL and transport), kept out of
// server.ts so that the server reads as wiring: GraphQL limits and error hygiene, CORS on /graphql,
// security headers and no-store, body limits per route, WebSocket message caps, and /metrics off
// the public port.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import type { FastifyInstance } from 'fastify';
import { GraphQLError, NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import helmet, { type HelmetOptions } from 'helmet';
import type { Registry } from 'prom-client';
import type { WebSocket } from 'ws';
import type { Config } from '../shared/config.js';
import { AppError } from '../shared/errors.js';
import { failureBody } from './rest/envelope.js';

// --- GraphQL ---------------------------------------------------------------------------------

/**
 * Limits every operation before it runs, over HTTP and graphql-ws alike (the socket server parses
 * and validates through the same Yoga envelope). The web app's deepest operation is 4 levels and
 * uses no aliases; GraphiQL's introspection query is exempt from depth and cost.
 */
export const GRAPHQL_LIMITS = {
  maxAliases: 15,
  maxDepth: 10,
  maxTokens: 2000,
  // The approval detail as of a past step (its bills, history and payment facts) costs about 5,300:
  // the room above it is for the screens, still far below a fragment bomb's 10,000 leaves.
  maxCost: 8000,
  maxDirectives: 50,
};

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/** Drops "Did you mean …?" from an error message: it lists the schema to anyone who guesses. */
function withoutSuggestion(error: unknown): unknown {
  if (!(error instanceof GraphQLError) || !error.message.includes('Did you mean')) return error;
  return new GraphQLError(error.message.replace(SUGGESTION, '').trim(), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

function hideSuggestions(): Plugin {
  // armor's own blockFieldSuggestion matches only `Did you mean "x"?` in validation, not enum
  // values ('Did you mean the enum value "ADMIN"?') nor variables, whose coercion fails in execute.
  return {
    onValidate:
      () =>
      ({ result, setResult }) => {
        if (result.length) setResult(result.map((e) => withoutSuggestion(e) as GraphQLError));
      },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!('errors' in result) || !result.errors?.length) return;
        setResult({ ...result, errors: result.errors.map((e) => withoutSuggestion(e) as GraphQLError) });
      },
    }),
    // A subscription whose variables fail to coerce answers errors the same way, not a stream.
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (!('errors' in result) || !result.errors?.length) return;
        setResult({ ...result, errors: result.errors.map((e) => withoutSuggestion(e) as GraphQLError) });
      },
    }),
  };
}

/**
 * No introspection for signed-out callers: the schema is public in the repository, but a probe
 * should not get a map for free. Signed-in callers (GraphiQL, tools) may introspect; the web app
 * types its documents from the committed schema at build time (gql.tada) and never introspects.
 * The caller must be known when validation runs (it is synchronous): both transports put `actor`
 * on the initial context. Yoga's validation cache keys on the rules' names, so the two kinds of
 * caller never share a cached result.
 */
function introspectionForSignedIn(): Plugin<{ actor?: unknown }> {
  return {
    onValidate: ({ context, addValidationRule }) => {
      if (!context.actor) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

export function graphqlHardening(): Plugin[] {
  const armor = new EnvelopArmor({
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true },
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ignoreIntrospection: true },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: false },
  }).protect();
  return [...(armor.plugins as Plugin[]), introspectionForSignedIn() as Plugin, hideSuggestions()];
}

// --- CORS on /graphql ------------------------------------------------------------------------

/** `CORS_ORIGINS` as a list of origins (`https://a.example,https://b.example`). */
export function parseOrigins(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => new URL(s).origin);
}

/**
 * Yoga's `cors` option. Yoga's default echoes any Origin, `null` included, with credentials. Here
 * only the app's own origin (PUBLIC_URL's, or the request's own host) and those in CORS_ORIGINS get
 * CORS headers; any other origin gets none, so a browser keeps their pages from reading answers.
 */
export function graphqlCors(config: Pick<Config, 'PUBLIC_URL' | 'CORS_ORIGINS'>) {
  const allowed = new Set(parseOrigins(config.CORS_ORIGINS));
  if (config.PUBLIC_URL) allowed.add(new URL(config.PUBLIC_URL).origin);
  return (request: Request) => {
    const origin = request.headers.get('origin');
    if (!origin || origin === 'null') return false as const;
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      return false as const;
    }
    if (!allowed.has(origin) && host !== request.headers.get('host')) return false as const;
    return {
      origin: [origin],
      credentials: true,
      methods: ['GET', 'POST', 'OPTIONS'],
      allowedHeaders: ['content-type', 'authorization', 'accept', 'idempotency-key', 'x-correlation-id'],
      maxAge: 600,
    };
  };
}

// --- HTTP: headers, no-store, body limits ----------------------------------------------------

/** Request body limits: sign-in and friends carry a few short strings; nothing else needs 1 MB. */
export const BODY_LIMITS = { auth: 16 * 1024, graphql: 128 * 1024, default: 256 * 1024 };

/** sha256 sources of the inline scripts of the built index.html (the prerendered sign-in screen). */
function inlineScriptHashes(webDist: string | undefined): string[] {
  if (!webDist) return [];
  let html: string;
  try {
    html = readFileSync(path.join(webDist, 'index.html'), 'utf8');
  } catch {
    return [];
  }
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`,
  );
}

/**
 * Called before any route is added: body limits by route (an `onRoute` hook sees each route as it
 * is declared), security headers on every answer, and `Cache-Control: no-store` on everything under
 * /api and /graphql (answers carry personal data and tokens) except the health checks.
 */
export async function installHttpHardening(server: FastifyInstance, options: { webDist?: string }) {
  server.addHook('onRoute', (route) => {
    if (route.bodyLimit !== undefined) return; // a route that chose its own
    if (route.url.startsWith('/api/auth/')) route.bodyLimit = BODY_LIMITS.auth;
    else if (route.url === '/graphql') route.bodyLimit = BODY_LIMITS.graphql;
  });
  const headers = helmetHeaders({
    // The app loads its own scripts, styles and data; the one inline script (prerendered sign-in
    // screen) is allowed by its hash. Inline style attributes stay allowed: the prerendered screen
    // has some, and styles cannot run code. GraphiQL (graphiql.ts) runs under the same policy: its
    // page names same-origin files only, and its editor workers are same-origin too.
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inlineScriptHashes(options.webDist)],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // The legacy twin of frame-ancestors 'none', for browsers that predate CSP 2.
    frameguard: { action: 'deny' },
    // COEP would demand CORP headers of every cross-origin resource; the app loads none, and
    // GraphiQL's blob: workers do not need isolation.
    crossOriginEmbedderPolicy: false,
    // The QuickBooks OAuth popup goes to Intuit and back to our callback page, which posts its result
    // to the opener: 'same-origin' would cut the popup off from its opener on the way out.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    // HSTS belongs to whoever terminates TLS; on plain http it is ignored anyway.
    strictTransportSecurity: false,
  });
  // The same headers on every answer (a route may override one, as the OAuth callback page does).
  server.addHook('onRequest', (_req, reply, done) => {
    reply.headers(headers);
    done();
  });
  server.addHook('onSend', async (req, reply, payload) => {
    const url = req.url.split('?')[0];
    const api = url.startsWith('/api/') && !url.startsWith('/api/health');
    if (api || url === '/graphql') reply.header('cache-control', 'no-store');
    return payload;
  });
}

/**
 * The headers helmet sets, computed once. @fastify/helmet builds helmet's middleware again on every
 * request (directives parsed, header values joined): 3 % of the gateway's CPU on a list request.
 * No nonces here, so every answer gets the same set.
 */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  } as unknown as ServerResponse;
  helmet(options)({} as IncomingMessage, res, (err?: unknown) => {
    if (err) throw err;
  });
  return headers;
}

// --- WebSocket message caps ------------------------------------------------------------------

/** ws `maxPayload` of the GraphQL socket server: the largest message an initialised client sends. */
export const WS_MAX_PAYLOAD = 64 * 1024;
/** Until `connection_init` is accepted, a client is anonymous: it gets only this much per message. */
export const WS_MAX_PAYLOAD_BEFORE_INIT = 4 * 1024;

interface ReceiverWithCap {
  _maxPayload?: number;
}

/**
 * Sets the message cap of one socket. ws has one `maxPayload` per server; its receiver keeps it per
 * socket, and lowering it there makes ws itself close an oversized socket with 1009 before the
 * message is buffered whole or reaches graphql-ws. When a future ws hides the receiver, the socket
 * still closes with 1009 on an oversized message, after ws has read it (tests cover both caps).
 */
export function capSocketMessages(socket: WebSocket, bytes: number) {
  const receiver = (socket as unknown as { _receiver?: ReceiverWithCap })._receiver;
  if (receiver && typeof receiver._maxPayload === 'number') {
    receiver._maxPayload = bytes;
    return;
  }
  const previous = fallbackChecks.get(socket);
  if (previous) socket.off('message', previous);
  const check = (data: Buffer | ArrayBuffer | Buffer[]) => {
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
    if (size > bytes) socket.close(1009, 'Message too big');
  };
  fallbackChecks.set(socket, check);
  socket.on('message', check);
}

const fallbackChecks = new WeakMap<WebSocket, (data: Buffer | ArrayBuffer | Buffer[]) => void>();

/** ws's error for a client that broke the protocol (a frame over the cap, bad UTF-8, no mask, …). */
const isClientFault = (err: unknown): err is { code: string } =>
  typeof (err as { code?: unknown } | null)?.code === 'string' &&
  (err as { code: string }).code.startsWith('WS_ERR_');

/**
 * A client's protocol fault is logged as one line without a stack, and kept from graphql-ws, which
 * prints every socket error to stderr with its stack ("Internal error emitted on a WebSocket
 * socket"): any client could fill the log that way, outside the structured logger, with one
 * oversized message per connection. ws has already closed such a socket with the fault's code
 * (1009 for a message over the cap) when it emits the error. Other errors go on as before.
 * Why at `emit`: an error listener of ours cannot stop graphql-ws's (EventEmitter calls them all),
 * and replacing useServer with our own glue around graphql-ws's makeServer would copy all of it for
 * one log line. The cost per socket event is one comparison.
 */
export function quietClientFaults(socket: WebSocket, log: { warn(details: object, message: string): void }) {
  const emit = socket.emit;
  socket.emit = function (this: WebSocket, event: string | symbol, ...args: unknown[]) {
    if (event === 'error' && isClientFault(args[0])) {
      log.warn({ code: args[0].code }, 'WebSocket closed: the client broke the protocol');
      return true;
    }
    return emit.call(this, event, ...args);
  } as WebSocket['emit'];
}

// --- /metrics --------------------------------------------------------------------------------

const metricsServers = new WeakMap<FastifyInstance, Server>();

/** The loopback metrics port unless METRICS_PORT says otherwise; ephemeral when PORT is (tests). */
export function metricsPortOf(config: Pick<Config, 'PORT' | 'METRICS_PORT'>) {
  return config.METRICS_PORT ?? (config.PORT === 0 ? 0 : 9464);
}

function tokenMatches(header: string | undefined, token: string) {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const a = createHash('sha256').update(m[1].trim()).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/**
 * Prometheus metrics stay off the public port: by default a listener of their own on
 * METRICS_HOST:METRICS_PORT (127.0.0.1:9464), started and stopped with the gateway. METRICS_TOKEN
 * opts in to `/metrics` on the public port too, for a bearer-authenticated scraper.
 */
export function installMetrics(
  server: FastifyInstance,
  registry: Registry,
  config: Pick<Config, 'PORT' | 'METRICS_PORT' | 'METRICS_HOST' | 'METRICS_TOKEN'>,
) {
  const token = config.METRICS_TOKEN;
  if (token) {
    server.get('/metrics', async (req, reply) => {
      if (!tokenMatches(req.headers.authorization, token)) {
        reply.header('www-authenticate', 'Bearer');
        return reply
          .status(401)
          .send(failureBody(new AppError('UNAUTHENTICATED', 'Authentication required')));
      }
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
  } else {
    // Not served here: a scraper pointed at the public port gets a 404, not the web app's HTML with
    // a 200 (the SPA fallback), which it would read as a live target sending garbage.
    server.get('/metrics', async (_req, reply) =>
      reply.status(404).send(failureBody(new AppError('NOT_FOUND', 'Route GET /metrics not found'))),
    );
  }
  const metricsServer = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  metricsServers.set(server, metricsServer);
  server.addHook('onClose', async () => {
    if (!metricsServer.listening) return;
    metricsServer.closeAllConnections();
    await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
  });
}

/**
 * Starts the metrics listener once the gateway listens (main.ts), and answers its address
 * (`http://127.0.0.1:9464/metrics`). A port in use fails the start, as the main port does.
 */
export async function listenMetrics(
  server: FastifyInstance,
  config: Pick<Config, 'PORT' | 'METRICS_PORT' | 'METRICS_HOST'>,
): Promise<string | null> {
  const metricsServer = metricsServers.get(server);
  if (!metricsServer) return null;
  await new Promise<void>((resolve, reject) => {
    metricsServer.once('error', reject);
    metricsServer.listen(metricsPortOf(config), config.METRICS_HOST, () => {
      metricsServer.off('error', reject);
      resolve();
    });
  });
  const address = metricsServer.address() as AddressInfo;
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/metrics`;
}
