// A read model's indexes keep one name in every schema ('vendors_name_idx'). A rebuild builds its
// tables in a scratch schema and moves them into public with their indexes (rebuild.ts); index names
// are per schema, so the moved indexes keep the names setup gives, and the next setup on public finds
// them (CREATE INDEX IF NOT EXISTS) instead of adding a second copy.
//
// Until 2026-11-26 the names carried the schema ('vendors_name_public', 'vendors_name_rb_vendors_
// 1f18c76e'): after a rebuild and a restart every read-model table held each of its indexes twice.
// Every write maintained both copies (two trigram indexes on the vendors), and they took twice the
// disk. Those old names are dropped here once the new ones exist.
import { type Kysely, sql } from 'kysely';
import pg from 'pg';

/** Old index names: the schema's name at the end (public, or a rebuild's scratch rb_<name>_<hex>). */
const LEGACY_NAME = '_(public|rb_[a-z0-9_]+_[0-9a-f]{8})$';

/** The old-named indexes of these public tables. */
export async function legacyIndexes(db: Kysely<any>, tables: readonly string[]): Promise<string[]> {
  if (tables.length === 0) return [];
  const { rows } = await sql<{ name: string }>`
    SELECT i.indexname AS name FROM pg_indexes i
    WHERE i.schemaname = 'public' AND i.tablename = ANY(${[...tables]}::text[]) AND i.indexname ~ ${LEGACY_NAME}
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * Drops the old-named indexes of these public tables: call it after the projections' setup has made
 * the new ones. CONCURRENTLY, so that reads and writes of a running product go on meanwhile; a
 * bounded wait for locks, so that a start never hangs on it (what is left is dropped at the next).
 */
export async function dropLegacyIndexes(
  pool: pg.Pool,
  db: Kysely<any>,
  tables: readonly string[],
): Promise<{ dropped: string[]; left: string[]; error?: string }> {
  const names = await legacyIndexes(db, tables);
  const dropped: string[] = [];
  const left: string[] = [];
  let error: string | undefined;
  if (names.length === 0) return { dropped, left };
  const client = await pool.connect();
  try {
    await client.query("SET lock_timeout = '5s'");
    for (const name of names) {
      try {
        await client.query(`DROP INDEX CONCURRENTLY IF EXISTS public.${pg.escapeIdentifier(name)}`);
        dropped.push(name);
      } catch (err) {
        // Postgres's reason (a lock wait that ran out, most likely): it names the index, nothing else.
        left.push(name);
        error = err instanceof Error ? err.message : String(err);
      }
    }
  } finally {
    await client.query('RESET lock_timeout').catch(() => {});
    client.release();
  }
  return { dropped, left, error };
}
