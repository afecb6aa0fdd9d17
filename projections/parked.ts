// Parked events: an event that a projection or a process manager kept failing on, set aside with its
// error so the consumer can go on with the rest of the log. An operator retries it from the
// operations page after a fix; the consumer's active runner (the only one allowed to apply) picks the
// request up and either clears the row or records the new error.
import { type QueryExecutorProvider, sql } from 'kysely';
import type { StoredEvent } from '../services/eventstore/port.js';

export interface ParkedEvent {
  /** Projection name, or `pm:<name>` for a process manager. */
  consumer: string;
  eventId: string;
  position: string;
  streamId: string;
  streamVersion: number;
  eventType: string;
  error: string;
  attempts: number;
  parkedAt: Date;
  retryRequestedAt: Date | null;
}

export async function ensureParkedTable(db: QueryExecutorProvider) {
  await sql`CREATE TABLE IF NOT EXISTS parked_events (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    position text NOT NULL,
    stream_id text NOT NULL,
    stream_version bigint NOT NULL,
    event_type text NOT NULL,
    error text NOT NULL,
    attempts int NOT NULL,
    parked_at timestamptz NOT NULL DEFAULT now(),
    retry_requested_at timestamptz,
    PRIMARY KEY (consumer, event_id))`.execute(db);
}

/** Errors are kept short: a message, never a stack or a row's values. */
export const parkedErrorText = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).slice(0, 500);

export async function parkEvent(
  db: QueryExecutorProvider,
  consumer: string,
  event: StoredEvent,
  error: unknown,
  attempts: number,
) {
  await sql`INSERT INTO parked_events
      (consumer, event_id, position, stream_id, stream_version, event_type, error, attempts)
    VALUES (${consumer}, ${event.id}, ${event.position}, ${event.streamId}, ${event.streamVersion},
            ${event.type}, ${parkedErrorText(error)}, ${attempts})
    ON CONFLICT (consumer, event_id) DO UPDATE
      SET error = excluded.error, attempts = parked_events.attempts + excluded.attempts,
          parked_at = now(), retry_requested_at = NULL`.execute(db);
}

interface Row {
  consumer: string;
  event_id: string;
  position: string;
  stream_id: string;
  stream_version: string;
  event_type: string;
  error: string;
  attempts: number;
  parked_at: Date;
  retry_requested_at: Date | null;
}

const toParked = (r: Row): ParkedEvent => ({
  consumer: r.consumer,
  eventId: r.event_id,
  position: r.position,
  streamId: r.stream_id,
  streamVersion: Number(r.stream_version),
  eventType: r.event_type,
  error: r.error,
  attempts: r.attempts,
  parkedAt: r.parked_at,
  retryRequestedAt: r.retry_requested_at,
});

export async function listParked(db: QueryExecutorProvider, consumer?: string): Promise<ParkedEvent[]> {
  const r = await sql<Row>`SELECT * FROM parked_events
    WHERE ${consumer === undefined ? sql`true` : sql`consumer = ${consumer}`}
    ORDER BY consumer, position`.execute(db);
  return r.rows.map(toParked);
}

/** Parked events per consumer (consumers with none are absent). */
export async function parkedCounts(db: QueryExecutorProvider): Promise<Record<string, number>> {
  const r = await sql<{ consumer: string; n: number }>`
    SELECT consumer, count(*)::int AS n FROM parked_events GROUP BY consumer`.execute(db);
  return Object.fromEntries(r.rows.map((row) => [row.consumer, row.n]));
}

/** Asks the consumer's active runner to try the event again; false when no such parked event. */
export async function requestRetry(
  db: QueryExecutorProvider,
  consumer: string,
  eventId: string,
): Promise<boolean> {
  const r = await sql`UPDATE parked_events SET retry_requested_at = now()
    WHERE consumer = ${consumer} AND event_id = ${eventId}`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}

/** The retries operators asked for, oldest first (read by the consumer's active runner). */
export async function retryRequests(db: QueryExecutorProvider, consumer: string): Promise<ParkedEvent[]> {
  const r = await sql<Row>`SELECT * FROM parked_events
    WHERE consumer = ${consumer} AND retry_requested_at IS NOT NULL ORDER BY position`.execute(db);
  return r.rows.map(toParked);
}

/** A retry succeeded: the event is applied, the row goes. */
export async function unpark(db: QueryExecutorProvider, consumer: string, eventId: string) {
  await sql`DELETE FROM parked_events WHERE consumer = ${consumer} AND event_id = ${eventId}`.execute(db);
}

/** A retry failed again: keep it parked with the new error, and wait for the next request. */
export async function retryFailed(
  db: QueryExecutorProvider,
  consumer: string,
  eventId: string,
  error: unknown,
) {
  await sql`UPDATE parked_events
    SET error = ${parkedErrorText(error)}, attempts = attempts + 1, retry_requested_at = NULL
    WHERE consumer = ${consumer} AND event_id = ${eventId}`.execute(db);
}

/**
 * Takes a requested retry inside the caller's transaction: removes the row and says whether it was
 * there (still asked for). The retry then applies the event in that transaction; if that fails, the
 * rollback puts the row back. Two runners racing (one that lost its lock) cannot both apply it.
 */
export async function claimRetry(
  db: QueryExecutorProvider,
  consumer: string,
  eventId: string,
): Promise<boolean> {
  const r = await sql`DELETE FROM parked_events
    WHERE consumer = ${consumer} AND event_id = ${eventId} AND retry_requested_at IS NOT NULL`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}
