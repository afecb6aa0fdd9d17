// A database that cannot be reached is a temporary 503 with a clear message, not a bare 500.
import { describe, expect, it } from 'vitest';
import { DATABASE_UNAVAILABLE, isConnectionError, toAppError } from './errors.js';

const errorWith = (message: string, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), fields);

describe('toAppError for an unreachable database', () => {
  it.each([
    ['connection refused', errorWith('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })],
    ['server shut down', errorWith('terminating connection due to administrator command', { code: '57P01' })],
    ['starting up', errorWith('the database system is starting up', { code: '57P03' })],
    ['connection exception', errorWith('connection failure', { code: '08006' })],
    ['connection lost', errorWith('Connection terminated unexpectedly')],
    ['pool timeout', errorWith('timeout exceeded when trying to connect')],
    ['wrapped', errorWith('query failed', { cause: errorWith('x', { code: 'ECONNRESET' }) })],
    [
      'every address refused',
      Object.assign(new AggregateError([errorWith('x', { code: 'ECONNREFUSED' })], ''), {}),
    ],
  ])('%s → UNAVAILABLE 503', (_, err) => {
    const e = toAppError(err);
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.status).toBe(503);
    expect(e.message).toBe(DATABASE_UNAVAILABLE);
  });

  it('keeps other failures a bare INTERNAL 500', () => {
    expect(toAppError(errorWith('relation "x" does not exist', { code: '42P01' })).code).toBe('INTERNAL');
    expect(toAppError(new Error('boom')).status).toBe(500);
    expect(isConnectionError(null)).toBe(false);
  });
});
