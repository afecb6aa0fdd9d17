// Loads a stream, folds it, decides, and appends with the expected version. Conflicts are retried
// a bounded number of times; a command sent twice (same command id) appends once.
import { createHash, randomUUID } from 'node:crypto';
import { decodeEvent, schemaVersionOf } from '../../schema/events/index.js';
import type { EventMetadata, EventStore, Position, StoredEvent } from '../eventstore/port.js';
import { WrongExpectedVersionError } from '../eventstore/port.js';
import type { RequestContext } from './request-context.js';

export interface Decider<S, C, E extends { type: string; data: unknown }> {
  initialState(): S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

export interface CommandContext {
  /** Same id → same events → appended once. Generated when absent. */
  commandId?: string;
  correlationId?: string;
  causationId?: string;
  /** The acting user (string form of the id), or null for the system. */
  userId?: string | null;
  /** The HTTP request behind the command: its correlation id and idempotency key. */
  request?: RequestContext;
}

export interface HandleResult<S, E> {
  events: E[];
  state: S;
  /** Position of the last appended event; null when the command changed nothing. */
  position: Position | null;
  /** True when this command id had already been handled. */
  duplicate: boolean;
}

/** An event as the log gives it back: through JSON and the schema (defaults, upcasts). */
function asStored(e: { type: string; data: unknown }) {
  return decodeEvent({
    type: e.type,
    data: JSON.parse(JSON.stringify(e.data ?? null)),
    schemaVersion: schemaVersionOf(e.type),
  } as StoredEvent);
}

/** Deterministic UUID from a command id and an index, so a retried command carries the same ids. */
export function eventIdFor(commandId: string, index: number): string {
  const h = createHash('sha256').update(`${commandId}:${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * With an idempotency key, the n-th command a request sends to a stream gets the same id on every
 * retry of that request, so the retry finds its events already there and appends nothing. The
 * gateway replays a stored first answer to most retries (services/gateway/idempotency.ts); these ids
 * still matter when the process died between the append and storing that answer: the retry re-runs.
 */
function commandIdFromRequest(
  request: RequestContext | undefined,
  streamId: string,
  actor: string | null | undefined,
): string | null {
  if (!request?.idempotencyKey) return null;
  const n = (request.commandsPerStream.get(streamId) ?? 0) + 1;
  request.commandsPerStream.set(streamId, n);
  // Scoped to the caller: two users who pick the same key do not collide.
  return eventIdFor(`idempotency:${actor ?? 'system'}:${request.idempotencyKey}:${streamId}`, n);
}

/**
 * The state and version each stream had after the last command this process handled on it, so the
 * next command on it can decide without reading the stream again (a round trip per command). Only a
 * hint: the append still checks the version, and a stale entry (another process wrote since) turns
 * into a version conflict, after which the stream is read as before. A command whose id may repeat
 * (an idempotency key, a job's command) always reads, since its earlier events must be found.
 */
class StreamStateCache {
  private readonly entries = new Map<string, { version: number; state: unknown }>();
  constructor(private readonly max: number) {}
  get(streamId: string) {
    const hit = this.entries.get(streamId);
    if (hit) {
      // Most recently used last: the first key is the one to evict.
      this.entries.delete(streamId);
      this.entries.set(streamId, hit);
    }
    return hit;
  }
  set(streamId: string, version: number, state: unknown) {
    this.entries.delete(streamId);
    this.entries.set(streamId, { version, state });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
  delete(streamId: string) {
    this.entries.delete(streamId);
  }
}

export class CommandHandler {
  private readonly cache: StreamStateCache;

  constructor(
    private readonly store: EventStore,
    private readonly maxAttempts = 5,
    cachedStreams = 10_000,
  ) {
    this.cache = new StreamStateCache(cachedStreams);
  }

  async load<S, E extends { type: string; data: unknown }>(
    decider: Decider<S, unknown, E>,
    streamId: string,
  ) {
    const { version, events } = await this.store.readStream(streamId);
    let state = decider.initialState();
    for (const stored of events) state = decider.evolve(state, decodeEvent(stored) as unknown as E);
    return { state, version, events };
  }

  async handle<S, C, E extends { type: string; data: unknown }>(
    decider: Decider<S, C, E>,
    streamId: string,
    command: C,
    context: CommandContext = {},
  ): Promise<HandleResult<S, E>> {
    const request = context.request;
    const givenId = context.commandId ?? commandIdFromRequest(request, streamId, context.userId);
    const commandId = givenId ?? randomUUID();
    const metadata: EventMetadata = {
      commandId,
      correlationId: context.correlationId ?? request?.correlationId ?? commandId,
      causationId: context.causationId ?? commandId,
      userId: context.userId ?? null,
    };
    // A fresh random id cannot have been handled before: the cached state may stand in for a read.
    let mayUseCache = givenId === null;
    for (let attempt = 1; ; attempt++) {
      const cached = mayUseCache ? this.cache.get(streamId) : undefined;
      mayUseCache = false;
      let state: S;
      let version: number;
      if (cached) {
        state = cached.state as S;
        version = cached.version;
      } else {
        const loaded = await this.load(decider as Decider<S, unknown, E>, streamId);
        const prior = loaded.events.filter((e) => e.metadata.commandId === commandId);
        if (prior.length > 0) return this.duplicateResult(loaded.state, prior);
        state = loaded.state;
        version = loaded.version;
        this.cache.set(streamId, version, state);
      }
      let events: E[];
      try {
        events = decider.decide(command, state);
      } catch (err) {
        // A refusal on remembered state is checked against the stream itself; not a try of its own.
        if (!cached) throw err;
        attempt--;
        continue;
      }
      if (events.length === 0) {
        if (!cached) return { events, state, position: null, duplicate: false };
        attempt--;
        continue;
      }
      try {
        const result = await this.store.append(
          streamId,
          events.map((e, i) => ({
            id: eventIdFor(commandId, i),
            type: e.type,
            data: e.data,
            metadata,
            schemaVersion: schemaVersionOf(e.type),
          })),
          version === 0 ? 'no_stream' : version,
        );
        const next = events.reduce((s, e) => decider.evolve(s, e), state);
        // What the next command sees is the state as read back from the log would be: decoded events.
        this.cache.set(
          streamId,
          result.nextVersion,
          events.reduce((s, e) => decider.evolve(s, asStored(e) as unknown as E), state),
        );
        return { events, state: next, position: result.position, duplicate: false };
      } catch (err) {
        this.cache.delete(streamId);
        if (err instanceof WrongExpectedVersionError && cached) {
          // Only the remembered state was stale: read the stream, without counting a try.
          attempt--;
          continue;
        }
        if (err instanceof WrongExpectedVersionError && attempt < this.maxAttempts) {
          // Someone else wrote first: re-read and decide again on the new state, after a short jitter.
          await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
          continue;
        }
        throw err;
      }
    }
  }

  private duplicateResult<S, E>(state: S, prior: StoredEvent[]): HandleResult<S, E> {
    return {
      events: prior.map((e) => decodeEvent(e) as unknown as E),
      state,
      position: prior[prior.length - 1].position,
      duplicate: true,
    };
  }
}
