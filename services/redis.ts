// Redis connections from REDIS_URL. BullMQ wants plain options (it opens its own connections).
import { Redis, type RedisOptions } from 'ioredis';

export function redisOptions(url: string): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    // Required by BullMQ workers; harmless elsewhere: commands wait for a reconnect instead of failing.
    maxRetriesPerRequest: null,
  };
}

/**
 * ioredis reconnects by itself; an 'error' event without a listener would only print a stack trace
 * per failed attempt, so errors are reported once per distinct message instead.
 */
export function createRedis(url: string, onError?: (err: Error) => void): Redis {
  const client = new Redis(redisOptions(url));
  let last = '';
  client.on('error', (err: Error) => {
    if (onError) return onError(err);
    if (err.message === last) return;
    last = err.message;
    process.stderr.write(`redis: ${err.message}\n`);
  });
  client.on('ready', () => {
    last = '';
  });
  return client;
}
