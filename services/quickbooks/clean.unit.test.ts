import { describe, expect, it } from 'vitest';
import { ACH_MAX_AMOUNT, achAmount, cleanQbId, cleanQbText } from './clean.js';

describe('QuickBooks text is cleaned before it enters an event', () => {
  it('drops controls and direction overrides, mends lone surrogates, trims format characters', () => {
    expect(cleanQbText('INV-\u0000-1', 40)).toBe('INV--1');
    expect(cleanQbText('INV-\u202Egpj.exe', 40)).toBe('INV-gpj.exe');
    expect(cleanQbText('Paper\u0007\u0000 A4', 100)).toBe('Paper A4');
    expect(cleanQbText('INV-\uD800-2', 40)).toBe('INV-\uFFFD-2');
    expect(cleanQbText('line one\nline two\ttab', 100)).toBe('line one line two tab');
    expect(cleanQbText('\u200B Acme \uFEFF', 100)).toBe('Acme');
    // A family emoji keeps its joiners; a cut never leaves half a surrogate pair.
    expect(cleanQbText('👨‍👩‍👧', 10)).toBe('👨‍👩‍👧');
    expect(cleanQbText('ab😀', 3)).toBe('ab');
    expect(cleanQbText('Cafe\u0301', 10)).toBe('Café');
  });

  it('answers null for nothing readable or a non-string', () => {
    expect(cleanQbText('\u0000\u202E\u200B ', 10)).toBeNull();
    expect(cleanQbText(42, 10)).toBeNull();
    expect(cleanQbText(undefined, 10)).toBeNull();
  });
});

describe('amounts are ones an ACH entry can carry', () => {
  it('accepts dollars and cents up to the ACH limit', () => {
    expect(achAmount(0)).toEqual({ ok: true, amount: 0 });
    expect(achAmount(1234.5)).toEqual({ ok: true, amount: 1234.5 });
    expect(achAmount(ACH_MAX_AMOUNT)).toEqual({ ok: true, amount: 99_999_999.99 });
    expect(achAmount('19.99')).toEqual({ ok: true, amount: 19.99 });
  });

  it('refuses, saying why, what is not', () => {
    for (const [v, why] of [
      [9e15, /99,999,999\.99/],
      [100_000_000, /99,999,999\.99/],
      [-0.01, /negative/],
      [10.005, /two decimals/],
      [Number.NaN, /not a number/],
      [Number.POSITIVE_INFINITY, /not a number/],
      ['', /not a number/],
      [null, /not a number/],
    ] as const) {
      const r = achAmount(v);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(why);
    }
  });
});

describe('ids', () => {
  it('keeps QuickBooks ids and refuses anything else', () => {
    expect(cleanQbId('123')).toBe('123');
    expect(cleanQbId("1' or '1'='1")).toBeNull();
    expect(cleanQbId('')).toBeNull();
    expect(cleanQbId(7)).toBeNull();
  });
});
