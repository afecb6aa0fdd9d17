// Redis connections from REDIS_URL. Two kinds, on purpose:
// - the app's own clients (sign-in limits, publishes, health, pub/sub) fail fast while Redis is down,
//   so a request or the projector never waits on it;
// - BullMQ's connections (redisOptions) wait and reconnect, as BullMQ workers require.
// A RedisMonitor watches the app's clients and says once that Redis is down and once that it is back.
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './log.js';
import { createLogger } from './log.js';

/** A command that gets no answer in this time fails (a Redis that hangs rather than refuses). */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
/** Reconnect attempts back off up to this interval and never stop. */
const MAX_RECONNECT_DELAY_MS = 2000;

function connectionOptions(url: string): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 200, MAX_RECONNECT_DELAY_MS),
  };
}

/**
 * Options for BullMQ (Queue, Worker, QueueEvents open their own connections). BullMQ workers require
 * `maxRetriesPerRequest: null`: their blocking commands wait for a reconnect instead of failing.
 */
export function redisOptions(url: string): RedisOptions {
  return { ...connectionOptions(url), maxRetriesPerRequest: null };
}

/** Options for the app's own clients: while Redis is down a command fails at once, never queues. */
export function appRedisOptions(url: string): RedisOptions {
  return {
    ...connectionOptions(url),
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  };
}

/**
 * Tracks Redis availability for one process: 'down' when a client starts reconnecting, 'back' when
 * every client is ready again, each logged once per outage (not per client or per retry). Clients
 * get an 'error' listener, so ioredis never prints a stack trace per failed attempt.
 */
export class RedisMonitor {
  private readonly clients = new Set<Redis>();
  private downSince: number | null = null;
  private lastError: string | null = null;

  constructor(private readonly log: Logger) {}

  track(client: Redis): Redis {
    this.clients.add(client);
    client.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    // Emitted only when ioredis will retry: a deliberate disconnect() never counts as an outage.
    client.on('reconnecting', () => this.markDown());
    client.on('ready', () => this.markUpIfAll());
    // A client closed for good (shutdown) is simply no longer watched.
    client.on('end', () => this.clients.delete(client));
    return client;
  }

  private markDown() {
    if (this.downSince !== null) return;
    this.downSince = Date.now();
    this.log.warn(
      { err: this.lastError ?? undefined },
      'Redis is down: sign-in limits hold per process, live updates pause; reconnecting',
    );
  }

  private markUpIfAll() {
    if (this.downSince === null) return;
    if (![...this.clients].every((c) => c.status === 'ready')) return;
    this.log.info({ downForMs: Date.now() - this.downSince }, 'Redis is back');
    this.downSince = null;
    this.lastError = null;
  }
}

let defaultMonitor: RedisMonitor | null = null;

/** An app client (fails fast while Redis is down), watched by `monitor` (by default one per process). */
export function createRedis(url: string, monitor?: RedisMonitor): Redis {
  if (!monitor) defaultMonitor ??= new RedisMonitor(createLogger('info', { component: 'redis' }));
  return (monitor ?? (defaultMonitor as RedisMonitor)).track(new Redis(appRedisOptions(url)));
}

/** Waits until the client is ready, at most `timeoutMs`; false when it is not (Redis down at start). */
export function redisReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}

/**
 * Subscribes `client` to `channel` now (when connected) and again after every reconnect: with the
 * offline queue off, a subscribe attempted while Redis was down would otherwise be lost. Resolves
 * once subscribed, or after `timeoutMs` when Redis is not there (the subscription follows later).
 */
export async function keepSubscribed(client: Redis, channel: string, timeoutMs = 3000): Promise<void> {
  const subscribe = () => client.subscribe(channel).catch(() => {});
  client.on('ready', () => void subscribe());
  if (await redisReady(client, timeoutMs)) await subscribe();
}

/** Unsubscribes when connected; never waits on a Redis that is not there. */
export async function unsubscribeQuietly(client: Redis, channel: string): Promise<void> {
  if (client.status !== 'ready') return;
  await client.unsubscribe(channel).catch(() => {});
}
