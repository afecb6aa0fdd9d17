import { describe, expect, it } from 'vitest';
import { FreshReads } from './fresh-reads.js';

const P1 = '00000000000000000010:00000000000000000001';
const P2 = '00000000000000000011:00000000000000000002';
const P3 = '00000000000000000012:00000000000000000003';

describe('FreshReads', () => {
  it('gives a read only to a caller whose position it covers', async () => {
    const reads = new FreshReads();
    reads.offer('user:1', P2, Promise.resolve({ id: 1, last_name: 'New' }));
    await expect(reads.take('user:1', P1)).resolves.toEqual({ id: 1, last_name: 'New' });
    await expect(reads.take('user:1', P2)).resolves.toEqual({ id: 1, last_name: 'New' });
    // Its own events lie past what the read saw: it must read for itself.
    expect(reads.take('user:1', P3)).toBeNull();
    expect(reads.take('user:2', P1)).toBeNull();
  });

  it('keeps the newer of two offers for one key', async () => {
    const reads = new FreshReads();
    reads.offer('user:1', P3, Promise.resolve('newer'));
    reads.offer('user:1', P2, Promise.resolve('older')); // a message that came late
    await expect(reads.take('user:1', P3)).resolves.toBe('newer');
  });

  it('forgets offers after a second', () => {
    let now = 1_000;
    const reads = new FreshReads(() => now);
    reads.offer('user:1', P2, Promise.resolve('row'));
    now += 1_001;
    expect(reads.take('user:1', P1)).toBeNull();
    expect(reads.size).toBe(0);
  });

  it('does not offer a read that failed', async () => {
    const reads = new FreshReads();
    const failed = Promise.reject(new Error('connection lost'));
    reads.offer('user:1', P2, failed);
    await failed.catch(() => {});
    await Promise.resolve();
    expect(reads.take('user:1', P1)).toBeNull();
  });

  it('stays bounded, dropping the oldest offers first', () => {
    const reads = new FreshReads();
    for (let i = 0; i < 2_100; i++) reads.offer(`user:${i}`, P1, Promise.resolve(i));
    expect(reads.size).toBe(2_000);
    expect(reads.take('user:0', P1)).toBeNull();
    expect(reads.take('user:2099', P1)).not.toBeNull();
  });
});
