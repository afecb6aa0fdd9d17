// The one rule the NACHA file and the QuickBooks payments pay by: the open balance in QuickBooks, never
// more than was approved; a balance that is not a valid amount pays nothing and says why.
import { describe, expect, it } from 'vitest';
import { NO_VALID_BALANCE, payableAmount } from './approved-amount.js';

describe('payableAmount', () => {
  it('a balance raised in QuickBooks since the approval is capped at the approved balance', () => {
    expect(payableAmount(250.75, 120.5)).toEqual({ cents: 12050 });
    expect(payableAmount('250.75', 120.5)).toEqual({ cents: 12050 });
  });

  it('a balance lowered since (paid in part there) is paid as it is now; 0 is nothing open', () => {
    expect(payableAmount(80.1, 120.5)).toEqual({ cents: 8010 });
    expect(payableAmount(120.5, 120.5)).toEqual({ cents: 12050 });
    expect(payableAmount(0, 120.5)).toEqual({ cents: 0 });
  });

  it('rounds to the cent as a file writes it', () => {
    expect(payableAmount(0.1 + 0.2, 10)).toEqual({ cents: 30 });
    expect(payableAmount(19.999, 20)).toEqual({ cents: 2000 });
  });

  it('a balance that is not a number, or below zero, pays nothing and is named', () => {
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0.01,
      -40,
      'n/a',
      '',
      ' ',
      null,
      undefined,
      {},
      [5],
      true,
    ])
      expect(payableAmount(bad, 120.5), String(bad)).toEqual({ invalid: NO_VALID_BALANCE });
  });

  it('an approved balance that is not a valid amount pays nothing either', () => {
    expect(payableAmount(50, Number.NaN)).toEqual({ invalid: 'The approved balance is not a valid amount' });
    expect(payableAmount(50, -1)).toEqual({ invalid: 'The approved balance is not a valid amount' });
    expect(payableAmount(50, undefined)).toEqual({ invalid: 'The approved balance is not a valid amount' });
  });
});
