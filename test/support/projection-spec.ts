// Given/when/then for projections, against the real test Postgres (the deciders' counterpart:
// decider-spec.ts). Given past events, when more events, then these rows (and these notices).
//
// Each run sets the projection up in a fresh scratch schema and applies the events one by one
// through `apply`. When the projection has an `applyBatch`, the same events also go through it, into
// a scratch schema per kind of memory the runners hand it (none, a live run's, a rebuild's), and every
// one of them must end with the same rows in every table the projection owns, and the same notices:
// what a batch path promises (projections/projection.ts). The rows and notices a test then asserts
// are the one-by-one path's.
import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, type Selectable, sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import type {
  AnyProjection,
  ChangeNotice,
  Projection,
  ProjectionContext,
  ProjectionMemory,
} from '../../projections/projection.js';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { EventMetadata, StoredEvent } from '../../services/eventstore/port.js';
import { createTestDatabase } from './db.js';

// ---------------------------------------------------------------------------------------------------
// Stored events

const BASE = Date.parse('2026-03-01T10:00:00.000Z');
const STEP_MS = 60_000;
let position = 0;

/** The time an event at position `n` is stored at, unless it says otherwise: a minute apart. */
export const eventTimeOf = (n: number) => new Date(BASE + n * STEP_MS).toISOString();
/** The time the next `storedEvent` will be stored at (for an event's own `at`, to match it). */
export const nextEventAt = () => eventTimeOf(position + 1);

export interface StoredEventOptions {
  /** Default 'test-1'. */
  streamId?: string;
  /** Default: the event's position (each event one further in its stream). */
  streamVersion?: number;
  /** The actor, as metadata.userId; null for the system. Absent: no actor in the metadata. */
  userId?: string | number | null;
  /** Further metadata. */
  metadata?: EventMetadata;
  /** Default: the type's current version (1 for a type the schema does not know). */
  schemaVersion?: number;
  /** createdAt. Default: a minute after the previous event's default (eventTimeOf). */
  at?: string | Date;
  id?: string;
}

/**
 * A StoredEvent as the log hands it to a projection, at the next position (positions only grow, in
 * a test file). `storedEvent(type, data, opts)`, or `storedEvent(event, opts)` for a typed event.
 */
export function storedEvent<T = unknown>(type: string, data: T, opts?: StoredEventOptions): StoredEvent<T>;
export function storedEvent<E extends { type: string; data: unknown }>(
  event: E,
  opts?: StoredEventOptions,
): StoredEvent<E['data']>;
export function storedEvent<T>(
  first: string | { type: string; data: T },
  second?: T | StoredEventOptions,
  third?: StoredEventOptions,
): StoredEvent<T> {
  const [type, data, opts] =
    typeof first === 'string'
      ? [first, second as T, third ?? {}]
      : [first.type, first.data, (second as StoredEventOptions | undefined) ?? {}];
  const n = ++position;
  const metadata: EventMetadata = { ...opts.metadata };
  if (opts.userId !== undefined) metadata.userId = opts.userId === null ? null : String(opts.userId);
  return {
    id: opts.id ?? randomUUID(),
    type,
    schemaVersion: opts.schemaVersion ?? currentVersion(type),
    streamId: opts.streamId ?? 'test-1',
    streamVersion: opts.streamVersion ?? n,
    position: String(n).padStart(10, '0'),
    data,
    metadata,
    createdAt: new Date(opts.at ?? eventTimeOf(n)),
  };
}

function currentVersion(type: string): number {
  try {
    return schemaVersionOf(type);
  } catch {
    return 1;
  }
}

// ---------------------------------------------------------------------------------------------------
// The database

