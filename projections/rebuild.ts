// Builds a projection from the whole log into fresh tables in a scratch schema, then swaps them in
// with its checkpoint in one transaction. The live tables keep serving reads until the swap.
// The caller holds the projection's advisory lock, so nothing else applies events meanwhile.
// An event the projection's code fails on is parked (once: a rebuild does not wait on retries) and
// the rest is built; the swap replaces the projection's parked events with those of this build
// (dismissed ones stay on record).
import { randomBytes } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import { FORGETTING_EVENTS } from '../schema/shared/events.js';
import { ensureConsumerTables } from '../services/consumers/lease.js';
import { parkEvent } from '../services/consumers/parked.js';
import { ConsumerCodeError, isPoison } from '../services/consumers/poison.js';
import { readAhead } from '../services/consumers/read-ahead.js';
import type { EventStore, Position, StoredEvent } from '../services/eventstore/port.js';
import { START } from '../services/eventstore/port.js';
import type { Database } from './database.js';
import type { AnyProjection, ProjectionContext } from './projection.js';

/** `events`: how many events of the projection's types (and forgetting events) the build read. */
export async function rebuildProjection(
  db: Kysely<Database>,
  store: EventStore,
  p: AnyProjection,
  opts: { batchSize?: number } = {},
): Promise<{ events: number; position: Position; parked: number }> {
  // Under the start-up lock: two rebuilds at once (two new projections) would otherwise both run
  // CREATE OR REPLACE FUNCTION and one fail with "tuple concurrently updated".
  await ensureConsumerTables(db);
  const scratch = `rb_${p.name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  await sql`CREATE SCHEMA ${sql.id(scratch)}`.execute(db);
  try {
    await p.setup(db, scratch);
    const batchSize = opts.batchSize ?? 2000;
    let position: Position = START;
    let events = 0;
    const ctx: ProjectionContext = {
      schema: scratch,
      notify: () => {},
      memory: { rows: new Map(), complete: true },
    };
    const poisoned: Array<{ event: StoredEvent; error: unknown }> = [];
    // Only the events it handles: a projection of users skips a log of vendors and approvals. And
    // every forgetting event, which drops its subject's key where it stands in the log, as a live
    // subscription does. The next batches are opened and read while this one is applied.
    const types = [...new Set([...p.handles, ...FORGETTING_EVENTS])];
    // Where the build ends when the log's last events are of other types: it has passed them too.
    const head = await store.headPosition();
    for await (const batch of readAhead(store, START, batchSize, types)) {
      const handled = batch.filter((e) => p.handles.includes(e.type));
      if (handled.length > 0) {
        try {
          await db.transaction().execute((trx) => applyEvents(p, trx, handled, ctx));
        } catch (err) {
          // What the failed batch left in memory was rolled back in the tables.
          ctx.memory = { rows: new Map(), complete: false };
          if (!isPoison(err)) throw err;
          // One event at a time: the culprits are set aside, the others applied.
          for (const e of handled) {
            try {
              await db.transaction().execute((trx) => applyEvents(p, trx, [e], ctx));
            } catch (one) {
              ctx.memory = { rows: new Map(), complete: false };
              if (!isPoison(one)) throw one;
              poisoned.push({ event: e, error: one.error });
            }
          }
        }
      }
      events += batch.length;
      position = batch[batch.length - 1].position;
    }
    if (head > position) position = head;
    await db.transaction().execute(async (trx) => {
      // The live tables first, then the checkpoint row: the order every writer takes them in (a live
      // batch's one statement locks its tables when it is parsed, before its checkpoint move runs).
      // The swap waits for a batch in flight, and the next one waits for the swap, then finds its
      // checkpoint moved and starts over from it; no deadlock.
      await lockTables(trx, p, 'ACCESS EXCLUSIVE');
      await sql`INSERT INTO projection_checkpoints(name, position, version) VALUES (${p.name}, '', ${p.version})
        ON CONFLICT (name) DO NOTHING`.execute(trx);
      await sql`SELECT 1 FROM projection_checkpoints WHERE name = ${p.name} FOR UPDATE`.execute(trx);
      for (const table of p.tables) {
        await sql`DROP TABLE IF EXISTS ${sql.id('public', table)} CASCADE`.execute(trx);
        await sql`ALTER TABLE ${sql.id(scratch, table)} SET SCHEMA public`.execute(trx);
      }
      await sql`
        INSERT INTO projection_checkpoints(name, position, version, updated_at)
        VALUES (${p.name}, ${position}, ${p.version}, clock_timestamp())
        ON CONFLICT (name) DO UPDATE SET position = excluded.position, version = excluded.version,
          updated_at = greatest(clock_timestamp(), projection_checkpoints.updated_at + interval '1 microsecond')
      `.execute(trx);
      // Parked events of the old tables are moot: this build applied the log afresh. Dismissed ones
      // stay on record (and stay dismissed should this build park them again).
      await sql`DELETE FROM parked_events WHERE consumer = ${p.name} AND dismissed_at IS NULL`.execute(trx);
      for (const { event, error } of poisoned) await parkEvent(trx, p.name, event, error, 1);
    });
    return { events, position, parked: poisoned.length };
  } finally {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(scratch)} CASCADE`.execute(db);
  }
}

/** Locks the projection's live tables that exist, in the caller's transaction. */
export async function lockTables(
  trx: Transaction<Database>,
  p: AnyProjection,
  mode: 'ACCESS EXCLUSIVE' | 'ROW EXCLUSIVE',
) {
  const existing = await sql<{ t: string }>`
    SELECT t FROM unnest(${[...p.tables]}::text[]) AS t WHERE to_regclass('public.' || quote_ident(t)) IS NOT NULL`.execute(
    trx,
  );
  if (existing.rows.length === 0) return;
  await sql`LOCK TABLE ${sql.join(existing.rows.map((r) => sql.id('public', r.t)))} IN ${sql.raw(mode)} MODE`.execute(
    trx,
  );
}

async function applyEvents(
  p: AnyProjection,
  trx: Transaction<Database>,
  events: StoredEvent[],
  ctx: ProjectionContext,
) {
  // Scratch tables: a crash abandons them and the next start builds again, so these commits need
  // not wait for their WAL flush (the swap does).
  await sql`SET LOCAL synchronous_commit = off`.execute(trx);
  try {
    if (p.applyBatch) await p.applyBatch(trx, events, ctx);
    else for (const e of events) await p.apply(trx, e, ctx);
  } catch (err) {
    throw new ConsumerCodeError(err);
  }
}
