// Parked events: an event that a projection or a process manager kept failing on, set aside with its
// error so the consumer can go on with the rest of the log. An operator retries it from the
// operations page after a fix; the consumer's active runner (the only one allowed to apply) picks the
// request up and either clears the row or records the new error. Or an ADMIN dismisses it: the row
// stays, on record with who, when and why, but no longer counts as parked and is never retried.
import { type QueryExecutorProvider, sql } from 'kysely';
import type { StoredEvent } from '../eventstore/port.js';

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
  /** Set aside by an ADMIN (dismissParked): when, by which user, and why. */
  dismissedAt: Date | null;
  dismissedBy: number | null;
  dismissReason: string | null;
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
    dismissed_at timestamptz,
    dismissed_by integer,
    dismiss_reason text,
    PRIMARY KEY (consumer, event_id))`.execute(db);
  // A table made before dismissals: the columns are added once (looked up first, so a start does not
  // take the table's exclusive lock for nothing).
  const has = await sql`SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'parked_events' AND column_name = 'dismissed_at'`.execute(
    db,
  );
  if (has.rows.length === 0)
    await sql`ALTER TABLE parked_events ADD COLUMN IF NOT EXISTS dismissed_at timestamptz,
      ADD COLUMN IF NOT EXISTS dismissed_by integer, ADD COLUMN IF NOT EXISTS dismiss_reason text`.execute(
      db,
    );
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
  dismissed_at: Date | null;
  dismissed_by: number | null;
  dismiss_reason: string | null;
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
  dismissedAt: r.dismissed_at,
  dismissedBy: r.dismissed_by,
  dismissReason: r.dismiss_reason,
});

export async function listParked(db: QueryExecutorProvider, consumer?: string): Promise<ParkedEvent[]> {
  const r = await sql<Row>`SELECT * FROM parked_events
    WHERE ${consumer === undefined ? sql`true` : sql`consumer = ${consumer}`}
    ORDER BY consumer, position`.execute(db);
  return r.rows.map(toParked);
}

/** Parked events per consumer (consumers with none are absent); dismissed ones do not count. */
export async function parkedCounts(db: QueryExecutorProvider): Promise<Record<string, number>> {
  const r = await sql<{ consumer: string; n: number }>`
    SELECT consumer, count(*)::int AS n FROM parked_events WHERE dismissed_at IS NULL
    GROUP BY consumer`.execute(db);
  return Object.fromEntries(r.rows.map((row) => [row.consumer, row.n]));
}

/**
 * Asks the consumer's active runner to try the event again; false when no such parked event (a
 * dismissed one is not retried).
 */
export async function requestRetry(
  db: QueryExecutorProvider,
  consumer: string,
  eventId: string,
): Promise<boolean> {
  const r = await sql`UPDATE parked_events SET retry_requested_at = now()
    WHERE consumer = ${consumer} AND event_id = ${eventId} AND dismissed_at IS NULL`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}

/**
 * Sets a parked event aside for good, on record: who, when, why. A retry asked for and not yet
 * taken is withdrawn; one the runner already took (the row gone) leaves nothing to dismiss.
 */
export async function dismissParked(
  db: QueryExecutorProvider,
  consumer: string,
  eventId: string,
  byUserId: number,
  reason: string,
): Promise<'dismissed' | 'already dismissed' | 'not found'> {
  const r = await sql`UPDATE parked_events
    SET dismissed_at = now(), dismissed_by = ${byUserId}, dismiss_reason = ${reason}, retry_requested_at = NULL
    WHERE consumer = ${consumer} AND event_id = ${eventId} AND dismissed_at IS NULL`.execute(db);
  if (Number(r.numAffectedRows ?? 0) > 0) return 'dismissed';
  const row = await sql`SELECT 1 FROM parked_events
    WHERE consumer = ${consumer} AND event_id = ${eventId}`.execute(db);
  return row.rows.length > 0 ? 'already dismissed' : 'not found';
}

/** Whether the event is parked and was dismissed (a retry of it is refused as such). */
export async function isDismissed(db: QueryExecutorProvider, consumer: string, eventId: string) {
  const r = await sql`SELECT 1 FROM parked_events
    WHERE consumer = ${consumer} AND event_id = ${eventId} AND dismissed_at IS NOT NULL`.execute(db);
  return r.rows.length > 0;
}

/** The retries operators asked for, oldest first (read by the consumer's active runner). */
export async function retryRequests(db: QueryExecutorProvider, consumer: string): Promise<ParkedEvent[]> {
  const r = await sql<Row>`SELECT * FROM parked_events
    WHERE consumer = ${consumer} AND retry_requested_at IS NOT NULL AND dismissed_at IS NULL
    ORDER BY position`.execute(db);
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
    WHERE consumer = ${consumer} AND event_id = ${eventId} AND retry_requested_at IS NOT NULL
      AND dismissed_at IS NULL`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}
