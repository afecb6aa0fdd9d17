// Live updates: the projector publishes change notices on Redis after each read-model commit; every
// gateway listens and fans them out to its own GraphQL subscribers. Redis pub/sub is fire-and-forget,
// so a client that reconnects re-runs its queries (urql does).
import { createPubSub } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { ChangeNotice } from '../../projections/projection.js';
import { keepSubscribed, unsubscribeQuietly } from '../redis.js';

export interface LiveBus {
  subscribe(topic: string, id?: string): AsyncIterable<ChangeNotice>;
  /** For this process only (tests, and the single-process mode before the first notice). */
  publishLocal(notice: ChangeNotice): void;
  close(): Promise<void>;
}

export async function createLiveBus(subscriber: Redis, prefix: string): Promise<LiveBus> {
  // Topics are dynamic ('user', 'company', …), each also keyed by id: typed loosely on purpose.
  const pubSub = createPubSub() as unknown as {
    publish(topic: string, ...args: [ChangeNotice] | [string, ChangeNotice]): void;
    subscribe(topic: string, id?: string): AsyncIterable<ChangeNotice>;
  };
  const channel = `${prefix}:changes`;
  const publishLocal = (notice: ChangeNotice) => {
    pubSub.publish(notice.topic, notice);
    pubSub.publish(notice.topic, notice.id, notice);
  };
  subscriber.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    try {
      const parsed = JSON.parse(message) as ChangeNotice | ChangeNotice[];
      for (const notice of Array.isArray(parsed) ? parsed : [parsed]) publishLocal(notice);
    } catch {
      /* a malformed message is dropped: clients re-query on reconnect anyway */
    }
  });
  // Subscribed again after every reconnect, so pushes resume by themselves once Redis is back.
  await keepSubscribed(subscriber, channel);
  return {
    subscribe: (topic, id) => (id === undefined ? pubSub.subscribe(topic) : pubSub.subscribe(topic, id)),
    publishLocal,
    async close() {
      await unsubscribeQuietly(subscriber, channel);
    },
  };
}

const reads = new WeakMap<ChangeNotice, Map<string, Promise<unknown>>>();

/**
 * One read per notice and key, shared by every subscriber in this process: all of them receive the
 * same notice object, so a change seen by N open screens costs one query, not N.
 */
export function sharedRead<T>(notice: ChangeNotice, key: string, read: () => Promise<T>): Promise<T> {
  const byKey = reads.get(notice) ?? new Map<string, Promise<unknown>>();
  reads.set(notice, byKey);
  let pending = byKey.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = read();
    byKey.set(key, pending);
    // A failed read is not kept: the next subscriber tries again.
    pending.catch(() => byKey.delete(key));
  }
  return pending;
}
