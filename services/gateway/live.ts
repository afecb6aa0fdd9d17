// Live updates: the projector publishes change notices on Redis after each read-model commit; every
// gateway listens and fans them out to its own GraphQL subscribers. Redis pub/sub is fire-and-forget,
// so a client that reconnects re-runs its queries (urql does).
import { GraphQLError } from 'graphql';
import type { Redis } from 'ioredis';
import type { ChangeNotice } from '../../projections/projection.js';
import type { AppServices } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import type { Actor } from '../auth/permissions.js';
import { keepSubscribed, unsubscribeQuietly } from '../shared/redis.js';

export interface LiveBus {
  /**
   * The notices of a topic (or of one id in it). A subscriber that falls behind gets only the
   * newest notice per (id, type) it has not taken yet; past `limit` distinct pending notices its
   * stream ends with an error (the client re-subscribes and re-reads) instead of growing without end.
   */
  subscribe(topic: string, id?: string, options?: SubscribeOptions): AsyncIterable<ChangeNotice>;
  /** For this process only (tests, and the single-process mode before the first notice). */
  publishLocal(notice: ChangeNotice): void;
  /**
   * Called with the notices of each message that a client here subscribes to, before they are
   * delivered: a resolver's read can start at once, one query for the whole message (seedSharedRead),
   * instead of one query each when a subscriber's turn comes.
   */
  onNotices(listener: (notices: ChangeNotice[]) => void): void;
  /** Every notice of every message, before delivery, wanted by a client or not: for caches here. */
  watch(listener: (notices: ChangeNotice[]) => void): void;
  /** True while notices can arrive (subscribed and connected); a cache must not trust itself otherwise. */
  connected(): boolean;
  /** After every (re)connection: notices sent meanwhile were missed. */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

export interface SubscribeOptions {
  limit?: number;
  /** The gateway's own listener (not a client): does not make notices worth prefetching. */
  internal?: boolean;
}

/** Distinct notices a subscriber may leave untaken before its stream is ended. */
export const LIVE_BACKLOG_LIMIT = 1000;

interface Subscriber {
  /** Untaken notices by (id, type), oldest first: a newer one of the same key takes its place. */
  pending: Map<string, ChangeNotice>;
  limit: number;
  overflowed: boolean;
  done: boolean;
  wake: (() => void) | null;
  internal: boolean;
}

/**
 * Our own fan-out rather than graphql-yoga's createPubSub: there a subscriber that does not keep up
 * (a slow socket, an overloaded gateway) overflows a 1,024-item buffer and the error is thrown in
 * the publisher, which ended the whole gateway process. Here a slow subscriber costs one map entry
 * per changed record, and only its own stream ends.
 */
function createFanOut() {
  const byKey = new Map<string, Set<Subscriber>>();
  const deliver = (sub: Subscriber, notice: ChangeNotice) => {
    if (sub.done || sub.overflowed) return;
    const key = `${notice.id}|${String(notice.data?.type ?? '')}`;
    if (!sub.pending.has(key) && sub.pending.size >= sub.limit) sub.overflowed = true;
    else sub.pending.set(key, notice);
    sub.wake?.();
  };
  return {
    /** Whether a client (not the gateway itself) subscribes to this notice. */
    wanted(notice: ChangeNotice) {
      for (const key of [notice.topic, `${notice.topic}:${notice.id}`])
        for (const sub of byKey.get(key) ?? []) if (!sub.internal) return true;
      return false;
    },
    publish(notice: ChangeNotice) {
      for (const key of [notice.topic, `${notice.topic}:${notice.id}`])
        for (const sub of byKey.get(key) ?? []) deliver(sub, notice);
    },
    subscribe(
      topic: string,
      id: string | undefined,
      limit: number,
      internal: boolean,
    ): AsyncIterable<ChangeNotice> {
      const key = id === undefined ? topic : `${topic}:${id}`;
      return {
        [Symbol.asyncIterator]() {
          const sub: Subscriber = {
            pending: new Map(),
            limit,
            overflowed: false,
            done: false,
            wake: null,
            internal,
          };
          const set = byKey.get(key) ?? new Set<Subscriber>();
          set.add(sub);
          byKey.set(key, set);
          const leave = () => {
            sub.done = true;
            set.delete(sub);
            if (set.size === 0 && byKey.get(key) === set) byKey.delete(key);
            sub.wake?.();
          };
          return {
            async next(): Promise<IteratorResult<ChangeNotice>> {
              while (!sub.done && !sub.overflowed && sub.pending.size === 0)
                await new Promise<void>((resolve) => {
                  sub.wake = resolve;
                });
              sub.wake = null;
              if (sub.overflowed) {
                leave();
                throw new GraphQLError('Live updates fell behind; subscribe again to catch up.', {
                  extensions: { code: 'LIVE_BACKLOG' },
                });
              }
              if (sub.done) return { done: true, value: undefined };
              const [first, notice] = sub.pending.entries().next().value as [string, ChangeNotice];
              sub.pending.delete(first);
              return { done: false, value: notice };
            },
            async return(): Promise<IteratorResult<ChangeNotice>> {
              leave();
              return { done: true, value: undefined };
            },
          };
        },
      };
    },
  };
}

export async function createLiveBus(subscriber: Redis, prefix: string): Promise<LiveBus> {
  const fanOut = createFanOut();
  const channel = `${prefix}:changes`;
  const publishLocal = (notice: ChangeNotice) => fanOut.publish(notice);
  const listeners: Array<(notices: ChangeNotice[]) => void> = [];
  const watchers: Array<(notices: ChangeNotice[]) => void> = [];
  subscriber.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    let notices: ChangeNotice[];
    try {
      const parsed = JSON.parse(message) as ChangeNotice | ChangeNotice[];
      notices = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      return; // a malformed message is dropped: clients re-query on reconnect anyway
    }
    for (const watcher of watchers) watcher(notices);
    const wanted = notices.filter((n) => fanOut.wanted(n));
    if (wanted.length > 0) for (const listener of listeners) listener(wanted);
    for (const notice of notices) publishLocal(notice);
  });
  // Subscribed again after every reconnect, so pushes resume by themselves once Redis is back.
  await keepSubscribed(subscriber, channel);
  return {
    subscribe: (topic, id, options) =>
      fanOut.subscribe(topic, id, options?.limit ?? LIVE_BACKLOG_LIMIT, options?.internal ?? false),
    publishLocal,
    onNotices: (listener) => {
      listeners.push(listener);
    },
    watch: (listener) => {
      watchers.push(listener);
    },
    connected: () => subscriber.status === 'ready',
    onReconnect: (listener) => {
      subscriber.on('ready', listener);
    },
    async close() {
      await unsubscribeQuietly(subscriber, channel);
    },
  };
}

