// What a read model is: the events it handles, the tables it owns, and how an event changes rows.
// The runner (runner.ts) feeds it batches and moves its checkpoint in the same transaction.
import type { Kysely, Transaction } from 'kysely';
import type { Position, StoredEvent } from '../services/eventstore/port.js';

/** Published on Redis after the read-model commit, so gateways can push to GraphQL subscribers. */
export interface ChangeNotice {
  /** e.g. 'user', 'company', 'approval', 'activity' */
  topic: string;
  id: string;
  /** small extra facts for subscribers (status, version); never a whole row */
  data?: Record<string, unknown>;
  /**
   * The log position the read model had applied when this notice was published (the batch's end):
   * a row read after the notice arrives is at least that fresh. Set by the runner.
   */
  at?: Position;
}

export interface ProjectionContext {
  /** The Postgres schema the tables live in: 'public' when live, a scratch schema during a rebuild. */
  schema: string;
  /** Collects notices for this batch; published only after commit, and not during a rebuild. */
  notify(notice: ChangeNotice): void;
  /**
   * The rows the projection wrote earlier, by its own key, so it need not read its tables back. In a
   * rebuild, while `complete`, a key missing here is a row that does not exist (the scratch tables
   * hold only what this rebuild wrote). A live run remembers what it wrote (bounded, never complete).
   * Runners forget it all after a failed batch; a projection updates it as it writes, and only in
   * `applyBatch` (the one-by-one path gets none).
   */
  memory?: ProjectionMemory;
}

export interface ProjectionMemory {
  rows: RowMemory;
  complete: boolean;
}

/** A Map, or a bounded cache (a live run's memory: a key missing there is simply not remembered). */
export interface RowMemory {
  get(key: any): any;
  set(key: any, value: any): unknown;
  delete(key: any): unknown;
  clear(): void;
}

/**
 * `Tables` is the projection's own part of the read-model database (its tables, typed), so its
 * statements are checked against its columns.
 */
export interface Projection<Tables = unknown> {
  /** Unique, stable: the checkpoint key. */
  name: string;
  /** Bump when the tables or the handling change: the runner then rebuilds from the log. */
  version: number;
  /** Tables this projection owns (unqualified). A rebuild swaps exactly these. */
  tables: readonly string[];
  /** Event types handled; the others still move the checkpoint. */
  handles: readonly string[];
  /**
   * Optional: false for a handled event whose personal fields the projection never reads. A live
   * runner then gets it still sealed (no key unwrapped, nothing deciphered); decode it with the
   * module's decoder and `{ sealed: 'absent' }`. A rebuild still opens everything.
   */
  readsPersonal?(event: StoredEvent): boolean;
  /** Creates the tables (and indexes) in `schema`. Must not assume `public`. */
  setup(db: Kysely<Tables>, schema: string): Promise<void>;
  /**
   * Applies one event inside the batch transaction. Use `trx.withSchema(ctx.schema)`. Events are
   * decoded with the module's `eventDecoder` (services/shared/decider.ts) and handled by a switch on
   * their type, so each case reads typed data.
   */
  apply(trx: Transaction<Tables>, event: StoredEvent, ctx: ProjectionContext): Promise<void>;
  /**
   * Optional: applies a whole batch (handled events only, in log order) with a few set-based
   * statements instead of one per event. Runners prefer it; the result must equal applying one by one.
   * Live, its writes are held back and sent with the checkpoint move as one statement at the end
   * (batch-writes.ts): it must read before it writes, never read back what it wrote in the batch, and
   * not use what a write returns.
   */
  applyBatch?(trx: Transaction<Tables>, events: StoredEvent[], ctx: ProjectionContext): Promise<void>;
}

/**
 * A projection of whichever tables: what runners and registries hold. A runner knows no projection's
 * tables (its own SQL is raw, on the schema it is given) and hands each projection its connection;
 * the projection's own statements are typed by its `Tables`.
 */
// biome-ignore lint/suspicious/noExplicitAny: erases each projection's table types in mixed lists
export type AnyProjection = Projection<any>;
