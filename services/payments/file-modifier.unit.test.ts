// The file id modifier of a company's day: the first free of A–Z then 0–9, one per file, the same
// one asked again for the same file, and none after the 36th file of the day. Penny tests: from the
// end of the range, at most a few a company and two a vendor a day, never one of the first 30 that
// payment files keep, each refusal saying its limit and when it resets.
import { describe, expect, it } from 'vitest';
import type { NachaFileDayEvent } from '../../schema/payments/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import {
  FILE_ID_MODIFIERS,
  type FileDayCommand,
  type FileDayState,
  fileDayDecider,
  PAYMENT_RESERVE,
  PENNY_TESTS_PER_COMPANY_PER_DAY,
  PENNY_TESTS_PER_VENDOR_PER_DAY,
  pennyLimitsReset,
} from './file-modifier.js';

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

describe('penny tests on the file day', () => {
  const spec = deciderSpec(fileDayDecider);
  const day = '20260102';
  const at = '2026-01-02T15:00:00Z';
  const resets = /The limit resets at midnight New York time \(00:00 on 2026-01-03\)\./;
  const vendor = (id: string) => ({ qbVendorId: id, name: `Vendor ${id}` });
  const penny = (fileId: string, vendorIds: string[]): FileDayCommand => ({
    type: 'TakeFileIdModifier',
    companyId: 1,
    day,
    fileId,
    now: at,
    kind: 'penny-test',
    vendors: vendorIds.map(vendor),
  });
  const payment = (fileId: string): FileDayCommand => ({
    type: 'TakeFileIdModifier',
    companyId: 1,
    day,
    fileId,
    now: at,
  });
  const taken = (fileId: string, modifier: string, pennyVendors?: string[]): NachaFileDayEvent => ({
    type: 'NachaFileIdModifierTaken',
    data: {
      companyId: 1,
      day,
      modifier,
      fileId,
      at,
      ...(pennyVendors
        ? { kind: 'penny-test' as const, qbVendorIds: pennyVendors }
        : { kind: 'payment' as const }),
    },
  });
  /** Runs the commands one after another on the day's state: each one's modifier, or its refusal. */
  const run = (commands: FileDayCommand[], given: NachaFileDayEvent[] = []) => {
    let state = fold(given);
    return commands.map((c) => {
      try {
        const events = fileDayDecider.decide(c, state);
        state = fold(events, state);
        return events[0]?.data.modifier ?? '';
      } catch (err) {
        return (err as Error).message;
      }
    });
  };

  it('takes from the end of the range, recording the kind and the vendors; payments still start at A', () => {
    spec
      .given([])
      .when(penny('p1', ['v1', 'v2', 'v1']))
      .then([taken('p1', '9', ['v1', 'v2'])]);
    spec
      .given([taken('p1', '9', ['v1'])])
      .when(penny('p2', ['v2']))
      .then([taken('p2', '8', ['v2'])]);
    spec
      .given([taken('p1', '9', ['v1'])])
      .when(payment('f1'))
      .then([taken('f1', 'A')]);
    // The same penny test asked again: its modifier, nothing new.
    spec
      .given([taken('p1', '9', ['v1'])])
      .when(penny('p1', ['v1']))
      .then([]);
  });

  it(`allows ${PENNY_TESTS_PER_VENDOR_PER_DAY} a vendor a day, naming the vendor and when the limit resets`, () => {
    const twice = [taken('p1', '9', ['v1', 'v2']), taken('p2', '8', ['v2', 'v1'])];
    spec
      .given(twice)
      .when(penny('p3', ['v3', 'v1']))
      .thenRefuses(
        'CONFLICT',
        /^Penny test limit reached: at most 2 penny tests per vendor a day, and Vendor v1 has had 2 today\./,
      );
    spec
      .given(twice)
      .when(penny('p3', ['v2', 'v1']))
      .thenRefuses('CONFLICT', /Vendor v2, Vendor v1 have had 2 today/);
    spec
      .given(twice)
      .when(penny('p3', ['v1']))
      .thenRefuses('CONFLICT', resets);
    // Another vendor is still tested.
    spec
      .given(twice)
      .when(penny('p3', ['v3']))
      .then([taken('p3', '7', ['v3'])]);
  });

  it(`allows ${PENNY_TESTS_PER_COMPANY_PER_DAY} a company a day: 30 in a row leave the first ${PAYMENT_RESERVE} modifiers to payments`, () => {
    expect(PAYMENT_RESERVE).toBeGreaterThanOrEqual(30);
    const got = run(Array.from({ length: 30 }, (_, i) => penny(`p${i}`, [`v${i}`])));
    expect(got.slice(0, PENNY_TESTS_PER_COMPANY_PER_DAY)).toEqual([...'987654']);
    for (const refusal of got.slice(PENNY_TESTS_PER_COMPANY_PER_DAY)) {
      expect(refusal).toMatch(/^Penny test limit reached: at most 6 penny tests per company a day/);
      expect(refusal).toMatch(/this company has made 6 today/);
      expect(refusal).toMatch(resets);
    }
    // Payments then take every one of the 30 kept for them, and the bank's 36 are used.
    const penny6 = [...'987654'].map((m, i) => taken(`p${i}`, m, [`v${i}`]));
    const payments = run(
      Array.from({ length: PAYMENT_RESERVE + 1 }, (_, i) => payment(`f${i}`)),
      penny6,
    );
    expect(payments.slice(0, PAYMENT_RESERVE).join('')).toBe(FILE_ID_MODIFIERS.slice(0, PAYMENT_RESERVE));
    expect(payments.at(-1)).toMatch(/36 files today/);
  });

  it('never takes one of the modifiers payment files kept: payments come first', () => {
    // 32 payment files (A–Z, 0–5): penny tests have 6–9 left, then are refused.
    const paid = [...FILE_ID_MODIFIERS.slice(0, 32)].map((m, i) => taken(`f${i}`, m));
    const got = run(
      Array.from({ length: 6 }, (_, i) => penny(`p${i}`, [`v${i}`])),
      paid,
    );
    expect(got.slice(0, 4)).toEqual([...'9876']);
    expect(got[4]).toMatch(
      /^Penny test limit reached: the company's payment files have used the file ids penny tests may take today/,
    );
    expect(got[5]).toMatch(resets);
  });

  it('reads modifiers taken before the kind was recorded as payment files', () => {
    const older: NachaFileDayEvent = {
      type: 'NachaFileIdModifierTaken',
      data: { companyId: 1, day, modifier: 'A', fileId: 'old', at },
    };
    const state = fold([older]);
    expect(state.pennyTests).toBe(0);
    expect(state.taken.get('old')).toBe('A');
    spec
      .given([older])
      .when(payment('f1'))
      .then([taken('f1', 'B')]);
  });

  it('says the next New York day as the reset, across a month and a year', () => {
    expect(pennyLimitsReset('20260131')).toContain('00:00 on 2026-02-01');
    expect(pennyLimitsReset('20261231')).toContain('00:00 on 2027-01-01');
  });
});