const reads = new WeakMap<ChangeNotice, Map<string, Promise<unknown>>>();
/** Reads offered for a notice but not started: the first subscriber that asks starts it. */
const offered = new WeakMap<ChangeNotice, Map<string, () => Promise<unknown>>>();

function readsOf(notice: ChangeNotice) {
  const known = reads.get(notice);
  if (known) return known;
  const byKey = new Map<string, Promise<unknown>>();
  reads.set(notice, byKey);
  return byKey;
}

function keep(byKey: Map<string, Promise<unknown>>, key: string, read: Promise<unknown>) {
  byKey.set(key, read);
  // A failed read is not kept: the next subscriber tries again.
  read.catch(() => {
    if (byKey.get(key) === read) byKey.delete(key);
  });
}

/**
 * One read per notice and key, shared by every subscriber in this process: all of them receive the
 * same notice object, so a change seen by N open screens costs one query, not N. A read offered
 * for the notice (seedSharedRead with a function) is used instead of `read`.
 */
export function sharedRead<T>(notice: ChangeNotice, key: string, read: () => Promise<T>): Promise<T> {
  const byKey = readsOf(notice);
  let pending = byKey.get(key) as Promise<T> | undefined;
  if (!pending) {
    const start = (offered.get(notice)?.get(key) as (() => Promise<T>) | undefined) ?? read;
    pending = start();
    keep(byKey, key, pending);
  }
  return pending;
}

/**
 * Provides the read of `key` for a notice before any subscriber asks (see LiveBus.onNotices): a
 * promise starts it now; a function starts it when a subscriber first asks, and not at all if none
 * does (a push whose fields need no row).
 */
export function seedSharedRead<T>(notice: ChangeNotice, key: string, read: Promise<T> | (() => Promise<T>)) {
  if (typeof read === 'function') {
    const byKey = offered.get(notice) ?? new Map<string, () => Promise<unknown>>();
    offered.set(notice, byKey);
    byKey.set(key, read);
    return;
  }
  const byKey = readsOf(notice);
  if (!byKey.has(key)) keep(byKey, key, read);
}

/**
 * Only the notices of the subscriber's companies (the staff scope, decision 0001), the scope read
 * again as it changes. A notice that names no company reaches ADMINs only.
 */
export async function* inStaffScope(
  source: AsyncIterable<ChangeNotice>,
  app: AppServices,
  actor: Actor | null,
  companyOf: (n: ChangeNotice) => number = (n) => Number(n.data?.companyId),
) {
  for await (const n of source) {
    if (!actor) continue;
    const companyId = companyOf(n);
    if (
      actor.role === 'ADMIN' ||
      (Number.isInteger(companyId) && inScope(await companyScope(app, actor), companyId))
    )
      yield n;
  }
}
