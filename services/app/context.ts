// Everything an application function needs, built once per process (services/main.ts).
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../projections/database.js';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { Credentials } from '../auth/credentials.js';
import type { LoginRateLimit } from '../auth/login-rate-limit.js';
import type { RefreshTokens } from '../auth/refresh-tokens.js';
import type { EventStore, Position } from '../eventstore/port.js';
import type { TailWitness } from '../eventstore/tail-witness.js';
import type { BlindIndex } from '../privacy/personal-data.js';
import type { SubjectKeys } from '../privacy/subject-keys.js';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import type { AchEntryAccess } from './ach-entries.js';
import type { AchFileAccess } from './ach-files.js';
import type { AchTraceAccess } from './ach-traces.js';
import type { AchWindowAccess } from './ach-windows.js';
import type { BankConnectionAccess } from './bank-connections.js';
import type { CommandHandler } from './command-handler.js';
import type { FreshReads } from './fresh-reads.js';
import type { PaymentHoldAccess } from './payment-holds.js';
import type { QuickBooksAccess } from './quickbooks-access.js';

export interface ProjectionWaiter {
  waitFor(position: Position, projectionNames: string[], timeoutMs: number): Promise<boolean>;
}

export interface AppServices {
  config: Config;
  pool: pg.Pool;
  db: Kysely<Database>;
  store: EventStore;
  commands: CommandHandler;
  waiter: ProjectionWaiter;
  redis: Redis;
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokens;
  loginLimit: LoginRateLimit;
  log: Logger;
  startedAt: number;
  /** Rows the gateway read for live pushes, offered to the mutations that caused them. */
  freshReads: FreshReads;
  /** Password hashes, outside the log. */
  credentials: Credentials;
  /** Per-subject data keys (forgetting a subject deletes its key). */
  subjectKeys: SubjectKeys;
  /** Keyed hashes standing for personal values in stream ids. */
  blindIndex: BlindIndex;
  /** The read models there are (by name): a wait for an unknown one is a bug, said at once. */
  projectionNames: ReadonlySet<string>;
  /** Every BullMQ queue this build has: the core's and the modules' (services/modules/index.ts). */
  queueNames: readonly string[];
  /** A company's QuickBooks, its token kept fresh (implemented by the companies module). */
  quickbooks: QuickBooksAccess;
  /** A company's bank connection, manual or SFTP, and sessions with it (implemented by the companies module). */
  bankConnections: BankConnectionAccess;
  /** A company's NACHA settings, file ids, payment files and stored files (implemented by the payments module). */
  achFiles: AchFileAccess;
  /** The payments held, counted as the approvals list filters them (implemented by the approvals module). */
  paymentHolds: PaymentHoldAccess;
  /** Trace numbers never reused at an ODFI (implemented by the payments module). */
  achTraces: AchTraceAccess;
  /** The cut-off windows' shared files (implemented by the payments module). */
  achWindows: AchWindowAccess;
  /** What the bank did with each entry of Billflow's files (implemented by the payments module). */
  achEntries: AchEntryAccess;
  /** The log's end as seen outside the database (Postgres store only; the anchor job trims it). */
  tailWitness: TailWitness | null;
}

/**
 * Read your writes: waits (bounded by READ_YOUR_WRITES_TIMEOUT_MS) until the named projections, the
 * read models the answer reads, have applied the given position. Only those: a slow projection that
 * the answer does not read (activity) never delays it. False when the wait timed out: the caller
 * then answers from the command's own outcome, never with an error (the events are stored).
 */
export async function awaitProjections(
  app: AppServices,
  position: Position | null,
  projectionNames: readonly string[],
): Promise<boolean> {
  if (!position || projectionNames.length === 0) return true;
  // A misspelt name would wait out the whole time-out: say so (the events are stored: no throw).
  const names = projectionNames.filter((n) => app.projectionNames.has(n));
  if (names.length < projectionNames.length)
    app.log.error({ projectionNames }, 'awaitProjections: unknown projection name');
  if (names.length === 0) return true;
  const ok = await app.waiter.waitFor(position, names, app.config.READ_YOUR_WRITES_TIMEOUT_MS);
  if (!ok) app.log.warn({ position, names }, 'read model did not catch up in time; answering anyway');
  return ok;
}

/** Ids the spec wants numeric (users): a Postgres sequence, whatever event store runs. */
export async function nextUserId(app: AppServices): Promise<number> {
  const r = await app.pool.query("SELECT nextval('user_ids')::int AS id");
  return r.rows[0].id as number;
}
