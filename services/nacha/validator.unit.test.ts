// One broken file per rule: a good file from the writer, one field changed in place; the validator
// (or the parser, for what cannot be read) names the line and the field.
import { describe, expect, it } from 'vitest';
import { parseAchFile } from './parser.js';
import { AchParseError } from './records.js';
import { validateAchFile } from './validator.js';
import { writeAchFile } from './writer.js';

// Lines: 1 file header · 2 batch header (200) · 3 credit with 4 its addenda · 5 debit · 6 batch control
// · 7 batch header (220) · 8 savings credit · 9 prenote · 10 batch control · 11 file control · 12–20 padding.
const GOOD = writeAchFile({
  immediateDestination: '231380104',
  immediateOrigin: '1123456789',
  fileCreationDate: '260702',
  fileCreationTime: '0930',
  fileIdModifier: 'A',
  immediateDestinationName: 'Federal Reserve Bank',
  immediateOriginName: 'Acme Supplies',
  batches: [
    {
      serviceClassCode: 200,
      standardEntryClassCode: 'CCD',
      companyName: 'Acme Supplies',
      companyIdentification: '1123456789',
      companyEntryDescription: 'VENDOR PAY',
      effectiveEntryDate: '260706',
      odfiIdentification: '23138010',
      entries: [
        {
          transactionCode: 22,
          routingNumber: '031300012',
          accountNumber: '11112222',
          amountCents: 150_00,
          individualName: 'Paper Co',
          addenda: 'BILLS 1001',
        },
        {
          transactionCode: 27,
          routingNumber: '231380104',
          accountNumber: '99998888',
          amountCents: 150_00,
          individualName: 'Acme Supplies',
        },
      ],
    },
    {
      serviceClassCode: 220,
      standardEntryClassCode: 'PPD',
      companyName: 'Acme Supplies',
      companyIdentification: '1123456789',
      companyEntryDescription: 'PAYROLL',
      effectiveEntryDate: '260706',
      odfiIdentification: '23138010',
      entries: [
        {
          transactionCode: 32,
          routingNumber: '121042882',
          accountNumber: '5555',
          amountCents: 99,
          individualName: 'Jo Smith',
        },
        {
          transactionCode: 23,
          routingNumber: '121042882',
          accountNumber: '6666',
          amountCents: 0,
          individualName: 'Al Jones',
        },
      ],
    },
  ],
}).split('\n');

/** GOOD with `value` written at NACHA position `pos` (1-based) of line `line`. */
function set(line: number, pos: number, value: string, lines = GOOD): string[] {
  const out = [...lines];
  const l = out[line - 1];
  out[line - 1] = l.slice(0, pos - 1) + value + l.slice(pos - 1 + value.length);
  return out;
}
const join = (lines: string[]) => lines.join('\n');

describe('the base file', () => {
  it('is good, 20 lines', () => {
    expect(GOOD).toHaveLength(21); // the last is the final line ending's empty string
    expect(validateAchFile(join(GOOD))).toEqual([]);
  });
});

