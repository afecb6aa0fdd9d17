// A live projection batch in one round trip. On this host a statement costs about as much as the
// work in it (waking a Postgres backend on the other vCPU), and a batch used to be five: BEGIN, the
// checkpoint's compare-and-set, a read, the upsert, COMMIT. Here the projection's code runs against
// a Kysely whose writes are held back (its reads go straight to the pool: the runner is the only
// writer of these tables, and the previous batch has committed), then the writes and the checkpoint
// move go as one statement: each write a data-modifying CTE, the main query the compare-and-set
// (`projection_advance`, which raises when the checkpoint moved under us). One statement is one
// transaction, so a crash or a failure anywhere leaves rows and checkpoint as they were.
// Writes that cannot be composed (a WITH of their own, two writes to one table, literals in the
// text) go as a transaction, the compare-and-set last (tables before the checkpoint row: rebuild.ts).
import { createHash } from 'node:crypto';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type Transaction,
} from 'kysely';
import type pg from 'pg';
import { CHECKPOINT_MOVED, moveCheckpoint } from '../services/consumers/checkpoints.js';
import { ConsumerCodeError, isTransientError } from '../services/consumers/poison.js';
import type { Position } from '../services/eventstore/port.js';
import type { Database } from './database.js';

const WRITE = /^\s*(insert|update|delete|merge|with)\b/i;
const TARGET = /^\s*(?:insert\s+into|update|delete\s+from)\s+((?:"[^"]+"\.)?"[^"]+")/i;
/** Kysely's Postgres placeholders; composing renumbers them. */
const PLACEHOLDER = /\$(\d+)/g;
const MAX_PARAMETERS = 65_000;

function isWrite(q: CompiledQuery): boolean {
  const kind = q.query.kind;
  if (kind === 'SelectQueryNode') return false;
  if (kind === 'InsertQueryNode' || kind === 'UpdateQueryNode' || kind === 'DeleteQueryNode') return true;
  return WRITE.test(q.sql);
}

/**
 * One statement for the writes and the checkpoint move, or null when they cannot share one: a write
 * with its own WITH (data-modifying CTEs must sit at the top), two writes to one table (one
 * statement's CTEs must not touch a row twice), a quote or a `$` that is not a placeholder.
 */
export function composeBatch(
  writes: readonly CompiledQuery[],
  name: string,
  from: Position,
  to: Position,
): CompiledQuery | null {
  const targets = new Set<string>();
  const parts: string[] = [];
  const parameters: unknown[] = [];
  for (const w of writes) {
    const target = TARGET.exec(w.sql)?.[1];
    if (!target || targets.has(target) || /['$]/.test(w.sql.replace(PLACEHOLDER, ''))) return null;
    targets.add(target);
    const offset = parameters.length;
    parts.push(`w${parts.length} AS (${w.sql.replace(PLACEHOLDER, (_, n) => `$${Number(n) + offset}`)})`);
    parameters.push(...w.parameters);
  }
  if (parameters.length + 3 > MAX_PARAMETERS) return null;
  const n = parameters.length;
  parameters.push(name, from, to);
  const main = `SELECT projection_advance($${n + 1}, $${n + 2}, $${n + 3})`;
  return CompiledQuery.raw(parts.length ? `WITH ${parts.join(', ')} ${main}` : main, parameters);
}

/**
 * A name for a batch statement's text, so each connection parses and plans it once: a batch's text
 * is the same from one batch to the next (the users upsert takes arrays; one-row inserts repeat), and
 * Postgres parsed and planned each one afresh, a long CTE statement per projection per batch.
 * Bounded: past MAX_NAMED distinct texts (inserts of many row counts) the rest go unnamed.
 */
const MAX_NAMED = 200;
const names = new Map<string, string>();
function statementName(text: string): string | undefined {
  const known = names.get(text);
  if (known || names.size >= MAX_NAMED) return known;
  const name = `bw_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  names.set(text, name);
  return name;
}

/** A projection's batch: reads run now, writes wait for `commit`. One per projection run. */
export class BatchWrites<DB = Database> {
  private pending: CompiledQuery[] = [];
  /** Runs the projection's code (it sees a transaction; nothing is sent until `commit`). */
  readonly db: Kysely<DB>;

  constructor(
    private readonly pool: pg.Pool,
    /** Where commits go: the consumer pool, through Kysely (its transactions). */
    private readonly batches: Kysely<DB>,
  ) {
    const pending = () => this.pending;
    const connection: DatabaseConnection = {
      async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
        if (isWrite(q)) {
          pending().push(q);
          return { rows: [] };
        }
        const r = await pool.query({ text: q.sql, values: q.parameters as unknown[] });
        return { rows: r.rows as R[] };
      },
      // biome-ignore lint/correctness/useYield: never streams; says so when asked
      async *streamQuery() {
        throw new Error('a projection batch does not stream');
      },
    };
    const driver: Driver = {
      async init() {},
      async acquireConnection() {
        return connection;
      },
      async beginTransaction() {},
      async commitTransaction() {},
      async rollbackTransaction() {
        pending().length = 0;
      },
      async releaseConnection() {},
      async destroy() {},
    };
    this.db = new Kysely<DB>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => driver,
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
  }

  /** Runs `fn` (the projection's code) with the writes held back; an error drops them. */
  async collect(fn: (trx: Transaction<DB>) => Promise<void>): Promise<void> {
    this.pending = [];
    await this.db.transaction().execute(fn);
  }

  /**
   * Sends the held writes with the checkpoint move from `from` to `to`, atomically. A failure of a
   * write itself (a constraint, a bad value) comes back as the projection's (ConsumerCodeError: a
   * candidate for parking); a lost connection or a moved checkpoint restarts the runner.
   * `afterMove` is the runner's fault hook for the transaction path.
   */
  async commit(
    name: string,
    from: Position,
    to: Position,
    afterMove?: (trx: Transaction<DB>) => Promise<void>,
  ): Promise<void> {
    const writes = this.pending;
    this.pending = [];
    const composed = composeBatch(writes, name, from, to);
    try {
      if (composed) {
        await this.pool.query({
          name: statementName(composed.sql),
          text: composed.sql,
          values: composed.parameters as unknown[],
        });
        return;
      }
      // Tables before the checkpoint row, as in the one statement (and everywhere: rebuild.ts).
      await this.batches.transaction().execute(async (trx) => {
        for (const w of writes) await trx.executeQuery(w);
        await moveCheckpoint(trx, name, from, to);
        await afterMove?.(trx);
      });
    } catch (err) {
      throw asConsumerError(err);
    }
  }
}

/** A write's own failure is the projection's; the database going away or a moved checkpoint is not. */
function asConsumerError(err: unknown): unknown {
  const code = (err as { code?: unknown })?.code;
  if (code === CHECKPOINT_MOVED || isTransientError(err)) return err;
  // SQLSTATEs that name the data or the statement: 22 data exception, 23 integrity, 42 syntax/rules.
  if (typeof code === 'string' && /^(22|23|42)/.test(code)) return new ConsumerCodeError(err);
  return err;
}
