import { describe, expect, it } from 'vitest';
import { validateBankingControl } from './banking-control-rules';

describe('validateBankingControl', () => {
  it('asks for a reason only when the control is turned off', () => {
    expect(validateBankingControl({ turningOff: true, flagDays: '30', reason: '  ' })).toEqual({
      reason: 'Please give a reason for turning the control off',
    });
    expect(validateBankingControl({ turningOff: false, flagDays: '30', reason: '' })).toEqual({});
    expect(
      validateBankingControl({ turningOff: true, flagDays: '30', reason: 'Vendor portal checks it' }),
    ).toEqual({});
  });

  it('takes 1 to 365 whole days', () => {
    for (const bad of ['', '0', '366', '2.5', 'ten', '-3'])
      expect(validateBankingControl({ turningOff: false, flagDays: bad, reason: '' }).flagDays).toBeTruthy();
    for (const good of ['1', ' 14 ', '365'])
      expect(validateBankingControl({ turningOff: false, flagDays: good, reason: '' })).toEqual({});
  });
});
