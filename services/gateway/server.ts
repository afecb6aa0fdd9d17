// The gateway: one Fastify server on one port with GraphQL (HTTP and graphql-ws), the REST adapter
// under /api, /metrics, and the built web app with SPA fallback.
import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AppServices } from '../app/context.js';
import type { Actor } from '../auth/permissions.js';
import { commandEndpoints, gatewayHooks, routeGroups } from '../modules/index.js';
import { AppError } from '../shared/errors.js';
import { operationContextFrom, type RequestContext, requestContextFrom } from '../shared/request-context.js';
import { findActorRow, resolveActor } from '../users/user-view.js';
import { ActorRows } from './actor-rows.js';
import { socketAddress, trustProxyOption } from './client-address.js';
import { graphiqlPage } from './graphiql.js';
import type { GraphQLContext } from './graphql/builder.js';
import { toGraphQLError } from './graphql/errors.js';
import { schema } from './graphql/schema.js';
import {
  BODY_LIMITS,
  capSocketMessages,
  graphqlCors,
  graphqlHardening,
  installHttpHardening,
  installMetrics,
  quietClientFaults,
  WS_MAX_PAYLOAD,
  WS_MAX_PAYLOAD_BEFORE_INIT,
} from './hardening.js';
import { IdempotencyStore, installIdempotency, socketMutation, unreplayedOf } from './idempotency.js';
import type { LiveBus } from './live.js';
import { registerApiDocs } from './openapi.js';
import { registerProjectionMetrics } from './projection-metrics.js';
import { ResponseCache, responseCachePlugin } from './response-cache.js';
import { commandRoutes } from './rest/command-routes.js';
import type { RestDeps } from './rest/deps.js';
import { bearerOf, failureBody, sendError } from './rest/envelope.js';
import { SessionChecks } from './session-checks.js';
import { wantsSubscribedAck, withSubscribedAck } from './subscribed-ack.js';

export interface GatewayOptions {
  app: AppServices;
  live: LiveBus;
  /** Folder of the built web app (index.html); the SPA is not served when it is missing. */
  webDist?: string;
  /** Extra REST route groups beside the modules' (tests add theirs here). */
  routes?: Array<(server: FastifyInstance, deps: RestDeps) => void>;
  metrics?: Registry;
}

const actorCache = new WeakMap<FastifyRequest, Promise<Actor | null>>();
const requestContexts = new WeakMap<FastifyRequest, RequestContext>();

