// Loads a stream, folds it, decides, and appends with the expected version. Conflicts are retried
// a bounded number of times; a command sent twice (same command id) appends once.
import { createHash, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { decodeEvent, schemaVersionOf } from '../../schema/shared/events.js';
import type { EventMetadata, EventStore, Position, StoredEvent } from '../eventstore/port.js';
import { WrongExpectedVersionError } from '../eventstore/port.js';
import type { Decider } from '../shared/decider.js';
import type { RequestContext } from '../shared/request-context.js';

export type { Decider } from '../shared/decider.js';

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

export class CommandHandler {
  /**
   * The state and version each stream had after the last command this process handled on it, so
   * the next command on it can decide without reading the stream again (a round trip per command).
   * Only a hint: the append still checks the version, and a stale entry (another process wrote
   * since) turns into a version conflict, after which the stream is read as before. A command whose
   * id may repeat (an idempotency key, a job's command) always reads: its earlier events must be found.
   */
  private readonly remembered: LRUCache<string, { version: number; state: unknown }>;
  /**
   * Commands on one stream in this process take turns (the last one's turn per stream): a hot stream
   * (the admin roster, a company's sync) written by many requests at once otherwise had them all
   * read one version, one append win and the rest retry, and 20 concurrent ADMIN registrations ran
   * some out of their attempts (409). Other processes still meet a version conflict, and retry.
   */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(
    private readonly store: EventStore,
    private readonly maxAttempts = 5,
    rememberedStreams = 10_000,
  ) {
    this.remembered = new LRUCache({ max: rememberedStreams });
  }

  /**
   * The state this process remembers for a stream, if any: a hint that may be behind the log (another
   * process may have written since). Only for what a stream never changes once set, such as the
   * company an approval belongs to.
   */
  rememberedState<S>(streamId: string): S | undefined {
    return this.remembered.get(streamId)?.state as S | undefined;
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

  /**
   * Loads many streams in a few round trips and remembers their states, so that commands on them
   * with fresh ids decide without a read each (a CSV import's rows). The append's version check still
   * guards every one: a stream changed meanwhile is read again and decided again. Streams already
   * remembered are not read again, under the same guard: a second import soon after the first (its
   * errors fixed) read every vendor's whole stream again, 90 – 400 ms a chunk of 1,000.
   * Returns the number of streams read.
   */
  async prime<S, E extends { type: string; data: unknown }>(
    decider: Decider<S, unknown, E>,
    streamIds: string[],
  ): Promise<number> {
    const store = this.store;
    if (!store.readStreams) return 0;
    streamIds = streamIds.filter((id) => !this.remembered.has(id));
    for (let i = 0; i < streamIds.length; i += 1000) {
      const chunk = streamIds.slice(i, i + 1000);
      const loaded = await store.readStreams(chunk);
      for (const id of chunk) {
        const stream = loaded.get(id) ?? { version: 0, events: [] };
        let state = decider.initialState();
        for (const stored of stream.events)
          state = decider.evolve(state, decodeEvent(stored) as unknown as E);
        this.remembered.set(id, { version: stream.version, state });
      }
    }
    return streamIds.length;
  }

  async handle<S, C, E extends { type: string; data: unknown }>(
    decider: Decider<S, C, E>,
    streamId: string,
    command: C,
    context: CommandContext = {},
  ): Promise<HandleResult<S, E>> {
    const before = this.turns.get(streamId);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const turn = before ? before.then(() => mine) : mine;
    this.turns.set(streamId, turn);
    try {
      if (before) await before;
      return await this.handleInTurn(decider, streamId, command, context);
    } finally {
      done();
      if (this.turns.get(streamId) === turn) this.turns.delete(streamId);
    }
  }

  private async handleInTurn<S, C, E extends { type: string; data: unknown }>(
    decider: Decider<S, C, E>,
    streamId: string,
    command: C,
    context: CommandContext,
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
    // A fresh random id cannot have been handled before: the remembered state may stand in for a read.
    let mayRemember = givenId === null;
    let attempt = 1;
    for (;;) {
      const remembered = mayRemember ? this.remembered.get(streamId) : undefined;
      mayRemember = false;
      let state: S;
      let version: number;
      if (remembered) {
        state = remembered.state as S;
        version = remembered.version;
      } else {
        const loaded = await this.load(decider as Decider<S, unknown, E>, streamId);
        const prior = loaded.events.filter((e) => e.metadata.commandId === commandId);
        if (prior.length > 0) return this.duplicateResult(loaded.state, prior);
        state = loaded.state;
        version = loaded.version;
        this.remembered.set(streamId, { version, state });
      }
      let events: E[];
      try {
        events = decider.decide(command, state);
      } catch (err) {
        // A refusal on remembered state is checked against the stream itself.
        if (remembered) continue;
        throw err;
      }
      // Nothing to do on remembered state: the stream itself may say otherwise.
      if (events.length === 0 && remembered) continue;
      if (events.length === 0) return { events, state, position: null, duplicate: false };
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
        // Folded as read back from the log would give it (decoded events), so that the next command
        // on this stream decides on the same state a read would give. Folded when first asked for:
        // a CSV import's 10,000 commands never read their results' states (a JSON round trip and a
        // schema decode each, 5 % of the gateway's CPU in the import).
        let next: S | undefined;
        const fold = () =>
          (next ??= events.reduce((s, e) => decider.evolve(s, asStored(e) as unknown as E), state));
        this.remembered.set(streamId, {
          version: result.nextVersion,
          get state() {
            return fold();
          },
        });
        return {
          events,
          get state() {
            return fold();
          },
          position: result.position,
          duplicate: false,
        };
      } catch (err) {
        this.remembered.delete(streamId);
        // Only the remembered state was stale: read the stream, without counting a try.
        if (err instanceof WrongExpectedVersionError && remembered) continue;
        if (err instanceof WrongExpectedVersionError && attempt < this.maxAttempts) {
          // Someone else wrote first: re-read and decide again on the new state, after a short jitter.
          await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
          attempt++;
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
