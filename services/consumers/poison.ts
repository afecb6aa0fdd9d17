// Poison events: telling an event that a consumer's own code cannot handle (park it, go on) from a
// fault of the infrastructure (a lost connection, a deadlock: start over from the checkpoint, park
// nothing). Shared by the projection runner and the process-manager runner.

/** How often, and how patiently, a consumer retries one failing event before parking it. */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Pause after the first failure; doubles after each next one. */
  firstDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, firstDelayMs: 100, maxDelayMs: 1000 };

/** Pause after the `failures`-th failure (1-based): exponential, capped. */
export const retryDelay = (policy: RetryPolicy, failures: number) =>
  Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, failures - 1));

/**
 * An error thrown by a projection's or a process manager's own code for one event. Only these can
 * make an event poison; anything else the runner met (its checkpoint, its lock) restarts it.
 */
export class ConsumerCodeError extends Error {
  constructor(readonly error: unknown) {
    super(error instanceof Error ? error.message : String(error));
    this.name = 'ConsumerCodeError';
  }
}

// SQLSTATE classes that say nothing about the event: the connection (08), the server going away
// (57P01-57P03), resources (53), and concurrency outcomes that succeed when tried again.
const TRANSIENT_SQLSTATE = /^(08|53|57P0[1-3]|40001$|40P01$)/;
const TRANSIENT_NODE = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const TRANSIENT_MESSAGE =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed/i;

/** True when the error is the database (or the network) failing rather than the event. */
export function isTransientError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ConsumerCodeError) {
      e = e.error;
      continue;
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_NODE.has(code))) return true;
    if (e instanceof Error && TRANSIENT_MESSAGE.test(e.message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A failure of the consumer's code on an event, not of the database: retry it, then park it. */
export const isPoison = (err: unknown): err is ConsumerCodeError =>
  err instanceof ConsumerCodeError && !isTransientError(err.error);
