// The event store port. Both adapters (Postgres, KurrentDB) pass one contract suite
// (contract.ts), so everything above this file is free of which one runs.
import type { ExpectedVersion } from '../shared/version-conflict.js';

/**
 * An opaque, totally ordered position in the global log, string-encoded so that plain string
 * comparison orders it (zero-padded `txid:position` for Postgres, `E0001:txid:position` after a
 * restore began a new epoch; `commit:prepare` for KurrentDB).
 * START is before every event.
 */
export type Position = string;
export const START: Position = '';

export interface EventMetadata {
  commandId?: string;
  correlationId?: string;
  causationId?: string;
  /** The acting user's id, or null for the system. */
  userId?: string | null;
  [key: string]: unknown;
}

export interface NewEvent {
  /** UUID; appending the same ids again at the same place is a no-op (idempotent retry). */
  id: string;
  type: string;
  data: unknown;
  metadata?: EventMetadata;
  schemaVersion?: number;
}

export interface StoredEvent<T = unknown> {
  id: string;
  type: string;
  schemaVersion: number;
  streamId: string;
  /** 1-based: the first event of a stream has version 1. */
  streamVersion: number;
  position: Position;
  data: T;
  metadata: EventMetadata;
  createdAt: Date;
  /** Personal fields that could not be opened: their subject was forgotten (services/privacy). */
  erased?: readonly string[];
  /** The event's chain hash, hex (services/eventstore/chain.ts), where the adapter keeps one. On Postgres only a
   * stream's read (readStream, readStreams) carries it; log reads leave it out (readLogHashes reads them). */
  hash?: string;
}

// The stream-version conflict sits at the ground (services/shared/version-conflict.ts), where the
// errors that map it to an answer live; the port names it for its adapters.
export { type ExpectedVersion, WrongExpectedVersionError } from '../shared/version-conflict.js';

export interface AppendResult {
  nextVersion: number;
  position: Position;
}

/** An event's place in the log and its chain hash: what an anchor covers (anchors.ts). */
export interface LoggedHash {
  id: string;
  position: Position;
  hash?: string | null;
}

export interface ReadStreamOptions {
  /** First version to return (1-based, inclusive). */
  fromVersion?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Only events of these types (the position still moves past the others). */
  types?: readonly string[];
  /**
   * For a one-shot reader (a subscriber is woken again anyway): when the read came back short because
   * a transaction that may have appended was still running as it began, read on a few times, a few
   * milliseconds apart, so the answer holds what had committed by then (Postgres adapter).
   */
  settle?: boolean;
  /**
   * Hand the events over with their personal fields still sealed: the caller opens them later with
   * `openSealed` (a rebuild opens one batch while the next is read and the one before applied).
   * Ignored by a store that seals nothing.
   */
  sealed?: boolean;
}

export type SubscriptionMessage =
  | { kind: 'event'; event: StoredEvent }
  /**
   * The first: everything committed before it has been delivered. Each later one ends a read that
   * delivered events (a consumer may flush its batch there).
   */
  | { kind: 'caughtUp'; position: Position };

export interface SubscribeOptions extends ReadAllOptions {
  /**
   * Called with each batch read before its events are yielded (optional for adapters): a wrapper
   * opens the batch's sealed fields with one key lookup instead of one per event.
   */
  prepareBatch?: (events: StoredEvent[]) => Promise<void>;
  /**
   * The events whose personal fields the subscriber reads (default: all). A wrapper that seals
   * personal fields (services/privacy/personal-data.ts) may hand the others over still sealed.
   */
  opens?: (event: StoredEvent) => boolean;
  after?: Position;
  signal?: AbortSignal;
  batchSize?: number;
}

export interface EventStore {
  readonly kind: 'postgres' | 'kurrentdb';
  /** Creates whatever storage the adapter needs; safe to call on every start. */
  init(): Promise<void>;
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;
  readStream(
    streamId: string,
    options?: ReadStreamOptions,
  ): Promise<{ version: number; events: StoredEvent[] }>;
  /**
   * Many whole streams in one round trip (a bulk command, such as a CSV import, loads them all before
   * deciding). Optional: without it each stream is read on its own. Streams that do not exist are absent.
   */
  readStreams?(streamIds: string[]): Promise<Map<string, { version: number; events: StoredEvent[] }>>;
  /**
   * What readAll with `settle` reads, without the events' data: their ids, positions and chain
   * hashes. Optional: the anchor job reads whole events without it.
   */
  readLogHashes?(after: Position, limit: number): Promise<LoggedHash[]>;
  /** Events strictly after `after`, in global order, only ever committed ones with no gap before them. */
  readAll(after: Position, limit: number, options?: ReadAllOptions): Promise<StoredEvent[]>;
  /**
   * Opens, in place, events read with `sealed`, in the order they were read (a forgetting event among
   * them drops its subject's key for the events after it). Absent on a store that seals nothing.
   */
  openSealed?(events: StoredEvent[]): Promise<void>;
  /** Catch-up then live: every event after `after` exactly once, in order, until the signal aborts. */
  subscribe(options: SubscribeOptions): AsyncIterable<SubscriptionMessage>;
  /** Position of the newest event a reader can see now (START when empty). */
  headPosition(): Promise<Position>;
  close(): Promise<void>;
}
