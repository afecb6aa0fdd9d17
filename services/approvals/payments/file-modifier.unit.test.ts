// The file id modifier of a company's day: the first free of A–Z then 0–9, one per file, the same
// one asked again for the same file, and none after the 36th file of the day.
import { describe, expect, it } from 'vitest';
import type { NachaFileDayEvent } from '../../../schema/approvals/payment-events.js';
import { FILE_ID_MODIFIERS, type FileDayState, fileDayDecider } from './file-modifier.js';

const take = (state: FileDayState, fileId: string) =>
  fileDayDecider.decide(
    { type: 'TakeFileIdModifier', companyId: 1, day: '20260102', fileId, now: '2026-01-02T15:00:00Z' },
    state,
  );
const fold = (events: NachaFileDayEvent[], state = fileDayDecider.initialState()) =>
  events.reduce(fileDayDecider.evolve, state);

describe('file id modifiers', () => {
  it('gives A, then B, and the same one again to the same file', () => {
    const a = take(fileDayDecider.initialState(), 'f1');
    expect(a.map((e) => e.data.modifier)).toEqual(['A']);
    const s1 = fold(a);
    expect(take(s1, 'f1')).toEqual([]);
    expect(take(s1, 'f2').map((e) => e.data.modifier)).toEqual(['B']);
  });

  it('goes on with 0–9 after Z and refuses a 37th file', () => {
    let state = fileDayDecider.initialState();
    const got: string[] = [];
    for (let i = 0; i < 36; i++) {
      const events = take(state, `f${i}`);
      got.push(events[0].data.modifier);
      state = fold(events, state);
    }
    expect(got.join('')).toBe(FILE_ID_MODIFIERS);
    expect(() => take(state, 'f36')).toThrow(/36 files today/);
  });

  it('names its stream by company and day', () => {
    expect(fileDayDecider.streamId(7, '20260102')).toBe('nachafileday-7-20260102');
  });
});
