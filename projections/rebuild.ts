// Builds a projection from the whole log into fresh tables in a scratch schema, then swaps them in
// with its checkpoint in one transaction. The live tables keep serving reads until the swap.
// The caller holds the projection's advisory lock, so nothing else applies events meanwhile.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { EventStore, Position } from '../services/eventstore/port.js';
import { START } from '../services/eventstore/port.js';
import { ensureCheckpoints } from './checkpoints.js';
import type { Projection } from './projection.js';

export async function rebuildProjection(
  db: Kysely<any>,
  store: EventStore,
  p: Projection,
  opts: { batchSize?: number } = {},
): Promise<{ events: number; position: Position }> {
  await ensureCheckpoints(db);
  const scratch = `rb_${p.name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  await sql`CREATE SCHEMA ${sql.id(scratch)}`.execute(db);
  try {
    await p.setup(db, scratch);
    const batchSize = opts.batchSize ?? 2000;
    let position: Position = START;
    let events = 0;
    const ctx = { schema: scratch, notify: () => {} };
    for (;;) {
      const batch = await store.readAll(position, batchSize);
      if (batch.length === 0) break;
      const handled = batch.filter((e) => p.handles.includes(e.type));
      if (handled.length > 0) {
        await db.transaction().execute(async (trx) => {
          if (p.applyBatch) await p.applyBatch(trx, handled, ctx);
          else for (const e of handled) await p.apply(trx, e, ctx);
        });
      }
      events += batch.length;
      position = batch[batch.length - 1].position;
    }
    await db.transaction().execute(async (trx) => {
      // The checkpoint row first, as a live runner's batch takes it first too: the swap waits for a
      // batch in flight (and the next one waits for the swap) instead of deadlocking on the tables.
      await sql`INSERT INTO projection_checkpoints(name, position, version) VALUES (${p.name}, '', ${p.version})
        ON CONFLICT (name) DO NOTHING`.execute(trx);
      await sql`SELECT 1 FROM projection_checkpoints WHERE name = ${p.name} FOR UPDATE`.execute(trx);
      for (const table of p.tables) {
        await sql`DROP TABLE IF EXISTS ${sql.id('public', table)} CASCADE`.execute(trx);
        await sql`ALTER TABLE ${sql.id(scratch, table)} SET SCHEMA public`.execute(trx);
      }
      await sql`
        INSERT INTO projection_checkpoints(name, position, version, updated_at)
        VALUES (${p.name}, ${position}, ${p.version}, now())
        ON CONFLICT (name) DO UPDATE SET position = excluded.position, version = excluded.version, updated_at = now()
      `.execute(trx);
    });
    return { events, position };
  } finally {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(scratch)} CASCADE`.execute(db);
  }
}
