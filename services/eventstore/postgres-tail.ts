// A process's subscribers read the end of the log together: a read in flight is shared by those at
// the same position, and one tail of recent events serves those that follow it (readTail).
import type { Position, ReadAllOptions, StoredEvent } from './port.js';
import type { LogListener } from './postgres-listen.js';

/** A read of the log below the horizon, and whether the horizon held anything back. */
export type HeldRead = (
  after: Position,
  limit: number,
  options: ReadAllOptions,
) => Promise<{ events: StoredEvent[]; held: boolean }>;

/** Events the shared tail keeps (readTail), and the least it reads at a time. */
const TAIL_MAX = 4096;
const TAIL_READ = 500;

/**
 * The end of the log as a process read it last, shared by its subscribers (readTail): the events
 * after `from`, read when `wakes` notifications had come; `held` and `complete` as that read said.
 */
interface LogTail {
  from: Position;
  events: StoredEvent[];
  wakes: number;
  held: boolean;
  complete: boolean;
  /** When its last read was sent: a subscriber polling (no notification came) reads afresh. */
  readAt: number;
}

/** The last position a tail holds. */
const tailEnd = (t: LogTail): Position => (t.events.length ? t.events[t.events.length - 1].position : t.from);

/** Index of the first event after `after` (events in log order). */
function firstAfter(events: StoredEvent[], after: Position): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid].position <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class SharedReads {
  /** Bounded to TAIL_MAX events (trimmed from the front). */
  private tail: LogTail | null = null;
  private extending: Promise<void> | null = null;
  private readonly sharedReads = new Map<
    string,
    { wakes: number; sentAt: number; promise: Promise<{ events: StoredEvent[]; held: boolean }> }
  >();

  constructor(
    private readonly listener: LogListener,
    private readonly pollIntervalMs: number,
    private readonly readAllHeld: HeldRead,
  ) {}

  /**
   * Subscribers at the same position (every projection, usually) wake together and would send the
   * same query: they share one in flight, unless a notification arrived after it was sent, or it was
   * sent before `sentSince` (a new subscriber's first reads: see subscribe).
   */
  readShared(
    after: Position,
    limit: number,
    options: ReadAllOptions,
    sentSince = Number.NEGATIVE_INFINITY,
  ): Promise<{ events: StoredEvent[]; held: boolean }> {
    const key = `${after}|${limit}|${options.types?.join(',') ?? ''}`;
    const running = this.sharedReads.get(key);
    if (running && running.wakes === this.listener.wakes && running.sentAt >= sentSince)
      return running.promise;
    const sentAt = performance.now();
    const promise = this.readAllHeld(after, limit, options).finally(() => {
      if (this.sharedReads.get(key)?.promise === promise) this.sharedReads.delete(key);
    });
    this.sharedReads.set(key, { wakes: this.listener.wakes, sentAt, promise });
    return promise;
  }

  /**
   * A subscriber's read. Consumers in one process (every projection, every process manager) follow
   * the same end of the log but each finishes its batch at its own time, so they rarely read at the
   * same position: each used to send its own read per append. They share one tail instead: served
   * from it when it holds everything they could read (no notification since it was read, nothing
   * held back), extended by one read for all of them otherwise. A subscriber behind the tail (a
   * catch-up, a restart) reads for itself.
   */
  async readTail(
    after: Position,
    limit: number,
    sentSince = Number.NEGATIVE_INFINITY,
  ): Promise<{ events: StoredEvent[]; held: boolean }> {
    // The notifications this caller knows of: what it is given must have been read after them all
    // (an extension already in flight may have started before the last one: then another is sent).
    const known = this.listener.wakes;
    for (let extended = false; ; extended = true) {
      const t = this.tail;
      if (!t || after < t.from || after > tailEnd(t)) break;
      const start = firstAfter(t.events, after);
      const events = t.events.slice(start, start + limit);
      if (events.length === limit) return { events, held: false };
      const covers = t.complete && t.wakes >= known && t.readAt >= sentSince;
      // Held back: the caller backs off and asks again (which extends again).
      if (covers && (extended || (!t.held && performance.now() - t.readAt < this.pollIntervalMs)))
        return { events, held: t.held };
      await this.extendTail(limit);
    }
    const readAt = performance.now();
    const read = await this.readShared(after, limit, {}, sentSince);
    // Read to the end of the log, past what the tail holds: the new tail.
    if (read.events.length < limit && (this.tail === null || after >= tailEnd(this.tail)))
      this.tail = {
        from: after,
        events: [...read.events],
        wakes: known,
        held: read.held,
        complete: true,
        readAt,
      };
    return read;
  }

  /** One read after the tail's end for every subscriber waiting on it. */
  private extendTail(limit: number): Promise<void> {
    if (this.extending) return this.extending;
    this.extending = (async () => {
      const t = this.tail;
      if (!t) return;
      const wakes = this.listener.wakes;
      const readAt = performance.now();
      const size = Math.max(limit, TAIL_READ);
      const read = await this.readAllHeld(tailEnd(t), size, {});
      if (this.tail !== t) return;
      for (const e of read.events) t.events.push(e);
      t.wakes = wakes;
      t.readAt = readAt;
      t.held = read.held;
      t.complete = read.events.length < size;
      if (t.events.length > TAIL_MAX) {
        const drop = t.events.length - TAIL_MAX / 2;
        t.from = t.events[drop - 1].position;
        t.events = t.events.slice(drop);
      }
    })().finally(() => {
      this.extending = null;
    });
    return this.extending;
  }
}
