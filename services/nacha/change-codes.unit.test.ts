// The change codes and their corrected data (Addenda 98 positions 36–64) as Nacha lays each out, the
// deviation live NOCs show, and the refusals: a bad routing number or transaction code is an error.
import { describe, expect, it } from 'vitest';
import {
  CHANGE_CODES,
  CorrectedDataError,
  changeCode,
  isRefusedChangeCode,
  parseCorrectedData,
} from './change-codes.js';

/** The 29-character field with each value at its 1-based position. */
function field(...parts: Array<[number, string]>): string {
  const chars = ' '.repeat(29).split('');
  for (const [at, value] of parts) for (let i = 0; i < value.length; i++) chars[at - 1 + i] = value[i];
  return chars.join('');
}

describe('the change codes', () => {
  it("holds Nacha's changes and the ODFI's refusals, and nothing else", () => {
    expect([...CHANGE_CODES.keys()]).toEqual([
      'C01',
      'C02',
      'C03',
      'C04',
      'C05',
      'C06',
      'C07',
      'C09',
      'C13',
      'C61',
      'C62',
      'C63',
      'C64',
      'C65',
      'C66',
      'C67',
      'C68',
      'C69',
    ]);
    for (const unknown of ['C08', 'C10', 'C11', 'C12', 'C14', 'C92', 'c01', 'R01'])
      expect(changeCode(unknown)).toBeUndefined();
  });

  it('says which vendor fields each corrects', () => {
    expect(changeCode('C01')?.corrects).toEqual(['accountNumber']);
    expect(changeCode('C03')?.corrects).toEqual(['routingNumber', 'accountNumber']);
    expect(changeCode('C06')?.corrects).toEqual(['accountNumber', 'transactionCode']);
    expect(changeCode('C07')?.corrects).toEqual(['routingNumber', 'accountNumber', 'transactionCode']);
    expect(changeCode('C09')?.corrects).toEqual(['identification']);
    expect(changeCode('C13')?.corrects).toEqual([]);
  });

  it('knows the refusals C61–C69', () => {
    for (let n = 61; n <= 69; n++) expect(isRefusedChangeCode(`C${n}`)).toBe(true);
    expect(isRefusedChangeCode('C01')).toBe(false);
    expect(isRefusedChangeCode('C70')).toBe(false);
  });
});

describe('parseCorrectedData by position', () => {
  it.each([
    ['C01', field([1, '1918171614']), { accountNumber: '1918171614' }],
    ['C01', field([1, 'ABC-1234567890123']), { accountNumber: 'ABC-1234567890123' }],
    ['C02', field([1, '091000019']), { routingNumber: '091000019' }],
    [
      'C03',
      field([1, '091000019'], [13, '12345678901234567']),
      { routingNumber: '091000019', accountNumber: '12345678901234567' },
    ],
    ['C04', field([1, 'ACME SUPPLY CO']), { name: 'ACME SUPPLY CO' }],
    ['C05', field([1, '32']), { transactionCode: 32 }],
    ['C06', field([1, '5550001234'], [21, '32']), { accountNumber: '5550001234', transactionCode: 32 }],
    [
      'C06',
      field([1, '12345678901234567'], [21, '23']),
      { accountNumber: '12345678901234567', transactionCode: 23 },
    ],
    [
      'C07',
      field([1, '091000019'], [10, '5550001234'], [27, '33']),
      { routingNumber: '091000019', accountNumber: '5550001234', transactionCode: 33 },
    ],
    ['C09', field([1, 'V-000042']), { identification: 'V-000042' }],
    ['C13', field(), {}],
  ])('%s %j', (code, data, expected) => {
    expect(parseCorrectedData(code, data)).toEqual(expected);
  });

  it('reads a field shorter than 29 characters as if padded (trailing blanks dropped)', () => {
    expect(parseCorrectedData('C01', '1918171614')).toEqual({ accountNumber: '1918171614' });
  });
});

describe('parseCorrectedData off position (split on blanks)', () => {
  it('reads the C06 live NOCs send: a space inside the account, the code at 26–27', () => {
    expect(parseCorrectedData('C06', '123456789 111            22 ')).toEqual({
      accountNumber: '123456789 111',
      transactionCode: 22,
    });
  });

  it("reads a C07 whose code is right-aligned (28–29), as moov-io/ach's writer puts it", () => {
    expect(parseCorrectedData('C07', field([1, '091000019'], [10, '5550001234'], [28, '22']))).toEqual({
      routingNumber: '091000019',
      accountNumber: '5550001234',
      transactionCode: 22,
    });
  });

  it('reads a C03 with one blank between routing and account', () => {
    expect(parseCorrectedData('C03', '091000019 5550001234')).toEqual({
      routingNumber: '091000019',
      accountNumber: '5550001234',
    });
  });

  it('reads a C02 and C05 written a few positions late', () => {
    expect(parseCorrectedData('C02', '  091000019')).toEqual({ routingNumber: '091000019' });
    expect(parseCorrectedData('C05', '   22')).toEqual({ transactionCode: 22 });
  });
});

describe('parseCorrectedData refuses rather than guesses', () => {
  const refused = (code: string, data: string, reason: RegExp) => {
    let error: unknown;
    try {
      parseCorrectedData(code, data);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CorrectedDataError);
    expect((error as CorrectedDataError).changeCode).toBe(code);
    expect((error as Error).message).toMatch(reason);
    return error as Error;
  };

  it('a C02 routing number failing its check digit', () => {
    refused('C02', field([1, '091000018']), /091000018 fails its check digit/);
  });

  it('a C03 and a C07 whose routing number fails its check digit', () => {
    refused('C03', field([1, '091000011'], [13, '5550001234']), /fails its check digit/);
    refused('C07', field([1, '091000011'], [10, '5550001234'], [27, '22']), /fails its check digit/);
  });

  it("a transaction code that is not one of Billflow's credits", () => {
    refused('C05', field([1, '27']), /27 is not one of Billflow's credits/);
    refused('C06', field([1, '5550001234'], [21, '37']), /37 is not one/);
    refused('C05', field([1, 'X2']), /not 2 digits/);
  });

  it('a blank or unreadable field', () => {
    refused('C01', field(), /account number is blank/);
    refused('C02', field(), /not 9 digits/);
    refused('C04', field(), /name is blank/);
    refused('C06', field([1, '5550001234']), /an account number and a transaction code/);
    refused('C01', field([1, '5550001234'], [20, 'EXTRA']), /positions 1–17/);
    refused('C01', field([1, 'ABC-12345678901234']), /longer than 17/);
  });

  it('a code that changes nothing or is not a change code', () => {
    refused('C65', field([1, '5550001234']), /refuses a notification of change/);
    refused('C92', field([1, '5550001234']), /C92 is not a valid change code/);
  });

  it('never puts the account number in its message', () => {
    const account = '98765432109876543';
    const errors = [
      refused('C06', field([1, account], [21, '27']), /27/),
      refused('C01', `${account} X`, /positions 1–17/),
      refused('C03', field([1, '091000011'], [13, account]), /check digit/),
    ];
    for (const e of errors) expect(e.message).not.toContain(account);
  });
});
