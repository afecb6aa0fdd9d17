// How every write answers: from the read model, after it has caught up with the write's events.
// No answer is built from the decider's state: that was a second copy of every answer's shape
// (written apart from the read model's mapper), and it answered with fewer fields than a read.
import type { Position } from '../eventstore/port.js';
import { AppError } from '../shared/errors.js';
import { type AppServices, awaitProjections } from './context.js';

/** Said when a write is stored but its read model has not shown it within two waits. */
export const SAVED_NOT_YET_SHOWN =
  'Saved. It is taking longer than usual to show; reload in a moment to see it.';

/**
 * Waits (bounded) until the named read models have applied `position`, then reads the answer.
 * A wait that times out still reads: an update answers the row as the read model holds it (the
 * time-out is logged). A row the read model does not hold yet (a create whose projection is behind)
 * gets one more wait; then 503 with SAVED_NOT_YET_SHOWN: the events are stored, and a retry with the
 * same idempotency key answers the same.
 */
export async function answerAfterWrite<T>(
  app: AppServices,
  position: Position | null,
  projectionNames: readonly string[],
  read: () => Promise<T | null | undefined>,
): Promise<T> {
  const caughtUp = await awaitProjections(app, position, projectionNames);
  const first = await read();
  if (first != null) return first;
  if (!caughtUp && (await awaitProjections(app, position, projectionNames))) {
    const second = await read();
    if (second != null) return second;
  }
  throw new AppError('UNAVAILABLE', SAVED_NOT_YET_SHOWN);
}
