// The bank's own words kept on a delivery: a number that could be an account is masked to its last
// four; the file's name, its date inside it, stays readable.
import { describe, expect, it } from 'vitest';
import { maskDigitRuns } from './delivery.js';

describe('the bank’s words on record', () => {
  it('masks numbers of six digits or more, keeps shorter ones and the file’s name', () => {
    expect(maskDigitRuns('REJECTED ACH_20261207_A_SUNRISE.txt: account 123456789012 closed, code 04')).toBe(
      'REJECTED ACH_20261207_A_SUNRISE.txt: account ••••••••9012 closed, code 04',
    );
    expect(maskDigitRuns('routing 021000021; batch 12345')).toBe('routing •••••0021; batch 12345');
  });
});
