// Read your writes: a mutation's wait ends on the projector's Redis message, falls back to polling
// Postgres when that message is lost, and gives up after its timeout.
import { Redis } from 'ioredis';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCheckpoints } from '../services/consumers/checkpoints.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';
import { CatchUpWaiter } from './catch-up.js';
import { ChangePublisher } from './publisher.js';

let tdb: TestDatabase;
let tredis: TestRedis;
let subscriber: Redis;
let waiter: CatchUpWaiter;
const silentLog = { info() {}, warn() {}, error() {}, debug() {} } as never;

async function setCheckpoint(name: string, position: string) {
  await tdb.pool.query(
    `INSERT INTO projection_checkpoints (name, position, version) VALUES ($1, $2, 1)
     ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position`,
    [name, position],
  );
}

const publish = (name: string, position: string) =>
  tredis.client.publish(`${tredis.prefix}:checkpoint`, JSON.stringify({ name, position }));

beforeAll(async () => {
  tdb = await createTestDatabase('catchup');
  tredis = await createTestRedis('catchup');
  await ensureCheckpoints(new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) }));
  await setCheckpoint('users', '0000000010');
  await setCheckpoint('activity', '0000000010');
  subscriber = new Redis(tredis.url, { maxRetriesPerRequest: null });
  waiter = new CatchUpWaiter({ pool: tdb.pool, subscriber, prefix: tredis.prefix, pollMs: 50 });
  await waiter.start();
});

afterAll(async () => {
  await waiter.close();
  subscriber.disconnect();
  await tredis.cleanup();
  await tdb.drop();
});

describe('CatchUpWaiter', () => {
  it('answers at once from Postgres before any Redis message has arrived', async () => {
    expect(await waiter.waitFor('0000000010', ['users', 'activity'], 1000)).toBe(true);
  });

  it('ends the wait when every named projection has published a position at or past it', async () => {
    const wait = waiter.waitFor('0000000012', ['users', 'activity'], 5000);
    await publish('users', '0000000012');
    await publish('activity', '0000000011');
    await new Promise((r) => setTimeout(r, 100));
    // Checkpoints stand still in Postgres, so only the messages can move it.
    await publish('activity', '0000000013');
    const started = performance.now();
    expect(await wait).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('is not ended by a projection it does not wait for', async () => {
    await setCheckpoint('users', '0000000020');
    await publish('users', '0000000020');
    expect(await waiter.waitFor('0000000020', ['activity'], 300)).toBe(false);
  });

  it('catches up by polling Postgres when the Redis message is lost', async () => {
    const wait = waiter.waitFor('0000000030', ['users'], 5000);
    await setCheckpoint('users', '0000000030'); // committed, but never published
    expect(await wait).toBe(true);
  });

  it('gives up after its timeout when the projection does not get there', async () => {
    const started = performance.now();
    expect(await waiter.waitFor('0000000099', ['users'], 200)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("ends a wait on one coalesced message carrying several projections' moves", async () => {
    const publisher = new ChangePublisher(tredis.client, tredis.prefix, silentLog);
    const wait = waiter.waitFor('0000000040', ['users', 'activity'], 5000);
    publisher.publish('users', [], '0000000040');
    publisher.publish('activity', [], '0000000041');
    const started = performance.now();
    expect(await wait).toBe(true);
    // Checkpoints stand at 30 in Postgres: only the message can have ended it, well before a poll round.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('ChangePublisher', () => {
  it("sends one turn's batches of every projection as one message per channel, notices before checkpoints", async () => {
    const listener = new Redis(tredis.url, { maxRetriesPerRequest: null });
    const got: Array<[string, unknown]> = [];
    listener.on('message', (channel: string, message: string) => got.push([channel, JSON.parse(message)]));
    await listener.subscribe(`${tredis.prefix}:changes`, `${tredis.prefix}:checkpoint`);
    const publisher = new ChangePublisher(tredis.client, tredis.prefix, silentLog);
    publisher.publish('users', [{ topic: 'user', id: '7' }], '0000000050');
    publisher.publish('activity', [], '0000000050');
    publisher.publish('users', [{ topic: 'user', id: '8' }], '0000000051');
    for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    listener.disconnect();
    expect(got).toEqual([
      [
        `${tredis.prefix}:changes`,
        [
          { topic: 'user', id: '7', at: '0000000050' },
          { topic: 'user', id: '8', at: '0000000051' },
        ],
      ],
      [
        `${tredis.prefix}:checkpoint`,
        [
          { name: 'users', position: '0000000051' },
          { name: 'activity', position: '0000000050' },
        ],
      ],
    ]);
  });

  it('holds a move over a batch that wrote nothing back a moment, for the next one that did', async () => {
    const listener = new Redis(tredis.url, { maxRetriesPerRequest: null });
    const got: Array<[string, unknown, number]> = [];
    const started = performance.now();
    listener.on('message', (channel: string, message: string) =>
      got.push([channel, JSON.parse(message), performance.now() - started]),
    );
    await listener.subscribe(`${tredis.prefix}:checkpoint`);
    const publisher = new ChangePublisher(tredis.client, tredis.prefix, silentLog);
    // Alone, a quiet move still goes out, a few milliseconds later.
    publisher.publish('companies', [], '0000000060', false);
    for (let i = 0; i < 50 && got.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(got).toHaveLength(1);
    expect(got[0][1]).toEqual([{ name: 'companies', position: '0000000060' }]);
    // Followed within the window by a batch that wrote: one message carries both.
    publisher.publish('vendors', [], '0000000061', false);
    await new Promise((r) => setTimeout(r, 2));
    publisher.publish('users', [], '0000000061');
    for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    listener.disconnect();
    expect(got.map((g) => g[1])).toEqual([
      [{ name: 'companies', position: '0000000060' }],
      [
        { name: 'vendors', position: '0000000061' },
        { name: 'users', position: '0000000061' },
      ],
    ]);
  });
});
