// Runs projections: catch-up then live, one transaction per batch that applies the events and moves
// the checkpoint together (compare-and-set), so a crash anywhere never loses or doubles an event.
// Exactly one active runner per projection across processes: a Postgres advisory lock; the others
// stand by and take over when the holder's connection goes away.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Logger } from '../services/app/context.js';
import type { EventStore, Position, StoredEvent } from '../services/eventstore/port.js';
import { START } from '../services/eventstore/port.js';
import { ensureCheckpoints, readCheckpoint } from './checkpoints.js';
import type { ChangeNotice, Projection } from './projection.js';
import { rebuildProjection } from './rebuild.js';

export interface RunnerOptions {
  pool: pg.Pool;
  store: EventStore;
  projections: Projection[];
  redis: Redis;
  prefix: string;
  log: Logger;
  batchSize?: number;
  /** How often a standby tries to take the lock (ms). */
  standbyRetryMs?: number;
  /** Pause before starting over from the checkpoint after a failure (ms). */
  restartDelayMs?: number;
  /**
   * Fault injection for tests: called at each step of a batch; throwing there (or killing the
   * connection through `trx`) simulates a crash at that point.
   */
  faults?: (point: FaultPoint, trx?: Transaction<any>) => void | Promise<void>;
}

export type FaultPoint = 'batch:start' | 'checkpoint:moved' | 'batch:applied' | 'batch:committed';

/** A stable 63-bit key per projection name for pg_advisory_lock. */
export function lockKey(name: string): string {
  return BigInt.asIntN(
    64,
    BigInt(`0x${createHash('sha256').update(`projection:${name}`).digest('hex').slice(0, 16)}`),
  ).toString();
}

export class ProjectionRunner {
  private readonly db: Kysely<any>;
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly lockClients = new Set<pg.Client>();
  /** Names of the projections this runner is actively applying (the others it stands by for). */
  readonly active = new Set<string>();

  constructor(private readonly opts: RunnerOptions) {
    this.db = new Kysely({ dialect: new PostgresDialect({ pool: opts.pool }) });
  }

  async start() {
    await ensureCheckpoints(this.db);
    for (const p of this.opts.projections) this.loops.push(this.supervise(p));
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.abort.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Standby until the lock is ours, then run; start over after any failure. */
  private async supervise(p: Projection) {
    while (!this.abort.signal.aborted) {
      const client = new pg.Client(this.opts.pool.options);
      let lost = false;
      client.on('error', () => {
        lost = true;
      });
      try {
        await client.connect();
        this.lockClients.add(client);
        const got = await client.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [lockKey(p.name)]);
        if (!got.rows[0].ok) {
          await this.sleep(this.opts.standbyRetryMs ?? 1000);
          continue;
        }
        this.active.add(p.name);
        await this.run(p, () => lost);
      } catch (err) {
        if (!this.abort.signal.aborted) {
          this.opts.log.error(
            { projection: p.name, err: String(err) },
            'projection failed; restarting from its checkpoint',
          );
          await this.sleep(this.opts.restartDelayMs ?? 500);
        }
      } finally {
        this.active.delete(p.name);
        this.lockClients.delete(client);
        await client.end().catch(() => {});
      }
    }
  }

  private async run(p: Projection, lockLost: () => boolean) {
    let checkpoint = await readCheckpoint(this.db, p.name);
    if (!checkpoint || checkpoint.version !== p.version) {
      this.opts.log.info(
        { projection: p.name, from: checkpoint?.version ?? null, to: p.version },
        'rebuilding projection',
      );
      await rebuildProjection(this.db, this.opts.store, p, { batchSize: this.opts.batchSize });
      checkpoint = await readCheckpoint(this.db, p.name);
    }
    let position: Position = checkpoint?.position ?? START;
    const batchSize = this.opts.batchSize ?? 500;
    let buffer: StoredEvent[] = [];
    for await (const msg of this.opts.store.subscribe({
      after: position,
      signal: this.abort.signal,
      batchSize,
    })) {
      if (lockLost()) throw new Error('advisory lock connection lost');
      if (msg.kind === 'event') buffer.push(msg.event);
      if (buffer.length > 0 && (buffer.length >= batchSize || msg.kind === 'caughtUp')) {
        position = await this.applyBatch(p, position, buffer);
        buffer = [];
      }
    }
  }

  /** Applies a batch and moves the checkpoint from `from` in one transaction; publishes after commit. */
  private async applyBatch(p: Projection, from: Position, events: StoredEvent[]): Promise<Position> {
    const to = events[events.length - 1].position;
    const notices: ChangeNotice[] = [];
    const ctx = { schema: 'public', notify: (n: ChangeNotice) => notices.push(n) };
    const fault = this.opts.faults;
    await fault?.('batch:start');
    await this.db.transaction().execute(async (trx) => {
      const moved = await sql<{ name: string }>`
        UPDATE projection_checkpoints SET position = ${to}, updated_at = now()
        WHERE name = ${p.name} AND position = ${from} RETURNING name`.execute(trx);
      if (moved.rows.length !== 1)
        throw new Error(`checkpoint of ${p.name} moved under us (expected ${from})`);
      await fault?.('checkpoint:moved', trx);
      const handled = events.filter((e) => p.handles.includes(e.type));
      if (p.applyBatch) {
        if (handled.length > 0) await p.applyBatch(trx, handled, ctx);
      } else for (const e of handled) await p.apply(trx, e, ctx);
      await fault?.('batch:applied', trx);
    });
    await fault?.('batch:committed');
    const multi = this.opts.redis.multi();
    if (notices.length) multi.publish(`${this.opts.prefix}:changes`, JSON.stringify(notices));
    multi.publish(`${this.opts.prefix}:checkpoint`, JSON.stringify({ name: p.name, position: to }));
    await multi
      .exec()
      .catch((err) => this.opts.log.warn({ err: String(err) }, 'publish after commit failed'));
    return to;
  }

  async stop() {
    this.abort.abort();
    // Ending the lock connections releases the locks at once, so a standby can take over.
    for (const c of this.lockClients) await c.end().catch(() => {});
    await Promise.allSettled(this.loops);
  }
}
