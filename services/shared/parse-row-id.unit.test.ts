import { describe, expect, it } from 'vitest';
import { AppError, parseRowId } from './errors.js';

describe('parseRowId', () => {
  it('takes digits and whole numbers that an integer column can hold', () => {
    expect(parseRowId('42', 'Vendor not found')).toBe(42);
    expect(parseRowId(7, 'Vendor not found')).toBe(7);
    expect(parseRowId('2147483647', 'Vendor not found')).toBe(2_147_483_647);
  });

  it('answers NOT_FOUND with the caller’s message for anything else, past the column’s range too', () => {
    for (const id of [
      '2147483648',
      '9999999999',
      '0',
      0,
      -1,
      1.5,
      '1e3',
      ' 1',
      '12345678901',
      '',
      null,
      {},
    ]) {
      let caught: unknown;
      try {
        parseRowId(id, 'Vendor not found');
      } catch (err) {
        caught = err;
      }
      expect(caught, String(id)).toBeInstanceOf(AppError);
      expect(caught).toMatchObject({ code: 'NOT_FOUND', message: 'Vendor not found' });
    }
  });
});
