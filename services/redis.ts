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

export function createRedis(url: string): Redis {
  return new Redis(redisOptions(url));
}
