// sharedRead: the subscribers of one notice share one read; another notice reads again.
import { describe, expect, it } from 'vitest';
import type { ChangeNotice } from '../../projections/projection.js';
import { sharedRead } from './live.js';

const notice = (id: string): ChangeNotice => ({ topic: 'user', id, data: { type: 'UserRoleChanged' } });

describe('sharedRead', () => {
  it('reads once for every subscriber of the same notice and key', async () => {
    let reads = 0;
    const n = notice('7');
    const read = async () => {
      reads++;
      return { id: 7, reads };
    };
    const results = await Promise.all(Array.from({ length: 5 }, () => sharedRead(n, 'user', read)));
    expect(reads).toBe(1);
    expect(results.every((r) => r === results[0])).toBe(true);
    await sharedRead(n, 'other', read);
    expect(reads).toBe(2);
  });

  it('reads again for the next notice, even of the same user', async () => {
    let reads = 0;
    const read = async () => ++reads;
    expect(await sharedRead(notice('7'), 'user', read)).toBe(1);
    expect(await sharedRead(notice('7'), 'user', read)).toBe(2);
  });

  it('does not keep a failed read: the next subscriber tries again', async () => {
    const n = notice('8');
    let calls = 0;
    const read = async () => {
      calls++;
      if (calls === 1) throw new Error('connection lost');
      return 'row';
    };
    await expect(sharedRead(n, 'user', read)).rejects.toThrow('connection lost');
    expect(await sharedRead(n, 'user', read)).toBe('row');
  });
});
