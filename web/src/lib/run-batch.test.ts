import { describe, expect, it } from 'vitest';
import { runBatch } from './run-batch';

describe('runBatch', () => {
  it('runs one item at a time and reports each result, failures included', async () => {
    let running = 0;
    let maxRunning = 0;
    const order: string[] = [];
    const reported: string[] = [];
    const items = [{ id: 1 }, { id: 2 }, { id: 3 }];
    const results = await runBatch(
      items,
      async (item) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        order.push(`start ${item.id}`);
        await new Promise((r) => setTimeout(r, 5));
        order.push(`end ${item.id}`);
        running -= 1;
        if (item.id === 2) throw new Error('The last active administrator cannot be removed');
      },
      (item) => `user ${item.id}`,
      'Deactivated',
      (r) => reported.push(`${r.label}: ${r.message}`),
    );
    expect(maxRunning).toBe(1);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    expect(reported).toEqual([
      'user 1: Deactivated',
      'user 2: The last active administrator cannot be removed',
      'user 3: Deactivated',
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
  });
});