type Case = [rule: string, lines: string[], line: number, record: string, field: string];
const cases: Case[] = [
  ['priority code 01', set(1, 2, '02'), 1, 'FileHeader', 'priorityCode'],
  ['immediate destination check digit', set(1, 5, '231380105'), 1, 'FileHeader', 'immediateDestination'],
  ['immediate destination digits', set(1, 5, '23138010X'), 1, 'FileHeader', 'immediateDestination'],
  ['immediate origin never zeros', set(1, 14, '0000000000'), 1, 'FileHeader', 'immediateOrigin'],
  ['immediate origin routing check digit', set(1, 14, ' 231380105'), 1, 'FileHeader', 'immediateOrigin'],
  ['immediate origin routing or 1+EIN', set(1, 14, '2123456789'), 1, 'FileHeader', 'immediateOrigin'],
  ['file creation date', set(1, 24, '261332'), 1, 'FileHeader', 'fileCreationDate'],
  ['file creation time', set(1, 30, '2460'), 1, 'FileHeader', 'fileCreationTime'],
  ['file id modifier A–Z 0–9', set(1, 34, 'a'), 1, 'FileHeader', 'fileIdModifier'],
  ['record size 094', set(1, 35, '095'), 1, 'FileHeader', 'recordSize'],
  ['blocking factor 10', set(1, 38, '11'), 1, 'FileHeader', 'blockingFactor'],
  ['format code 1', set(1, 40, '2'), 1, 'FileHeader', 'formatCode'],
  ['printable names', set(1, 41, 'É'), 1, 'FileHeader', 'immediateDestinationName'],
  ['service class 200/220/225', set(2, 2, '230'), 2, 'BatchHeader', 'serviceClassCode'],
  ['SEC code PPD/CCD', set(2, 51, 'WEB'), 2, 'BatchHeader', 'standardEntryClassCode'],
  ['company name present', set(2, 5, ' '.repeat(16)), 2, 'BatchHeader', 'companyName'],
  ['company id not zeros', set(2, 41, '0000000000'), 2, 'BatchHeader', 'companyIdentification'],
  ['entry description present', set(2, 54, '0'.repeat(10)), 2, 'BatchHeader', 'companyEntryDescription'],
  ['effective date YYMMDD', set(2, 70, '260230'), 2, 'BatchHeader', 'effectiveEntryDate'],
  ['originator status 1 or 2', set(2, 79, '0'), 2, 'BatchHeader', 'originatorStatusCode'],
  ['ODFI 8 digits', set(2, 80, '2313801X'), 2, 'BatchHeader', 'odfiIdentification'],
  ['first batch number is 1', set(6, 88, '0000002', set(2, 88, '0000002')), 2, 'BatchHeader', 'batchNumber'],
  ['batch numbers ascend', set(10, 88, '0000001', set(7, 88, '0000001')), 7, 'BatchHeader', 'batchNumber'],
  ['transaction code allowed', set(3, 2, '21'), 3, 'EntryDetail', 'transactionCode'],
  ['220 carries credits only', set(8, 2, '37'), 8, 'EntryDetail', 'transactionCode'],
  ['225 carries debits only', set(10, 2, '225', set(7, 2, '225')), 8, 'EntryDetail', 'transactionCode'],
  ['RDFI check digit', set(3, 12, '3'), 3, 'EntryDetail', 'checkDigit'],
  ['RDFI digits', set(3, 4, '0313000X'), 3, 'EntryDetail', 'rdfiIdentification'],
  ['account number present', set(3, 13, ' '.repeat(17)), 3, 'EntryDetail', 'dfiAccountNumber'],
  ['prenote amount zero', set(9, 30, '0000000001'), 9, 'EntryDetail', 'amount'],
  ['live amount non-zero', set(5, 30, '0000000000'), 5, 'EntryDetail', 'amount'],
  ['name present', set(5, 55, ' '.repeat(22)), 5, 'EntryDetail', 'individualName'],
  ['name printable', set(5, 55, 'Ü'), 5, 'EntryDetail', 'individualName'],
  ['trace prefix is the ODFI', set(5, 80, '12345678'), 5, 'EntryDetail', 'traceNumber'],
  ['trace numbers ascend', set(5, 88, '0000001'), 5, 'EntryDetail', 'traceNumber'],
  ['trace number digits', set(5, 88, '000000X'), 5, 'EntryDetail', 'traceNumber'],
  ['addenda indicator 1 needs an addenda', set(5, 79, '1'), 5, 'EntryDetail', 'addendaRecordIndicator'],
  ['addenda indicator 0 with an addenda', set(3, 79, '0'), 3, 'EntryDetail', 'addendaRecordIndicator'],
  ['at most one addenda', [...GOOD.slice(0, 4), GOOD[3], ...GOOD.slice(4)], 5, 'Addenda', 'addendaTypeCode'],
  ['addenda type 05', set(4, 2, '02'), 4, 'Addenda', 'addendaTypeCode'],
  ['addenda sequence 1', set(4, 84, '0002'), 4, 'Addenda', 'addendaSequenceNumber'],
  ["addenda's entry sequence", set(4, 88, '0000009'), 4, 'Addenda', 'entryDetailSequenceNumber'],
  ['batch control service class', set(6, 2, '220'), 6, 'BatchControl', 'serviceClassCode'],
  ['batch control entry/addenda count', set(6, 5, '000004'), 6, 'BatchControl', 'entryAddendaCount'],
  ['batch control entry hash', set(6, 11, '0000000001'), 6, 'BatchControl', 'entryHash'],
  ['batch control total debit', set(6, 21, '000000000001'), 6, 'BatchControl', 'totalDebit'],
  ['batch control total credit', set(6, 33, '000000000001'), 6, 'BatchControl', 'totalCredit'],
  ['batch control company id', set(6, 45, '1999999999'), 6, 'BatchControl', 'companyIdentification'],
  ['batch control ODFI', set(6, 80, '03130001'), 6, 'BatchControl', 'odfiIdentification'],
  ['batch control batch number', set(6, 88, '0000003'), 6, 'BatchControl', 'batchNumber'],
  ['file control batch count', set(11, 2, '000003'), 11, 'FileControl', 'batchCount'],
  ['file control block count', set(11, 8, '000001'), 11, 'FileControl', 'blockCount'],
  ['file control entry/addenda count', set(11, 14, '00000006'), 11, 'FileControl', 'entryAddendaCount'],
  ['file control entry hash', set(11, 22, '0000000001'), 11, 'FileControl', 'entryHash'],
  ['file control total debit', set(11, 32, '000000000001'), 11, 'FileControl', 'totalDebit'],
  ['file control total credit', set(11, 44, '000000000001'), 11, 'FileControl', 'totalCredit'],
  ['padding to a multiple of 10', GOOD.slice(0, 19), 11, 'Padding', 'paddingLines'],
  [
    'no block of padding only',
    [...GOOD.slice(0, 20), ...GOOD.slice(11, 20), GOOD[11]],
    11,
    'Padding',
    'paddingLines',
  ],
];

