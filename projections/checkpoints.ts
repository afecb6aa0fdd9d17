// Where each projection is in the log, and which version of its code built its tables.
import { type Kysely, sql } from 'kysely';
import type { Position } from '../services/eventstore/port.js';

export async function ensureCheckpoints(db: Kysely<any>) {
  await sql`CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name text PRIMARY KEY,
    position text NOT NULL,
    version integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
}

export async function readCheckpoint(
  db: Kysely<any>,
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
export async function moveCheckpoint(trx: Kysely<any>, name: string, from: Position, to: Position) {
  const moved = await sql<{ name: string }>`
    UPDATE projection_checkpoints SET position = ${to}, updated_at = now()
    WHERE name = ${name} AND position = ${from} RETURNING name`.execute(trx);
  if (moved.rows.length !== 1) throw new Error(`checkpoint of ${name} moved under us (expected ${from})`);
}
