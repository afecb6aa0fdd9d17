// Answers of read-only GraphQL queries and REST lists kept as the bytes sent, and sent again while
// the read models they were made of stand still (the same rule as services/app/read-cache.ts: a
// projection's checkpoint row names the state of its tables).
//
// Why: staff keep lists open and page through them. The list's rows already come from memory on a
// repeat, yet Yoga's request handling, validation and the resolution of every field of 25 rows cost
// three times the REST adapter's CPU for the same page (docs/PERFORMANCE.md). A kept answer skips all
// of it; the caller's session is still checked on every request (actorOf), before the cache.
//
// Only root Query fields declared with `cacheableQuery` are kept, and only when every root field of
// the operation is one. The key is the caller (id and role: answers carry per-viewer fields), the
// request's Origin and Accept (they shape Yoga's headers) and the operation's text and variables.
// An answer with errors is never kept.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, Kind, OperationTypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { Counter, type Registry } from 'prom-client';
import type { AppServices } from '../app/context.js';
import { readModelVersion } from '../app/read-cache.js';
import type { Actor } from '../auth/permissions.js';

/** Root Query field → the read models its answer is made of (nothing else: no clock, no outside call). */
const cacheableFields = new Map<string, readonly string[]>();

/** Declares a root Query field whose answer depends only on these read models and on the caller. */
export function cacheableQuery(field: string, readModels: readonly string[]): void {
  cacheableFields.set(field, readModels);
}

interface Kept {
  version: string;
  headers: Array<[string, string]>;
  /**
   * The answer's bytes, encoded once: sent again as a string, each send encoded it anew and Fastify
   * measured it for its length, two passes over a REST page of about 50 KB (15 – 20 µs of the
   * gateway's CPU a request).
   */
  body: Buffer;
}

/** What the plugin learned about one request's operation (keyed by the Fastify request). */
const verdicts = new WeakMap<FastifyRequest, { readModels: readonly string[]; ok: boolean }>();

/** The read models of an operation if every root field is cacheable; null otherwise. */
function readModelsOf(document: Parameters<typeof getOperationAST>[0], operationName?: string | null) {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op || op.operation !== OperationTypeNode.QUERY) return null;
  const models = new Set<string>();
  for (const sel of op.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD) return null;
    if (sel.name.value === '__typename') continue;
    const m = cacheableFields.get(sel.name.value);
    if (!m) return null;
    for (const name of m) models.add(name);
  }
  return models.size > 0 ? [...models].sort() : null;
}

/** The Yoga plugin: marks a request whose operation may be kept, and unmarks it if it answered errors. */
export function responseCachePlugin(): Plugin<{ req?: FastifyRequest }> {
  return {
    onExecute({ args }) {
      const req = (args.contextValue as { req?: FastifyRequest }).req;
      if (!req) return; // graphql-ws: nothing is kept
      const readModels = readModelsOf(args.document, args.operationName);
      if (!readModels) return;
      const verdict = { readModels, ok: true };
      verdicts.set(req, verdict);
      return {
        onExecuteDone({ result }) {
          // A stream (incremental delivery) or any error: not kept.
          if (Symbol.asyncIterator in result || (result.errors?.length ?? 0) > 0) verdict.ok = false;
        },
      };
    },
  };
}

/** Per app (a test process runs several against different databases), bounded by bytes. */
export class ResponseCache {
  private readonly kept = new LRUCache<string, Kept>({
    maxSize: 32 * 1024 * 1024,
    sizeCalculation: (k) => k.body.length + 64,
    // Validity is the version's; the TTL only frees memory held for queries nobody repeats.
    ttl: 5 * 60_000,
  });
  /** Operation text and variables → read models, learned from the first answer (the plugin's verdict). */
  private readonly shapes = new LRUCache<string, readonly string[]>({ max: 1000 });

  private readonly outcomes: Counter<'outcome'>;

  constructor(
    private readonly app: AppServices,
    registry: Registry,
  ) {
    this.outcomes = new Counter({
      name: 'billflow_graphql_response_cache_total',
      help: 'Answers of cacheable GraphQL queries and REST lists: sent from memory (hit) or made again (miss)',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  /** The request's key, or null when it cannot be kept (not a JSON POST, or nobody signed in). */
  keyOf(req: FastifyRequest, actor: Actor | null): { caller: string; operation: string } | null {
    if (!actor || req.method !== 'POST') return null;
    const body = req.body as { query?: unknown; variables?: unknown; operationName?: unknown } | undefined;
    if (!body || typeof body !== 'object' || typeof body.query !== 'string') return null;
    const operation = JSON.stringify([body.query, body.variables ?? null, body.operationName ?? null]);
    const caller = `${actor.id}\u0000${actor.role}\u0000${req.headers.origin ?? ''}\u0000${req.headers.accept ?? ''}`;
    return { caller, operation };
  }

  /**
   * A kept answer for this request if its read models have not moved, else the version to keep the
   * coming answer under (read before Yoga runs, so a kept answer is never older than its version).
   */
  async lookup(key: {
    caller: string;
    operation: string;
  }): Promise<{ hit: Kept } | { version: string | null }> {
    const readModels = this.shapes.get(key.operation);
    if (!readModels) return { version: null };
    const version = await readModelVersion(this.app, readModels);
    if (version === null) return { version: null };
    const kept = this.kept.get(`${key.caller}\u0000${key.operation}`);
    if (kept && kept.version === version) {
      this.outcomes.inc({ outcome: 'hit' });
      return { hit: kept };
    }
    this.outcomes.inc({ outcome: 'miss' });
    return { version };
  }

  /** After Yoga answered: learns the operation's read models, and keeps the answer under `version`. */
  keep(
    req: FastifyRequest,
    key: { caller: string; operation: string },
    version: string | null,
    status: number,
    headers: Array<[string, string]>,
    body: string,
  ): void {
    const verdict = verdicts.get(req);
    if (!verdict?.ok || status !== 200) return;
    const known = this.shapes.get(key.operation);
    if (!known || known.join(',') !== verdict.readModels.join(',')) {
      this.shapes.set(key.operation, verdict.readModels);
      return; // the version read before was for other read models (or none): keep the next one
    }
    if (version !== null)
      this.kept.set(`${key.caller}\u0000${key.operation}`, { version, headers, body: Buffer.from(body) });
  }

  /**
   * A REST answer made by `make` (the envelope), kept per caller and URL while `readModels` stand
   * still. `make` authorizes and validates: what it throws is answered as usual and nothing is kept.
   */
  async rest(
    req: FastifyRequest,
    reply: FastifyReply,
    actor: Actor | null,
    readModels: readonly string[],
    make: () => Promise<unknown>,
  ): Promise<FastifyReply> {
    if (!actor) return reply.send(await make());
    const key = `rest\u0000${actor.id}\u0000${actor.role}\u0000${req.headers.accept ?? ''}\u0000${req.url}`;
    const version = await readModelVersion(this.app, readModels);
    const kept = version === null ? undefined : this.kept.get(key);
    reply.type('application/json; charset=utf-8');
    if (kept && kept.version === version) {
      this.outcomes.inc({ outcome: 'hit' });
      return reply.send(kept.body);
    }
    this.outcomes.inc({ outcome: 'miss' });
    const body = Buffer.from(JSON.stringify(await make()));
    if (version !== null) this.kept.set(key, { version, headers: [], body });
    return reply.send(body);
  }

  /** Whether Yoga's answer to this request may be kept (read its body as text only then). */
  wanted(req: FastifyRequest): boolean {
    const verdict = verdicts.get(req);
    return verdict?.ok === true;
  }
}