/** A fresh test database for the file (hooks registered where this is called), as a Kysely. */
export function projectionTestDatabase<Tables = unknown>(
  label = 'projection_spec',
): { readonly db: Kysely<Tables> } {
  let db: Kysely<Tables> | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const tdb = await createTestDatabase(label);
    db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: tdb.pool }) });
    drop = tdb.drop;
  });
  afterAll(async () => {
    await drop?.();
  });
  return {
    get db() {
      if (!db) throw new Error('The test database is made in beforeAll: use it inside a test');
      return db;
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The spec

/** The memory a batch path is handed: none, a live run's (kept across batches, never complete), a rebuild's (complete). */
export type BatchMemory = 'none' | 'live' | 'rebuild';

export interface ProjectionSpecOptions<Tables> {
  /** The database to use. Default: a fresh one for the file (projectionTestDatabase). */
  db?: () => Kysely<Tables>;
  /** Which memories the batch path is run with, each into its own schema; [] runs no batch path. Default all three. */
  batchMemory?: readonly BatchMemory[];
  /** How the batch path's notices must match the one-by-one path's. Default 'in order'. */
  notices?: 'in order' | 'in any order';
  /**
   * The rows of a table that count when the paths are compared (each as JSON: to_jsonb of the row),
   * for a table where both paths may leave rows that say nothing, such as a total at zero.
   */
  rowsThatCount?: { [T in keyof Tables]?: (row: Record<string, unknown>) => boolean };
}

export interface WhenOptions {
  /**
   * Where the batch path cuts the events (the given ones followed by the when ones) into batches, as
   * indexes into them. Default: the given events one batch, the when events the next.
   */
  batchCuts?: readonly number[];
}

export interface ReadOptions {
  /** Columns, each 'name' or 'name desc'. */
  orderBy?: string | readonly string[];
  /** Only these columns. */
  select?: readonly string[];
}

export interface Then<Tables> {
  /** A table's rows as the events left them (the one-by-one path's schema). */
  read<T extends keyof Tables & string>(table: T, opts?: ReadOptions): Promise<Selectable<Tables[T]>[]>;
  /** The notices the when events gave, one by one. */
  notices: ChangeNotice[];
  /** The database, and the schema the one-by-one path wrote, for reads of one's own. */
  db: Kysely<Tables>;
  schema: string;
}

export function projectionSpec<Tables>(
  projection: Projection<Tables>,
  options: ProjectionSpecOptions<Tables> = {},
) {
  const dbOf = options.db ?? (() => own.db);
  const own = options.db ? { db: undefined as never } : projectionTestDatabase<Tables>(projection.name);
  const memories = options.batchMemory ?? (['none', 'live', 'rebuild'] as const);

  async function run(
    given: StoredEvent[],
    when: StoredEvent[],
    whenOptions: WhenOptions,
  ): Promise<Then<Tables>> {
    const db = dbOf();
    const id = randomBytes(4).toString('hex');
    const schema = `spec_${id}`;
    await db.schema.createSchema(schema).execute();
    await projection.setup(db, schema);

    // One by one: the given events, then the when events, each phase in a transaction.
    const all: ChangeNotice[] = [];
    const whenNotices: ChangeNotice[] = [];
    for (const [events, phaseNotices] of [
      [given, null],
      [when, whenNotices],
    ] as const)
      await db.transaction().execute(async (trx) => {
        const ctx: ProjectionContext = {
          schema,
          notify: (n) => {
            all.push(n);
            phaseNotices?.push(n);
          },
        };
        for (const e of handled(projection, events)) await projection.apply(trx, e, ctx);
      });

    if (projection.applyBatch) {
      const events = [...given, ...when];
      const cuts = whenOptions.batchCuts ?? (given.length > 0 ? [given.length] : []);
      const batches = cutAt(events, cuts);
      const expected = await snapshot(db, projection, schema);
      for (const memory of memories) {
        const batchSchema = `spec_${id}_${memory}`;
        await db.schema.createSchema(batchSchema).execute();
        await projection.setup(db, batchSchema);
        const notices = await applyInBatches(db, projection, batchSchema, batches, memory);
        const got = await snapshot(db, projection, batchSchema);
        for (const table of projection.tables) {
          const counts = options.rowsThatCount?.[table as keyof Tables] ?? (() => true);
          expect(
            got[table]?.filter(counts),
            `${table}: applyBatch (memory: ${memory}) against apply one by one`,
          ).toEqual(expected[table]?.filter(counts));
        }
        if (options.notices === 'in any order')
          expect(
            sortedNotices(notices),
            `notices: applyBatch (memory: ${memory}) against apply one by one`,
          ).toEqual(sortedNotices(all));
        else expect(notices, `notices: applyBatch (memory: ${memory}) against apply one by one`).toEqual(all);
      }
    }

    return {
      read: (table, opts = {}) => readTable(db, schema, table, opts),
      notices: whenNotices,
      db,
      schema,
    };
  }

  const spec = {
    given(given: StoredEvent[]) {
      return {
        when(when: StoredEvent[], whenOptions: WhenOptions = {}) {
          return {
            /** Runs both paths, checks they agree, then hands the rows over for the test's assertions. */
            // biome-ignore lint/suspicious/noThenProperty: given/when/then is the point of this helper
            async then(assert: (then: Then<Tables>) => unknown | Promise<unknown>) {
              await assert(await run(given, when, whenOptions));
            },
            /** A table's rows are exactly these (with `select`, only those columns; `orderBy` for more than one). */
            async thenRows<T extends keyof Tables & string>(
              table: T,
              expected: Partial<Selectable<Tables[T]>>[],
              opts: ReadOptions = {},
            ) {
              const then = await run(given, when, whenOptions);
              expect(await then.read(table, opts)).toEqual(expected);
            },
          };
        },
      };
    },
    /** No past events: `given([]).when(events)`. */
    when(when: StoredEvent[], whenOptions: WhenOptions = {}) {
      return spec.given([]).when(when, whenOptions);
    },
    /** The database the spec runs on (inside a test). */
    get db(): Kysely<Tables> {
      return dbOf();
    },
  };
  return spec;
}

/** Runners hand a projection only the events it handles. */
const handled = (projection: AnyProjection, events: StoredEvent[]) =>
  events.filter((e) => projection.handles.includes(e.type));

function cutAt<T>(items: T[], cuts: readonly number[]): T[][] {
  const points = [...new Set([0, ...cuts, items.length])].filter((p) => p >= 0 && p <= items.length);
  points.sort((a, b) => a - b);
  const parts: T[][] = [];
  for (let i = 0; i + 1 < points.length; i++) parts.push(items.slice(points[i], points[i + 1]));
  return parts;
}

async function applyInBatches<Tables>(
  db: Kysely<Tables>,
  projection: Projection<Tables>,
  schema: string,
  batches: StoredEvent[][],
  memory: BatchMemory,
): Promise<ChangeNotice[]> {
  const notices: ChangeNotice[] = [];
  // One memory for the whole run, as a runner keeps it from one batch to the next.
  const kept: ProjectionMemory | undefined =
    memory === 'none' ? undefined : { rows: new Map(), complete: memory === 'rebuild' };
  for (const batch of batches) {
    const events = handled(projection, batch);
    if (events.length === 0) continue;
    await db.transaction().execute(async (trx: Transaction<Tables>) => {
      await projection.applyBatch?.(trx, events, {
        schema,
        notify: (n) => notices.push(n),
        ...(kept ? { memory: kept } : {}),
      });
    });
  }
  return notices;
}

/** Every row of every table the projection owns, in a stable order (a table's rows have none). */
async function snapshot<Tables>(
  db: Kysely<Tables>,
  projection: Projection<Tables>,
  schema: string,
): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of projection.tables) {
    const { rows } = await sql<{
      row: Record<string, unknown>;
    }>`SELECT to_jsonb(t) AS row FROM ${sql.id(schema, table)} t
      ORDER BY to_jsonb(t)`.execute(db);
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

const sortedNotices = (notices: ChangeNotice[]) =>
  notices.map((n) => JSON.stringify(n)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

async function readTable<Tables, T extends keyof Tables & string>(
  db: Kysely<Tables>,
  schema: string,
  table: T,
  opts: ReadOptions,
): Promise<Selectable<Tables[T]>[]> {
  // The table's name is only known at run time here: the query is built untyped, its rows typed.
  let q: any = (db.withSchema(schema) as Kysely<any>).selectFrom(table);
  q = opts.select ? q.select(opts.select) : q.selectAll();
  const order = typeof opts.orderBy === 'string' ? [opts.orderBy] : (opts.orderBy ?? []);
  for (const o of order) {
    const [column, direction] = o.trim().split(/\s+/);
    q = q.orderBy(column, direction?.toLowerCase() === 'desc' ? 'desc' : 'asc');
  }
  return q.execute();
}
