// KurrentDB (EventStoreDB) adapter of the event store port, chosen by EVENTSTORE_URL. Checkpoints
// stay in the read-model Postgres (projections/), so nothing here keeps state of its own.
import {
  BACKWARDS,
  END,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  START as K_START,
  type Position as KPosition,
  KurrentDBClient,
  WrongExpectedVersionError as KWrongExpectedVersionError,
  NO_STREAM,
  type ResolvedEvent,
  StreamNotFoundError,
} from '@kurrent/kurrentdb-client';
import { chainHash, eventDigest } from './chain.js';
import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  START,
  type StoredEvent,
  type SubscribeOptions,
  type SubscriptionMessage,
  WrongExpectedVersionError,
} from './port.js';

const PAD = 20;
export function encodeKPosition(p: KPosition): Position {
  return `${p.commit.toString().padStart(PAD, '0')}:${p.prepare.toString().padStart(PAD, '0')}`;
}
export function decodeKPosition(position: Position): KPosition | typeof K_START {
  if (position === START) return K_START;
  const m = /^(\d+):(\d+)$/.exec(position);
  if (!m) throw new Error(`Not a KurrentDB position: ${position}`);
  return { commit: BigInt(m[1]), prepare: BigInt(m[2]) };
}

type Recorded = NonNullable<ResolvedEvent['event']>;

function toStored(resolved: ResolvedEvent): StoredEvent | null {
  const e = resolved.event as (Recorded & { position?: KPosition }) | undefined;
  if (!e || e.type.startsWith('$') || e.streamId.startsWith('$')) return null;
  const metadata = (e.isJson ? (e.metadata as EventMetadata) : {}) ?? {};
  const { schemaVersion, $chain, ...rest } = metadata as EventMetadata & {
    schemaVersion?: number;
    $chain?: { hash?: string };
  };
  return {
    id: e.id,
    type: e.type,
    schemaVersion: typeof schemaVersion === 'number' ? schemaVersion : 1,
    streamId: e.streamId,
    streamVersion: Number(e.revision) + 1,
    position: e.position ? encodeKPosition(e.position) : START,
    data: e.data,
    metadata: rest,
    createdAt: e.created instanceof Date ? e.created : new Date(e.created as unknown as string),
    ...($chain?.hash ? { hash: $chain.hash } : {}),
  };
}

export class KurrentDbEventStore implements EventStore {
  readonly kind = 'kurrentdb' as const;
  private readonly client: KurrentDBClient;

  constructor(connectionString: string) {
    this.client = KurrentDBClient.connectionString(connectionString.replace(/^kurrent:\/\//, 'kurrentdb://'));
  }

  async init(): Promise<void> {
    // Fails fast with a clear error when the server does not answer.
    await this.headPosition();
  }

  /**
   * Appends with the hash chain (chain.ts): each event's digest and chained hash go into its
   * metadata (`$chain`, left out of the digest). The chain needs the stream's last hash, so the
   * append reads the stream's tail first and appends at exactly that revision: a writer in between
   * makes it a version conflict (retried for 'any'), never a broken chain. A re-append of the events
   * already at the stream's end is a no-op, as KurrentDB's own idempotency would make it.
   */
  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    for (let attempt = 1; ; attempt++) {
      const tail = await this.tail(streamId, events.length);
      const version = tail.length > 0 ? tail[tail.length - 1].streamVersion : 0;
      const ids = tail.slice(-events.length).map((e) => e.id);
      if (ids.length === events.length && ids.every((id, i) => id === events[i].id))
        return { nextVersion: version, position: tail[tail.length - 1].position };
      const fits =
        expected === 'any' ||
        (expected === 'stream_exists' && version > 0) ||
        ((expected === 'no_stream' || expected === 0) && version === 0) ||
        (typeof expected === 'number' && expected === version);
      if (!fits) throw new WrongExpectedVersionError(streamId, expected, version);
      let previous =
        tail.length > 0 && tail[tail.length - 1].hash
          ? Buffer.from(tail[tail.length - 1].hash!, 'hex')
          : null;
      const written = events.map((e, i) => {
        const schemaVersion = e.schemaVersion ?? 1;
        const digest = eventDigest({
          id: e.id,
          streamId,
          type: e.type,
          schemaVersion,
          data: e.data,
          metadata: e.metadata,
        });
        const hash = chainHash(previous, version + i + 1, digest);
        previous = hash;
        return jsonEvent({
          id: e.id,
          type: e.type,
          data: (e.data ?? null) as never,
          metadata: {
            ...(e.metadata ?? {}),
            schemaVersion,
            $chain: { digest: digest.toString('hex'), hash: hash.toString('hex') },
          } as never,
        });
      });
      try {
        const result = await this.client.appendToStream(streamId, written, {
          streamState: version === 0 ? NO_STREAM : BigInt(version - 1),
        });
        return {
          nextVersion: Number(result.nextExpectedRevision) + 1,
          position: result.position ? encodeKPosition(result.position) : await this.headPosition(),
        };
      } catch (err) {
        if (!(err instanceof KWrongExpectedVersionError)) throw err;
        if (expected === 'any' && attempt < 5) continue;
        const actual = typeof err.actualState === 'bigint' ? Number(err.actualState) + 1 : 0;
        throw new WrongExpectedVersionError(streamId, expected, actual);
      }
    }
  }

  /** The stream's last `count` events, oldest first (none when it does not exist). */
  private async tail(streamId: string, count: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    try {
      for await (const r of this.client.readStream(streamId, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: count,
      })) {
        const e = toStored(r);
        if (e) out.unshift(e);
      }
    } catch (err) {
      if (!(err instanceof StreamNotFoundError)) throw err;
    }
    return out;
  }

