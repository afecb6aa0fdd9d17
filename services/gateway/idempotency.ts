// Idempotency-Key as payment APIs have taught clients to expect (Stripe's semantics): the first
// answer to a write is stored under (caller, key) and a retry with the same key gets it again,
// status and body, also for a create. A retry whose method, path or body differs is refused (422);
// one that arrives while the first still runs is refused (409), because the key is claimed with an
// INSERT … ON CONFLICT before the request runs. It covers REST writes, GraphQL mutations over HTTP
// (key in the header or in `extensions.idempotencyKey`) and over graphql-ws (in extensions).
//
// The deterministic command ids a key gives (services/app/command-handler.ts) stay: if the process
// dies between appending the events and storing the answer, the claim is abandoned, and the retry
// re-runs and finds its events already in each stream, so nothing is appended twice.
//
// Answers may hold personal data (a user's e-mail): bodies are encrypted (AES-256-GCM, key derived
// from ENCRYPTION_KEY with HKDF, bound to the row's caller and key) and rows are purged after 24 h
// (workers/maintenance.ts). Request bodies are kept only as an HMAC, so a password sent to register
// is not stored in any form that can be tested offline.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type DocumentNode,
  GraphQLError,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  parse,
} from 'graphql';
import { type QueryExecutorProvider, sql } from 'kysely';
import type pg from 'pg';
import type { AnyEndpoint } from '../app/endpoints.js';
import { IDEMPOTENCY_RETENTION_HOURS } from '../app/idempotency-purge.js';
import type { Actor } from '../auth/permissions.js';
import { AppError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import { checkedRequestId, type RequestContext } from '../shared/request-context.js';
import { failureBody } from './rest/envelope.js';

export { IDEMPOTENCY_RETENTION_HOURS, purgeIdempotencyKeys } from '../app/idempotency-purge.js';

const IN_FLIGHT_MESSAGE = 'A request with this Idempotency-Key is still being processed';
const MISMATCH_MESSAGE =
  'This Idempotency-Key was already used with a different request. Send a new key for a new request.';

/**
 * The commands whose answer is never replayed, as their declarations say (`replayed: false`):
 * credential exchanges, whose answers are fresh tokens; replaying a refresh would hand a rotated-away
 * token's successor to whoever presents the old one again.
 */
export interface Unreplayed {
  /** `METHOD /path` as Fastify routes it. */
  routes: ReadonlySet<string>;
  /** Mutation field names. */
  mutations: ReadonlySet<string>;
}

export function unreplayedOf(endpoints: readonly AnyEndpoint[]): Unreplayed {
  const never = endpoints.filter((e) => e.replayed === false);
  return {
    routes: new Set(never.map((e) => `${e.rest.method} ${e.rest.path}`)),
    mutations: new Set(never.flatMap((e) => (e.graphql ? [e.graphql.name] : []))),
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type Claim =
  | { outcome: 'run'; runId: string }
  | { outcome: 'replay'; status: number; contentType: string; body: string }
  | { outcome: 'mismatch' }
  | { outcome: 'in-flight' };

/** JSON with object keys sorted, so the same body in another key order is the same request. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

export class IdempotencyStore {
  private readonly bodyKey: Buffer;
  private readonly macKey: Buffer;

  /**
   * abandonAfterMs: an unfinished claim older than this was left by a process that died:
   * a retry with the same request takes it over and re-runs (command ids keep that safe).
   */
  private readonly abandonAfterMs: number;

  constructor(
    private readonly pool: pg.Pool,
    encryptionKey: string,
    readonly log: Logger,
    options: { abandonAfterMs?: number } = {},
  ) {
    this.abandonAfterMs = options.abandonAfterMs ?? 60_000;
    const ikm = Buffer.from(encryptionKey, 'base64');
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', ikm, 'billflow', info, 32));
    this.bodyKey = derive('idempotency-keys: answer body');
    this.macKey = derive('idempotency-keys: request fingerprint');
  }

  static async setup(db: QueryExecutorProvider) {
    await sql`CREATE TABLE IF NOT EXISTS idempotency_keys (
      caller text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      run_id uuid NOT NULL,
      status integer,
      content_type text,
      body bytea,
      created_at timestamptz NOT NULL DEFAULT now(),
      claimed_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      PRIMARY KEY (caller, key)
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at)`.execute(
      db,
    );
  }

  private mac(text: string) {
    return createHmac('sha256', this.macKey).update(text).digest('base64url');
  }

  /** Who a key belongs to: the signed-in user, or an anonymous caller told apart by a hash of the IP. */
  callerOf(actor: Pick<Actor, 'id'> | null | undefined, ip: string | null | undefined): string {
    return actor ? `user:${actor.id}` : `anonymous:${this.mac(`ip:${ip ?? ''}`).slice(0, 22)}`;
  }

  fingerprint(method: string, path: string, body: unknown): string {
    return this.mac(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`);
  }

  /** Claims the key for this request, or says what happened to the request that claimed it first. */
  async claim(caller: string, key: string, fingerprint: string): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const runId = randomUUID();
      // New key, an expired one (the purge has not run yet), or an abandoned claim of the same request.
      const claimed = await this.pool.query(
        `INSERT INTO idempotency_keys (caller, key, fingerprint, run_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (caller, key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, run_id = EXCLUDED.run_id, status = NULL, content_type = NULL,
           body = NULL, claimed_at = now(), completed_at = NULL,
           created_at = CASE WHEN idempotency_keys.created_at < now() - make_interval(hours => $5)
                        THEN now() ELSE idempotency_keys.created_at END
         WHERE idempotency_keys.created_at < now() - make_interval(hours => $5)
            OR (idempotency_keys.completed_at IS NULL AND idempotency_keys.fingerprint = EXCLUDED.fingerprint
                AND idempotency_keys.claimed_at < now() - make_interval(secs => $6::double precision / 1000))
         RETURNING run_id`,
        [caller, key, fingerprint, runId, IDEMPOTENCY_RETENTION_HOURS, this.abandonAfterMs],
      );
      if (claimed.rowCount === 1) return { outcome: 'run', runId };
      const { rows } = await this.pool.query(
        `SELECT fingerprint, status, content_type, body, completed_at FROM idempotency_keys
         WHERE caller = $1 AND key = $2`,
        [caller, key],
      );
      const row = rows[0];
      if (!row) continue; // purged or released in between: claim again
      if (row.fingerprint !== fingerprint) return { outcome: 'mismatch' };
      if (!row.completed_at) return { outcome: 'in-flight' };
      let body: string;
      try {
        body = this.decrypt(row.body, caller, key);
      } catch {
        // Unreadable (ENCRYPTION_KEY was rotated): forget it and run again, which command ids keep safe.
        this.log.warn({}, 'idempotency: a stored answer could not be decrypted; the request runs again');
        await this.pool.query('DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2', [caller, key]);
        continue;
      }
      return { outcome: 'replay', status: row.status, contentType: row.content_type, body };
    }
    return { outcome: 'in-flight' };
  }

  /** Stores the first answer. Only the run that holds the claim can complete it. */
  async complete(
    caller: string,
    key: string,
    runId: string,
    status: number,
    contentType: string,
    body: string,
  ) {
    await this.pool.query(
      `UPDATE idempotency_keys SET status = $4, content_type = $5, body = $6, completed_at = now()
       WHERE caller = $1 AND key = $2 AND run_id = $3`,
      [caller, key, runId, status, contentType, this.encrypt(body, caller, key)],
    );
  }

  /** Gives the key back (the answer is one the client may retry, such as a 5xx). */
  async release(caller: string, key: string, runId: string) {
    await this.pool.query(
      'DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND run_id = $3 AND completed_at IS NULL',
      [caller, key, runId],
    );
  }

  private encrypt(plain: string, caller: string, key: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.bodyKey, iv);
    // Bound to its row: a body copied to another caller's row does not decrypt.
    cipher.setAAD(Buffer.from(`${caller}\n${key}`));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), data]);
  }

  private decrypt(stored: Buffer, caller: string, key: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.bodyKey, stored.subarray(0, 12));
    decipher.setAAD(Buffer.from(`${caller}\n${key}`));
    decipher.setAuthTag(stored.subarray(12, 28));
    return Buffer.concat([decipher.update(stored.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * Answers that ask for a retry are not stored, so the retry runs again: 5xx (our failure), 409 (a
 * concurrent edit: 'please try again') and 429 (rate limited). Other 4xx answers are stored.
 */
function retryableStatus(status: number) {
  return status >= 500 || status === 429 || status === 409;
}

/** A GraphQL result answers 200 whatever failed: its errors say whether it may be retried. */
function retryableGraphQL(result: { errors?: Array<{ extensions?: Record<string, any> }> } | null) {
  return (result?.errors ?? []).some((e) => {
    const status = e.extensions?.http?.status;
    if (typeof status === 'number') return retryableStatus(status);
    // No code at all: an unexpected error Yoga masked.
    return !e.extensions?.code || e.extensions.code === 'INTERNAL_SERVER_ERROR';
  });
}

function rootFieldsOf(operation: OperationDefinitionNode): string[] {
  return operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
}

/** The mutation a GraphQL-over-HTTP body runs, or null for a query, a batch or an unparsable body. */
function mutationOf(body: unknown): OperationDefinitionNode | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const { query, operationName } = body as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return null;
  try {
    const operation = getOperationAST(
      parse(query),
      typeof operationName === 'string' ? operationName : undefined,
    );
    return operation?.operation === 'mutation' ? operation : null;
  } catch {
    return null; // Yoga answers the syntax error
  }
}

const graphqlFingerprintBody = (p: { query?: unknown; variables?: unknown; operationName?: unknown }) => ({
  query: p.query,
  variables: p.variables ?? null,
  operationName: p.operationName ?? null,
});

async function payloadText(payload: unknown): Promise<string> {
  if (payload === null || payload === undefined) return '';
  if (typeof payload === 'string') return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload).toString('utf8');
  if (typeof (payload as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    const chunks: Buffer[] = [];
    for await (const chunk of payload as AsyncIterable<string | Uint8Array>)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  }
  return String(payload);
}

interface HeldClaim {
  caller: string;
  key: string;
  runId: string;
  graphql: boolean;
}

export interface IdempotencyGlue {
  store: IdempotencyStore;
  unreplayed: Unreplayed;
  actorOf(req: FastifyRequest): Promise<Actor | null>;
  requestContextOf(req: FastifyRequest): RequestContext | undefined;
}

/**
 * REST and GraphQL over HTTP: claims the key before the handler runs (preHandler, after the body is
 * parsed), replays or refuses a retry, and stores the answer as it is sent (onSend).
 */
export function installIdempotency(server: FastifyInstance, glue: IdempotencyGlue) {
  const { store } = glue;
  const held = new WeakMap<FastifyRequest, HeldClaim>();

  const refuse = (reply: FastifyReply, graphql: boolean, error: AppError) => {
    reply.status(error.status);
    if (!graphql) return reply.send(failureBody(error));
    return reply.send({ errors: [{ message: error.message, extensions: { code: error.code } }] });
  };

  server.addHook('preHandler', async (req, reply) => {
    if (SAFE_METHODS.has(req.method)) return;
    const context = glue.requestContextOf(req);
    if (!context) return;
    const route = `${req.method} ${req.routeOptions.url ?? ''}`;
    const graphql = req.routeOptions.url === '/graphql';
    let key = context.idempotencyKey;
    let fingerprintBody: unknown = req.body;
    let path = req.url;
    if (graphql) {
      const fromExtensions = (req.body as { extensions?: Record<string, unknown> } | null)?.extensions
        ?.idempotencyKey;
      const inExtensions = fromExtensions !== undefined && fromExtensions !== null;
      if (!key && !inExtensions) return; // no key: not worth parsing the query
      const operation = mutationOf(req.body);
      if (!operation) return; // a query: a key on it is ignored, as on a GET
      if (rootFieldsOf(operation).some((f) => glue.unreplayed.mutations.has(f))) return;
      if (inExtensions) {
        let checked: string;
        try {
          checked = checkedRequestId(
            fromExtensions,
            'extensions.idempotencyKey',
            'extensions.idempotencyKey',
          );
          if (key && key !== checked)
            throw new AppError('VALIDATION', 'Idempotency-Key and extensions.idempotencyKey differ');
        } catch (err) {
          return refuse(reply, true, err as AppError);
        }
        key = checked;
        // The command ids follow the key wherever the client put it.
        context.idempotencyKey = key;
      }
      // Same request whichever transport carries it (HTTP or the socket).
      fingerprintBody = graphqlFingerprintBody(req.body as object);
      path = '/graphql';
    } else if (glue.unreplayed.routes.has(route)) {
      return;
    }
    if (!key) return;
    const caller = store.callerOf(await glue.actorOf(req), req.ip);
    const claim = await store.claim(
      caller,
      key,
      store.fingerprint(graphql ? 'POST' : req.method, path, fingerprintBody),
    );
    switch (claim.outcome) {
      case 'run':
        held.set(req, { caller, key, runId: claim.runId, graphql });
        return;
      case 'replay':
        reply
          .status(claim.status)
          .header('content-type', claim.contentType)
          .header('idempotent-replayed', 'true');
        return reply.send(claim.body);
      case 'mismatch':
        return refuse(reply, graphql, new AppError('IDEMPOTENCY_MISMATCH', MISMATCH_MESSAGE));
      case 'in-flight':
        return refuse(reply, graphql, new AppError('CONFLICT', IN_FLIGHT_MESSAGE));
    }
  });

  server.addHook('onSend', async (req, reply, payload) => {
    const claim = held.get(req);
    if (!claim) return payload;
    held.delete(req);
    const { caller, key, runId } = claim;
    const body = await payloadText(payload);
    const status = reply.statusCode;
    try {
      let retryable = retryableStatus(status);
      if (!retryable && claim.graphql) {
        try {
          retryable = retryableGraphQL(JSON.parse(body));
        } catch {
          retryable = true;
        }
      }
      if (retryable) await store.release(caller, key, runId);
      else
        await store.complete(
          caller,
          key,
          runId,
          status,
          String(reply.getHeader('content-type') ?? 'application/json'),
          body,
        );
    } catch (err) {
      // The answer still goes out; the claim is taken over as abandoned by a later retry.
      store.log.warn({ err: (err as Error).message }, 'idempotency: could not store the answer');
    }
    return body;
  });
}

/** The replayed result of a mutation sent over graphql-ws, shaped as graphql-ws sends results. */
function asExecutionResult(stored: string) {
  const result = JSON.parse(stored) as { errors?: Array<Record<string, unknown>> };
  return {
    ...result,
    ...(result.errors ? { errors: result.errors.map((e) => ({ ...e, toJSON: () => e })) } : {}),
  };
}

function operationError(error: AppError) {
  return { errors: [new GraphQLError(error.message, { extensions: { code: error.code } })] };
}

/**
 * A graphql-ws operation's execute, wrapped: a mutation with an Idempotency-Key in its extensions
 * is claimed, replayed or refused exactly as over HTTP; anything else just runs.
 */
export function socketMutation(
  store: IdempotencyStore,
  unreplayed: Unreplayed,
  actor: Actor | null,
  request: RequestContext,
  params: { query: string; variables?: unknown; operationName?: string | null },
  document: DocumentNode,
) {
  const operation = getOperationAST(document, params.operationName ?? undefined);
  const key = request.idempotencyKey;
  const guarded =
    key !== null &&
    operation?.operation === 'mutation' &&
    !rootFieldsOf(operation).some((f) => unreplayed.mutations.has(f));
  return async <R>(
    execute: () => Promise<R> | R,
  ): Promise<R | ReturnType<typeof asExecutionResult> | ReturnType<typeof operationError>> => {
    if (!guarded || !key) return execute();
    const caller = store.callerOf(actor, null);
    const claim = await store.claim(
      caller,
      key,
      store.fingerprint('POST', '/graphql', graphqlFingerprintBody(params)),
    );
    if (claim.outcome === 'replay') return asExecutionResult(claim.body);
    if (claim.outcome === 'mismatch')
      return operationError(new AppError('IDEMPOTENCY_MISMATCH', MISMATCH_MESSAGE));
    if (claim.outcome === 'in-flight') return operationError(new AppError('CONFLICT', IN_FLIGHT_MESSAGE));
    let result: R;
    try {
      result = await execute();
    } catch (err) {
      await store.release(caller, key, claim.runId).catch(() => {});
      throw err;
    }
    try {
      const body = JSON.stringify(result);
      if (retryableGraphQL(JSON.parse(body))) await store.release(caller, key, claim.runId);
      else await store.complete(caller, key, claim.runId, 200, 'application/json', body);
    } catch (err) {
      // The result still goes out; a later retry takes the claim over as abandoned.
      store.log.warn({ err: (err as Error).message }, 'idempotency: could not store the answer');
    }
    return result;
  };
}
