// A Redis key prefix per test file, removed afterwards.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

export interface TestRedis {
  url: string;
  prefix: string;
  client: Redis;
  cleanup(): Promise<void>;
}

export async function createTestRedis(label = 't'): Promise<TestRedis> {
  const url = inject('redisUrl');
  const prefix = `test_${label.replace(/[^a-z0-9]/gi, '').slice(0, 16)}_${randomBytes(4).toString('hex')}`;
  const client = new Redis(url, { maxRetriesPerRequest: null });
  return {
    url,
    prefix,
    client,
    async cleanup() {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await client.del(...keys);
      } while (cursor !== '0');
      client.disconnect();
    },
  };
}
