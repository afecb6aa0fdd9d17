// The approval streams time travel has read lately, decoded, in this process. A stream only grows, so
// a stream kept here is brought up to date by reading the events after its last one (none, mostly:
// a query that returns nothing) instead of its 1,000 events again. Two things would make a kept copy
// wrong, and both send it back to the log: its personal fields' subject forgotten since (the copy
// holds them opened; the process's key cache learns of a forgetting in any process), and a stream
// shorter than the copy (a restore).
import { LRUCache } from 'lru-cache';
import type { ApprovalsTable } from '../../projections/approvals/tables.js';
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import { decodeEvent, personalFieldsOf, UnknownEventError } from '../../schema/shared/events.js';
import type { AppServices } from '../app/context.js';
import type { StoredEvent } from '../eventstore/port.js';
import { type ApprovalState, approvalStreamId } from './approval-decider.js';

export interface KeptStream {
  events: StoredEvent[];
  /** decoded[i] is events[i] decoded (upcast, validated), filled as far as a fold has needed. */
  decoded: ApprovalEvent[];
  /** The subjects whose fields the kept events hold opened. */
  opened: Set<string>;
  /** The fold after every CHECKPOINT-th event, as far as folds have gone: a fold starts at the nearest. */
  checkpoints: Map<number, Fold>;
}

/** A fold of a stream's first `count` events (as-of.ts foldApproval). */
export interface Fold {
  count: number;
  row: ApprovalsTable | undefined;
  state: ApprovalState;
  erased: readonly string[];
}

export const CHECKPOINT = 100;

/** Up to this many events kept in all (about 1 kB each opened and decoded). */
const MAX_EVENTS = 100_000;

const kept = new WeakMap<AppServices, LRUCache<string, KeptStream>>();

function cacheOf(app: AppServices) {
  let c = kept.get(app);
  if (!c) {
    c = new LRUCache<string, KeptStream>({
      maxSize: MAX_EVENTS,
      sizeCalculation: (s) => Math.max(1, s.events.length),
    });
    kept.set(app, c);
  }
  return c;
}

function openedSubjects(events: readonly StoredEvent[], into = new Set<string>()) {
  for (const e of events) {
    const personal = personalFieldsOf(e.type);
    if (!personal || (e.erased?.length ?? 0) > 0 || typeof e.data !== 'object' || e.data === null) continue;
    into.add(personal.subject(e.data as Record<string, unknown>));
  }
  return into;
}

/** The approval's stream as the log holds it now, its events opened as a read of the stream opens them. */
export async function approvalStream(app: AppServices, approvalId: string): Promise<KeptStream> {
  const cache = cacheOf(app);
  const streamId = approvalStreamId(approvalId);
  const copy = cache.get(approvalId);
  if (copy) {
    const keys = await Promise.all([...copy.opened].map((s) => app.subjectKeys.get(s)));
    if (keys.every((k) => k !== null)) {
      const { version, events } = await app.store.readStream(streamId, {
        fromVersion: copy.events.length + 1,
      });
      if (version >= copy.events.length) {
        if (events.length === 0) return copy;
        const grown: KeptStream = {
          events: [...copy.events, ...events],
          decoded: copy.decoded,
          checkpoints: copy.checkpoints,
          opened: openedSubjects(events, new Set(copy.opened)),
        };
        cache.set(approvalId, grown);
        return grown;
      }
    }
    cache.delete(approvalId);
  }
  const { events } = await app.store.readStream(streamId);
  const fresh: KeptStream = { events, decoded: [], checkpoints: new Map(), opened: openedSubjects(events) };
  if (events.length > 0) cache.set(approvalId, fresh);
  return fresh;
}

/**
 * An event as the fold reads it: decoded (upcast, validated), or as stored when its type is not
 * registered in this process (a step the approval's own logic does not act on, such as one added by a
 * tool): it is still a step, and changes neither the row nor the state.
 */
export function decodeStep(stored: StoredEvent): ApprovalEvent {
  try {
    return decodeEvent(stored) as ApprovalEvent;
  } catch (err) {
    if (err instanceof UnknownEventError)
      return { type: stored.type, data: stored.data } as unknown as ApprovalEvent;
    throw err;
  }
}

/** The first `count` events decoded, each decoded once per kept stream. */
export function decodedUpTo(stream: KeptStream, count: number): ApprovalEvent[] {
  for (let i = stream.decoded.length; i < count; i++) stream.decoded.push(decodeStep(stream.events[i]));
  return stream.decoded;
}