describe('the validator names the line and the field of each broken rule', () => {
  it.each(cases)('%s', (_rule, lines, line, record, field) => {
    const issues = validateAchFile(join(lines));
    expect(issues).toContainEqual(expect.objectContaining({ line, record, field }));
  });

  it('reports a broken total once where it is wrong: the file control agrees with the records', () => {
    expect(validateAchFile(join(set(6, 21, '000000000001')))).toEqual([
      expect.objectContaining({ line: 6, field: 'totalDebit' }),
    ]);
  });

  it('never writes an account number into an issue', () => {
    const broken = join(set(3, 12, '3', set(3, 13, 'SECRET4242'.padEnd(17))));
    for (const issue of validateAchFile(broken)) expect(issue.message).not.toContain('SECRET4242');
  });
});

type ParseCase = [what: string, lines: string[], line: number, record: string, field: string];
const parseCases: ParseCase[] = [
  [
    'a line of the wrong length',
    [...GOOD.slice(0, 4), GOOD[4].slice(0, 93), ...GOOD.slice(5)],
    5,
    'EntryDetail',
    'lineLength',
  ],
  ['an unknown record type', set(5, 1, 'X'), 5, 'Unknown', 'recordTypeCode'],
  ['no file header', GOOD.slice(1), 1, 'FileHeader', 'recordTypeCode'],
  ['a second file header', [GOOD[0], ...GOOD], 2, 'FileHeader', 'recordTypeCode'],
  ['no file control', GOOD.slice(0, 10), 10, 'FileControl', 'recordTypeCode'],
  [
    'a second file control',
    [...GOOD.slice(0, 11), GOOD[10], ...GOOD.slice(12)],
    12,
    'FileControl',
    'recordTypeCode',
  ],
  [
    'an entry outside a batch',
    [...GOOD.slice(0, 6), GOOD[2], ...GOOD.slice(6)],
    7,
    'EntryDetail',
    'recordTypeCode',
  ],
  [
    'a batch header inside a batch',
    [...GOOD.slice(0, 5), ...GOOD.slice(6)],
    6,
    'BatchHeader',
    'recordTypeCode',
  ],
  [
    'an addenda without its entry',
    [...GOOD.slice(0, 2), GOOD[3], ...GOOD.slice(2)],
    3,
    'Addenda',
    'recordTypeCode',
  ],
  [
    'a batch control without a batch',
    [...GOOD.slice(0, 6), GOOD[5], ...GOOD.slice(6)],
    7,
    'BatchControl',
    'recordTypeCode',
  ],
  [
    'a file control inside a batch',
    [...GOOD.slice(0, 9), ...GOOD.slice(10)],
    10,
    'FileControl',
    'recordTypeCode',
  ],
  [
    'a record after the file control',
    [...GOOD.slice(0, 11), GOOD[2], ...GOOD.slice(12)],
    12,
    'EntryDetail',
    'recordTypeCode',
  ],
  [
    'padding before the file control',
    [...GOOD.slice(0, 10), GOOD[11], ...GOOD.slice(10, 19)],
    11,
    'Padding',
    'recordTypeCode',
  ],
  ['a non-digit in an amount', set(5, 35, 'X'), 5, 'EntryDetail', 'amount'],
  ['an empty line inside', [...GOOD.slice(0, 4), '', ...GOOD.slice(4)], 5, 'Unknown', 'lineLength'],
];

describe('the parser refuses what cannot be read as records, with line, record and field', () => {
  it.each(parseCases)('%s', (_what, lines, line, record, field) => {
    let error: unknown;
    try {
      parseAchFile(join(lines));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AchParseError);
    expect(error).toMatchObject({ line, record, field });
    expect(validateAchFile(join(lines))).toEqual([expect.objectContaining({ line, field })]);
  });

  it('reads a file whose last record lost its trailing blanks, and one with no line endings at all', () => {
    const trimmed = [...GOOD.slice(0, 10), GOOD[10].trimEnd(), ...GOOD.slice(11)];
    expect(parseAchFile(join(trimmed))).toEqual(parseAchFile(join(GOOD)));
    expect(parseAchFile(GOOD.join(''))).toEqual(parseAchFile(join(GOOD)));
  });
});
