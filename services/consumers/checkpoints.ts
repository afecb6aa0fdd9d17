// Where each projection is in the log, and which version of its code built its tables.
import { type QueryExecutorProvider, sql } from 'kysely';
import type { Position } from '../eventstore/port.js';

/** SQLSTATE `projection_advance` raises when the checkpoint is not where the batch started. */
export const CHECKPOINT_MOVED = 'BFC01';

export async function ensureCheckpoints(db: QueryExecutorProvider) {
  await sql`CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name text PRIMARY KEY,
    position text NOT NULL,
    version integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  // The compare-and-set as a function that raises, so that it can end a single statement whose
  // CTEs are the batch's writes (batch-writes.ts): a failed move undoes them all.
  await sql`CREATE OR REPLACE FUNCTION projection_advance(p_name text, p_from text, p_to text)
    RETURNS void LANGUAGE plpgsql AS $fn$
    BEGIN
      -- updated_at names the state of the tables (services/app/read-cache.ts): strictly increasing,
      -- whatever the clock does.
      UPDATE projection_checkpoints
      SET position = p_to, updated_at = greatest(clock_timestamp(), updated_at + interval '1 microsecond')
      WHERE name = p_name AND position = p_from;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'checkpoint of % moved under us (expected %)', p_name, p_from
          USING ERRCODE = ${sql.lit(CHECKPOINT_MOVED)};
      END IF;
    END $fn$`.execute(db);
  // The same move over events the consumer had nothing to write for: its tables did not change, so
  // answers kept on them stay valid (updated_at untouched).
  await sql`CREATE OR REPLACE FUNCTION projection_advance_quiet(p_name text, p_from text, p_to text)
    RETURNS void LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE projection_checkpoints SET position = p_to WHERE name = p_name AND position = p_from;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'checkpoint of % moved under us (expected %)', p_name, p_from
          USING ERRCODE = ${sql.lit(CHECKPOINT_MOVED)};
      END IF;
    END $fn$`.execute(db);
}

export async function readCheckpoint(
  db: QueryExecutorProvider,
  name: string,
): Promise<{ position: Position; version: number } | null> {
  const r = await sql<{ position: string; version: number }>`
    SELECT position, version FROM projection_checkpoints WHERE name = ${name}`.execute(db);
  return r.rows[0] ?? null;
}

/**
 * Moves a checkpoint from `from` to `to` inside the caller's transaction, only if it still is at
 * `from` (compare-and-set): a runner that lost its lock, or raced a rebuild's swap, fails here
 * instead of applying anything twice.
 */
export async function moveCheckpoint(
  trx: QueryExecutorProvider,
  name: string,
  from: Position,
  to: Position,
  opts: { wrote: boolean } = { wrote: true },
) {
  if (opts.wrote) await sql`SELECT projection_advance(${name}, ${from}, ${to})`.execute(trx);
  else await sql`SELECT projection_advance_quiet(${name}, ${from}, ${to})`.execute(trx);
}