  private async streamVersion(streamId: string): Promise<number> {
    try {
      for await (const r of this.client.readStream(streamId, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        if (r.event) return Number(r.event.revision) + 1;
      }
      return 0;
    } catch (err) {
      if (err instanceof StreamNotFoundError) return 0;
      throw err;
    }
  }

  /**
   * The version must come from the same state as the events: were it read in a second call, an
   * append in between would give a decision made on the older events a version that passes the
   * expected-version check. Reading to the end, the last revision read is the version. A page
   * (maxCount), or nothing read past `fromVersion`, takes the head first and then reads no further
   * than it: the events then are exactly the stream up to that version.
   */
  async readStream(streamId: string, options: ReadStreamOptions = {}) {
    const from = Math.max(1, options.fromVersion ?? 1);
    if (options.maxCount === undefined) {
      const read = await this.readForward(streamId, from);
      if (read.lastRevision !== null) return { version: Number(read.lastRevision) + 1, events: read.events };
      if (from === 1) return { version: 0, events: [] };
    }
    const version = await this.streamVersion(streamId);
    if (version < from) return { version, events: [] };
    const count = Math.min(options.maxCount ?? Number.POSITIVE_INFINITY, version - from + 1);
    return { version, events: (await this.readForward(streamId, from, count)).events };
  }

  private async readForward(streamId: string, from: number, maxCount?: number) {
    const events: StoredEvent[] = [];
    let lastRevision: bigint | null = null;
    try {
      for await (const r of this.client.readStream(streamId, {
        direction: FORWARDS,
        fromRevision: BigInt(from - 1),
        ...(maxCount !== undefined ? { maxCount } : {}),
      })) {
        if (r.event) lastRevision = r.event.revision;
        const e = toStored(r);
        if (e) events.push(e);
      }
    } catch (err) {
      if (!(err instanceof StreamNotFoundError)) throw err;
    }
    return { events, lastRevision };
  }

  async readAll(after: Position, limit: number, options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    const from = decodeKPosition(after);
    // readAll's start is inclusive: skip the event at `after` itself.
    for await (const r of this.client.readAll({
      fromPosition: from,
      maxCount: limit + 1,
      direction: FORWARDS,
      filter: excludeSystemEvents(),
    })) {
      const e = toStored(r);
      if (!e || (after !== START && e.position <= after)) continue;
      if (options.types && options.types.length > 0 && !options.types.includes(e.type)) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  async headPosition(): Promise<Position> {
    for await (const r of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      maxCount: 1,
      filter: excludeSystemEvents(),
    })) {
      const e = toStored(r);
      if (e) return e.position;
    }
    return START;
  }

  async *subscribe(options: SubscribeOptions): AsyncIterable<SubscriptionMessage> {
    const batchSize = options.batchSize ?? 500;
    let position = options.after ?? START;
    // Catch up by paging, then follow live from where the pages ended.
    for (;;) {
      if (options.signal?.aborted) return;
      const page = await this.readAll(position, batchSize, options);
      for (const event of page) {
        position = event.position;
        yield { kind: 'event', event };
      }
      if (page.length < batchSize) break;
    }
    yield { kind: 'caughtUp', position };
    const subscription = this.client.subscribeToAll({
      fromPosition:
        decodeKPosition(position) === K_START ? K_START : (decodeKPosition(position) as KPosition),
      filter: excludeSystemEvents(),
    });
    const onAbort = () => void subscription.unsubscribe();
    options.signal?.addEventListener('abort', onAbort);
    try {
      for await (const r of subscription) {
        const e = toStored(r as ResolvedEvent);
        if (!e || e.position <= position) continue;
        if (options.types && options.types.length > 0 && !options.types.includes(e.type)) continue;
        position = e.position;
        yield { kind: 'event', event: e };
        yield { kind: 'caughtUp', position };
      }
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      await subscription.unsubscribe().catch(() => {});
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
