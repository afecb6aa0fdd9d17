// What one HTTP request (or one operation on a socket) carries into every command it causes: a
// correlation id shared by all of its events (auditors follow one request across streams), and the
// client's idempotency key. The key gives the request deterministic command ids (command-handler.ts),
// and the gateway replays the first answer to a retry (services/gateway/idempotency.ts). It travels
// on the request's actor (explicitly: Node 20's AsyncLocalStorage would slow every promise in the
// gateway).
import { randomUUID } from 'node:crypto';
import { AppError } from './errors.js';

export interface RequestContext {
  correlationId: string;
  idempotencyKey: string | null;
  /** Commands per stream so far in this request: the n-th command on a stream gets the n-th id. */
  commandsPerStream: Map<string, number>;
  /** The client's address (the gateway sets it): password checks are limited per address too. */
  ip?: string | null;
}

const HEADER_VALUE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Methods that change nothing: a key sent with one is ignored (reads are safe to repeat anyway). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Checks a client-chosen key or id; a malformed one is a 400 naming where it came from. */
export function checkedRequestId(value: unknown, field: string, label: string): string {
  if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
    const message = `${label} must be 1 to 128 letters, digits or . _ : -`;
    throw new AppError('VALIDATION', message, [{ field, message }]);
  }
  return value;
}

/**
 * Reads the optional `Idempotency-Key` and `X-Correlation-Id` headers; a malformed one is a 400.
 * On a GET (HEAD, OPTIONS) the key is ignored.
 */
export function requestContextFrom(
  headers: Record<string, string | string[] | undefined>,
  method = 'POST',
): RequestContext {
  const read = (name: string, label: string) => {
    const raw = headers[name];
    if (raw === undefined) return null;
    return checkedRequestId(Array.isArray(raw) ? raw[0] : raw, name, label);
  };
  const idempotencyKey = SAFE_METHODS.has(method.toUpperCase())
    ? null
    : read('idempotency-key', 'Idempotency-Key');
  return {
    correlationId: read('x-correlation-id', 'X-Correlation-Id') ?? randomUUID(),
    idempotencyKey,
    commandsPerStream: new Map(),
  };
}

/**
 * The context of one graphql-ws operation: a socket has no per-message headers, so the key comes in
 * the operation's `extensions.idempotencyKey` (graphql-ws `subscribe` payload).
 */
export function operationContextFrom(extensions: Record<string, unknown> | null | undefined): RequestContext {
  const key = extensions?.idempotencyKey;
  return {
    correlationId: randomUUID(),
    idempotencyKey:
      key === undefined || key === null
        ? null
        : checkedRequestId(key, 'extensions.idempotencyKey', 'extensions.idempotencyKey'),
    commandsPerStream: new Map(),
  };
}
