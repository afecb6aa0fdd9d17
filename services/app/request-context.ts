// What one HTTP request carries into every command it causes: a correlation id shared by all of its
// events (auditors follow one request across streams), and the client's idempotency key, so a
// retried request appends nothing twice. It travels on the request's actor (explicitly: Node 20's
// AsyncLocalStorage would slow every promise in the gateway).
import { randomUUID } from 'node:crypto';
import { AppError } from './errors.js';

export interface RequestContext {
  correlationId: string;
  idempotencyKey: string | null;
  /** Commands per stream so far in this request: the n-th command on a stream gets the n-th id. */
  commandsPerStream: Map<string, number>;
}

const HEADER_VALUE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reads the optional `Idempotency-Key` and `X-Correlation-Id` headers; a malformed one is a 400. */
export function requestContextFrom(headers: Record<string, string | string[] | undefined>): RequestContext {
  const read = (name: string, label: string) => {
    const raw = headers[name];
    if (raw === undefined) return null;
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (!HEADER_VALUE.test(value))
      throw new AppError('VALIDATION', `${label} must be 1 to 128 letters, digits or . _ : -`, [
        { field: name, message: `${label} must be 1 to 128 letters, digits or . _ : -` },
      ]);
    return value;
  };
  const idempotencyKey = read('idempotency-key', 'Idempotency-Key');
  return {
    correlationId: read('x-correlation-id', 'X-Correlation-Id') ?? randomUUID(),
    idempotencyKey,
    commandsPerStream: new Map(),
  };
}
