// The tail witness against a real Redis: versions only ever raised (witnesses of two processes arrive
// in any order), an anchor forgets only what it covers, and waiting for it ends under a steady stream
// of appends (the anchor job waits for it before it trims).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { TailWitness } from './tail-witness.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis('witness');
});
afterAll(async () => {
  await redis.cleanup();
});

describe('tail witness', () => {
  it('raises a stream’s version, never lowers it, whichever process tells it last', async () => {
    const key = `${redis.prefix}:audit:witness:raise`;
    const a = new TailWitness(redis.client, key);
    const b = new TailWitness(redis.client, key);
    a.committed([
      ['s-1', 5],
      ['s-2', 1],
    ]);
    await a.settled();
    b.committed([
      ['s-1', 3],
      ['s-2', 2],
    ]);
    await b.settled();
    expect(await a.read()).toEqual(
      new Map([
        ['s-1', 5],
        ['s-2', 2],
      ]),
    );
  });

  it('forgets what an anchor covers and keeps a stream written past it', async () => {
    const key = `${redis.prefix}:audit:witness:anchor`;
    const w = new TailWitness(redis.client, key);
    w.committed([
      ['s-1', 4],
      ['s-2', 9],
      ['s-3', 1],
    ]);
    await w.anchored([
      ['s-1', 4, 'h'],
      ['s-2', 7, 'h'],
    ]);
    expect(await w.read()).toEqual(
      new Map([
        ['s-2', 9],
        ['s-3', 1],
      ]),
    );
  });

  it('waiting for it ends while appends keep coming', async () => {
    const w = new TailWitness(redis.client, `${redis.prefix}:audit:witness:steady`);
    let version = 0;
    let appending = true;
    const appends = (async () => {
      while (appending) {
        w.committed([['s-hot', ++version]]);
        await new Promise((r) => setImmediate(r));
      }
    })();
    await new Promise((r) => setTimeout(r, 20));
    const waited = await Promise.race([
      w.settled().then(() => 'settled'),
      new Promise((r) => setTimeout(() => r('still waiting'), 2000)),
    ]);
    appending = false;
    await appends;
    expect(waited).toBe('settled');
    await w.settled();
    expect((await w.read()).get('s-hot')).toBe(version);
  });

  it('a Redis that refuses leaves the appends alone and tells the error', async () => {
    const errors: string[] = [];
    const refusing = {
      eval: () => Promise.reject(new Error('Connection is closed.')),
      hgetall: () => Promise.resolve({}),
    };
    const w = new TailWitness(refusing, 'k', (err) => errors.push(err.message));
    w.committed([['s-1', 1]]);
    await w.settled();
    expect(errors).toEqual(['Connection is closed.']);
  });
});