export async function buildGateway(options: GatewayOptions): Promise<FastifyInstance> {
  const { app, live } = options;
  // Callers' rows remembered between requests, dropped on every notice about them (actor-rows.ts).
  const actorRows = new ActorRows({ read: (id) => findActorRow(app, id), connected: () => live.connected() });
  live.watch((notices) => actorRows.noticed(notices));
  live.onReconnect(() => actorRows.clear());
  const actorRow = (id: number) => actorRows.get(id);
  // Callers' sessions: still on? Remembered like the rows, dropped when one ends (session-checks.ts).
  const sessionChecks = new SessionChecks({
    isLive: (sid, userId) => app.refreshTokens.isLive(sid, userId),
    connected: () => live.connected(),
  });
  live.watch((notices) => sessionChecks.noticed(notices));
  live.onReconnect(() => sessionChecks.clear());
  const sessionCheck = (sid: string, userId: number) => sessionChecks.check(sid, userId);
  const server = Fastify({
    // Whose address a request has, behind a proxy (TRUST_PROXY): sign-in limits count per address.
    trustProxy: trustProxyOption(app.config.TRUST_PROXY),
    // warn at the least: one line per request is noise; failures are logged by the error handler.
    logger:
      app.config.LOG_LEVEL === 'silent'
        ? false
        : { level: ['fatal', 'error'].includes(app.config.LOG_LEVEL) ? app.config.LOG_LEVEL : 'warn' },
    bodyLimit: BODY_LIMITS.default,
    // A URL Fastify cannot decode (e.g. %ED%A0%80, a lone surrogate) is answered in the envelope too.
    frameworkErrors: sendError,
  });
  server.setErrorHandler(sendError);
  // Headers, no-store and per-route body limits: before any route is added (hardening.ts).
  await installHttpHardening(server, { webDist: options.webDist });

  // Metrics: one registry per gateway so several in a process (tests) do not collide.
  const registry = options.metrics ?? new Registry();
  if (!options.metrics) collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'billflow_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  registerProjectionMetrics(registry, app);
  const wsConnections = new Counter({
    name: 'billflow_graphql_ws_connections_total',
    help: 'graphql-ws connections accepted',
    registers: [registry],
  });
  server.addHook('onResponse', async (req, reply) => {
    httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  // /metrics on a loopback port of its own (listenMetrics in main.ts), or behind METRICS_TOKEN.
  installMetrics(server, registry, app.config);

  // Every command a request causes shares its correlation id; an Idempotency-Key makes a retried
  // write get the first answer again (services/gateway/idempotency.ts) and append nothing twice
  // (services/shared/request-context.ts). Both travel on the actor.
  server.addHook('onRequest', async (req, reply) => {
    const context = requestContextFrom(req.headers, req.method);
    context.ip = req.ip;
    requestContexts.set(req, context);
    reply.header('x-correlation-id', context.correlationId);
  });

  const actorOf = (req: FastifyRequest) => {
    let p = actorCache.get(req);
    if (!p) {
      const request = requestContexts.get(req);
      p = resolveActor(app, bearerOf(req), actorRow, sessionCheck).then((actor) =>
        actor ? { ...actor, request } : null,
      );
      actorCache.set(req, p);
    }
    return p;
  };
  const idempotency = new IdempotencyStore(app.pool, app.config.ENCRYPTION_KEY, app.log);
  const unreplayed = unreplayedOf(commandEndpoints);
  installIdempotency(server, {
    store: idempotency,
    unreplayed,
    actorOf,
    requestContextOf: (req) => requestContexts.get(req),
  });
  // Before the routes: it documents each /api route as it is added (openapi.ts).
  // Tests hold each REST answer to its document; production sends it as the handler made it.
  await registerApiDocs(server, { checkAnswers: app.config.NODE_ENV === 'test' });
  // Answers kept while their read models stand still, for REST lists and GraphQL queries alike.
  const responseCache = new ResponseCache(app, registry);
  const deps: RestDeps = { app, actorOf, responses: responseCache };
  for (const register of [...routeGroups, commandRoutes(commandEndpoints)]) register(server, deps);
  for (const register of options.routes ?? []) register(server, deps);

  // GraphQL over HTTP.
  const yoga = createYoga<{ req: FastifyRequest; actor?: Actor | null }, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    // GraphiQL from this server's own files: no CDN (graphiql.ts).
    renderGraphiQL: graphiqlPage(server),
    logging: false,
    // Masks unexpected errors ('Unexpected error.'), keeps GraphQLErrors we raise on purpose.
    maskedErrors: true,
    // Aliases, depth, tokens and cost limited, no suggestions, no introspection when signed out.
    // Then: marks the read-only answers the response cache may keep (graphql/response-cache.ts).
    plugins: [...graphqlHardening(), responseCachePlugin()],
    cors: graphqlCors(app.config),
    context: async (initial) => ({
      app,
      live,
      actor: initial.actor !== undefined ? initial.actor : initial.req ? await actorOf(initial.req) : null,
      // Over HTTP, Fastify's (TRUST_PROXY); on a socket, the operation's own (set in onSubscribe).
      ip: initial.req?.ip ?? initial.actor?.request?.ip ?? null,
      origin: initial.req ? `${initial.req.protocol}://${initial.req.host}` : null,
    }),
  });
  server.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (req, reply) => {
      // No GraphQL over server-sent events: a stream there is checked only when it starts, and one
      // outlived its caller's access. Live data comes over graphql-ws, whose sockets end
      // with the session, the token or the caller's access.
      if (String(req.headers.accept ?? '').includes('text/event-stream')) {
        reply.status(406).header('content-type', 'application/json');
        return reply.send({
          errors: [
            {
              message:
                'GraphQL over server-sent events is not served: subscribe over WebSocket (graphql-ws).',
              extensions: { code: 'NOT_ACCEPTABLE' },
            },
          ],
        });
      }
      // The caller is known before validation, which allows introspection only when signed in.
      const actor = await actorOf(req);
      const key = responseCache.keyOf(req, actor);
      const found = key ? await responseCache.lookup(key) : null;
      if (found && 'hit' in found) {
        for (const [name, value] of found.hit.headers) reply.header(name, value);
        reply.status(200);
        return reply.send(found.hit.body);
      }
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, actor });
      const headers: Array<[string, string]> = [];
      response.headers.forEach((value, name) => {
        reply.header(name, value);
        if (name !== 'content-length') headers.push([name, value]);
      });
      reply.status(response.status);
      if (key && found && responseCache.wanted(req)) {
        const body = await response.text();
        responseCache.keep(req, key, found.version, response.status, headers, body);
        return reply.send(body);
      }
      reply.send(response.body);
      return reply;
    },
  });

  for (const start of gatewayHooks) start(live, app);

  // GraphQL subscriptions over graphql-ws on the same port and path, through the same Yoga plugins.
  const wss = new WebSocketServer({ server: server.server, path: '/graphql', maxPayload: WS_MAX_PAYLOAD });
  // Before graphql-ws's own listener: a client that has not been accepted yet gets a small cap.
  wss.on('connection', (socket) => {
    capSocketMessages(socket, WS_MAX_PAYLOAD_BEFORE_INIT);
    quietClientFaults(socket, server.log);
  });
  // A socket's caller is resolved when it connects. When that user's role or standing changes, their
  // sockets are closed with 4403: the client reconnects with a fresh token and is checked again, so
  // a demoted or deactivated user stops receiving what their old role allowed.
  const socketsByUser = new Map<number, Set<WebSocket>>();
  const ACCESS_EVENTS = new Set(['UserRoleChanged', 'UserDeactivated', 'UserDeleted']);
  // Unbounded: it only reads each notice's type, and must never miss a change of access.
  const accessNotices = live
    .subscribe('user', undefined, { limit: Number.POSITIVE_INFINITY, internal: true })
    [Symbol.asyncIterator]();
  void (async () => {
    for (;;) {
      const next = await accessNotices.next();
      if (next.done) return;
      const notice = next.value;
      if (!ACCESS_EVENTS.has(String(notice.data?.type))) continue;
      for (const socket of socketsByUser.get(Number(notice.id)) ?? []) socket.close(4403, 'Forbidden');
    }
  })();
  // A session that ends (sign-out, a password change, an admin's reset) ends its sockets too, on
  // every gateway: the announcement comes on the change channel (services/users/sessions.ts).
  const sessionOfSocket = new WeakMap<WebSocket, string>();
  live.watch((notices) => {
    for (const n of notices) {
      if (n.topic !== 'session') continue;
      const userId = Number((n.data as { userId?: number } | undefined)?.userId);
      for (const socket of socketsByUser.get(userId) ?? [])
        if (n.id === '*' || sessionOfSocket.get(socket) === n.id) socket.close(4403, 'Session ended');
    }
  });
  // biome-ignore lint/correctness/useHookAtTopLevel: graphql-ws's useServer is not a React hook
  const wsServer = useServer<{ token?: string }, { actor?: Actor | null }>(
    {
      onConnect: async (ctx) => {
        const token = ctx.connectionParams?.token ?? null;
        const actor = await resolveActor(app, token, actorRow, sessionCheck);
        if (!actor) return false; // closes with 4403: the client refreshes its token and reconnects
        ctx.extra.actor = actor;
        const socket = ctx.extra.socket;
        if (actor.sessionId) sessionOfSocket.set(socket, actor.sessionId);
        // The socket lives no longer than the token it was opened with: the client reconnects with
        // a fresh one, and is checked again.
        const expiresAt = token ? app.accessTokens.expiresAt(token) : null;
        if (expiresAt !== null) {
          const timer = setTimeout(
            () => socket.close(4403, 'Token expired'),
            Math.max(0, expiresAt - Date.now()),
          );
          socket.once('close', () => clearTimeout(timer));
        }
        const mine = socketsByUser.get(actor.id) ?? new Set<WebSocket>();
        mine.add(socket);
        socketsByUser.set(actor.id, mine);
        socket.once('close', () => {
          mine.delete(socket);
          if (mine.size === 0 && socketsByUser.get(actor.id) === mine) socketsByUser.delete(actor.id);
        });
        wsConnections.inc();
        capSocketMessages(socket, WS_MAX_PAYLOAD);
        return true;
      },
      onSubscribe: async (ctx, _id, params) => {
        // Each operation is a request of its own: its correlation id, and for a mutation the
        // Idempotency-Key from its extensions, replayed as over HTTP (idempotency.ts).
        let request: RequestContext;
        try {
          request = operationContextFrom(params.extensions);
          request.ip = socketAddress(ctx.extra.request, app.config.TRUST_PROXY);
        } catch (err) {
          return [toGraphQLError(err) as GraphQLError];
        }
        const actor = ctx.extra.actor ? { ...ctx.extra.actor, request } : null;
        const enveloped = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          actor,
        });
        let document: ReturnType<typeof enveloped.parse>;
        try {
          document = enveloped.parse(params.query);
          const errors = enveloped.validate(enveloped.schema, document);
          if (errors.length) return errors;
        } catch (err) {
          // A syntax error, or a limit (hardening.ts) that throws: an error for this operation, as
          // over HTTP, not a socket closed with 4500.
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        const idempotent = socketMutation(idempotency, unreplayed, actor, request, params, document);
        return {
          schema: enveloped.schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue: await enveloped.contextFactory(),
          rootValue: {
            execute: (args: Parameters<typeof enveloped.execute>[0]) =>
              idempotent(() => enveloped.execute(args)),
            // A client that asked is told when its subscription is live (subscribed-ack.ts).
            subscribe: wantsSubscribedAck(params.extensions)
              ? (args: Parameters<typeof enveloped.subscribe>[0]) =>
                  withSubscribedAck(enveloped.subscribe(args))
              : enveloped.subscribe,
          },
        };
      },
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
    },
    wss,
  );
  server.addHook('onClose', async () => {
    await accessNotices.return?.();
    await wsServer.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });

  // The web app, with SPA fallback for client-side routes.
  const webDist = options.webDist;
  const hasWeb = webDist !== undefined && existsSync(path.join(webDist, 'index.html'));
  if (hasWeb) {
    await server.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: ['index.html'],
      // The build writes .br and .gz beside each file (web/vite.config.ts): sent by Accept-Encoding.
      preCompressed: true,
      cacheControl: false,
      setHeaders(res, filePath) {
        res.setHeader('vary', 'Accept-Encoding');
        // assets/ names carry a content hash: cache them for a year. Anything else (index.html, which
        // names the current hashes) is revalidated on every load, so a release shows at once.
        const hashed = path.relative(webDist, filePath).split(path.sep)[0] === 'assets';
        res.setHeader('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  server.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0];
    if (
      hasWeb &&
      req.method === 'GET' &&
      !url.startsWith('/api/') &&
      url !== '/graphql' &&
      !path.extname(url)
    ) {
      return reply.type('text/html').sendFile('index.html');
    }
    return reply
      .status(404)
      .send(failureBody(new AppError('NOT_FOUND', `Route ${req.method} ${url} not found`)));
  });

  return server;
}
