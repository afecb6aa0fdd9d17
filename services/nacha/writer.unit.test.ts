// The writer: what it computes, how it writes text, what it refuses, and (property) that any file it
// writes parses back to the same records and has no issue.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAchFile } from './parser.js';
import { AchWriteError, isCredit, isPrenote, routingCheckDigit, type TransactionCode } from './records.js';
import { validateAchFile } from './validator.js';
import {
  type AchBatchInput,
  type AchEntryInput,
  type AchFileInput,
  achText,
  writeAchFile,
  writeAchFileWithTotals,
} from './writer.js';

const entry = (over: Partial<AchEntryInput> = {}): AchEntryInput => ({
  transactionCode: 22,
  routingNumber: '031300012',
  accountNumber: '123456789',
  amountCents: 1000,
  individualName: 'Paper Co',
  ...over,
});
const batch = (over: Partial<AchBatchInput> = {}): AchBatchInput => ({
  serviceClassCode: 220,
  standardEntryClassCode: 'CCD',
  companyName: 'Acme',
  companyIdentification: '1123456789',
  companyEntryDescription: 'VENDOR PAY',
  effectiveEntryDate: '260706',
  odfiIdentification: '23138010',
  entries: [entry()],
  ...over,
});
const file = (over: Partial<AchFileInput> = {}): AchFileInput => ({
  immediateDestination: '231380104',
  immediateOrigin: '1123456789',
  fileCreationDate: '260702',
  fileCreationTime: '1405',
  fileIdModifier: 'A',
  batches: [batch()],
  ...over,
});

describe('writeAchFile', () => {
  it('numbers batches 1..n and trace numbers ODFI + ascending sequence, with the addenda sequences', () => {
    const text = writeAchFile(
      file({
        batches: [batch({ entries: [entry({ addenda: 'bills 1001,1002' }), entry()] }), batch()],
      }),
    );
    const parsed = parseAchFile(text);
    expect(parsed.batches.map((b) => [b.header.batchNumber, b.control.batchNumber])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(parsed.batches.flatMap((b) => b.entries.map((e) => e.traceNumber))).toEqual([
      '231380100000001',
      '231380100000002',
      '231380100000003',
    ]);
    const [first] = parsed.batches[0].entries;
    expect(first.addendaRecordIndicator).toBe('1');
    expect(first.addenda).toEqual([
      expect.objectContaining({
        addendaTypeCode: '05',
        paymentRelatedInformation: 'BILLS 1001,1002',
        addendaSequenceNumber: 1,
        entryDetailSequenceNumber: 1,
      }),
    ]);
    expect(validateAchFile(text)).toEqual([]);
  });

  it('starts the trace sequence where the caller reserved it, and says every trace it wrote', () => {
    const { text, totals } = writeAchFileWithTotals(
      file({
        firstTraceSequence: 9_999_998,
        batches: [batch({ entries: [entry({ addenda: 'x' }), entry()] })],
      }),
    );
    const traces = parseAchFile(text).batches[0].entries.map((e) => e.traceNumber);
    expect(traces).toEqual(['231380109999998', '231380109999999']);
    expect(totals.traceNumbers).toEqual(traces);
    expect(validateAchFile(text)).toEqual([]);
    // The sequence has 7 digits: a range past them is refused, never wrapped silently.
    expect(() =>
      writeAchFile(
        file({ firstTraceSequence: 9_999_999, batches: [batch({ entries: [entry(), entry()] })] }),
      ),
    ).toThrow(AchWriteError);
    expect(() => writeAchFile(file({ firstTraceSequence: 0 }))).toThrow(/firstTraceSequence/);
  });

  it('writes 94-character lines ending in \\n, padded with 9s to a multiple of ten, with its controls', () => {
    const text = writeAchFile(
      file({
        batches: [
          batch({
            serviceClassCode: 200,
            entries: [
              entry({ amountCents: 9_999_999_999, routingNumber: '031300012' }),
              entry({ transactionCode: 27, amountCents: 500, routingNumber: '231380104' }),
              entry({ transactionCode: 23, amountCents: 0, routingNumber: '121042882' }),
            ],
          }),
        ],
      }),
    );
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(10);
    expect(lines.every((l) => l.length === 94)).toBe(true);
    expect(lines.slice(7)).toEqual(Array(3).fill('9'.repeat(94)));
    // Batch control: 3 entries, hash 03130001 + 23138010 + 12104288, debit 500, credit 9,999,999,999.
    expect(lines[5].slice(0, 44)).toBe(`8200000003${'0038372299'}${'000000000500'}${'009999999999'}`);
    expect(lines[6]).toBe(`9000001000001000000030038372299000000000500009999999999${' '.repeat(39)}`);
  });

  it('cuts the entry hash to its last 10 digits', () => {
    const entries = Array.from({ length: 120 }, () => entry({ routingNumber: '999999992', amountCents: 1 }));
    const parsed = parseAchFile(writeAchFile(file({ batches: [batch({ entries })] })));
    expect((99_999_999 * 120) % 10_000_000_000).toBe(parsed.control.entryHash);
    expect(parsed.control.entryHash).toBe(1_999_999_880);
  });

  it('writes text as printable upper-case ASCII, accents dropped, cut to the width', () => {
    expect(achText('  Zoë Ćafé & Søns\tGmbH  ')).toBe('ZOE CAFE & SONS GMBH');
    expect(achText('Straße Łódź Æther ™')).toBe('STRASSE LODZ AETHER TM');
    expect(achText('名前 Ltd')).toBe('LTD');
    const parsed = parseAchFile(
      writeAchFile(
        file({
          batches: [batch({ entries: [entry({ individualName: 'Crème Brûlée Supplies International' })] })],
        }),
      ),
    );
    expect(parsed.batches[0].entries[0].individualName).toBe('CREME BRULEE SUPPLIES');
  });

  const refusals: [string, AchFileInput, string][] = [
    [
      'an amount over 9,999,999,999 cents',
      file({ batches: [batch({ entries: [entry({ amountCents: 10_000_000_000 })] })] }),
      'amountCents',
    ],
    [
      'a negative amount',
      file({ batches: [batch({ entries: [entry({ amountCents: -1 })] })] }),
      'amountCents',
    ],
    [
      'a fractional amount',
      file({ batches: [batch({ entries: [entry({ amountCents: 10.5 })] })] }),
      'amountCents',
    ],
    [
      'a routing number failing its check digit',
      file({ batches: [batch({ entries: [entry({ routingNumber: '031300013' })] })] }),
      'routingNumber',
    ],
    [
      'a non-digit in a routing number',
      file({ batches: [batch({ entries: [entry({ routingNumber: '03130001X' })] })] }),
      'routingNumber',
    ],
    [
      'a prenote with an amount',
      file({ batches: [batch({ entries: [entry({ transactionCode: 23, amountCents: 1 })] })] }),
      'amountCents',
    ],
    [
      'a live entry of zero',
      file({ batches: [batch({ entries: [entry({ amountCents: 0 })] })] }),
      'amountCents',
    ],
    [
      'a debit in a credits-only batch',
      file({ batches: [batch({ entries: [entry({ transactionCode: 27 })] })] }),
      'transactionCode',
    ],
    [
      'a credit in a debits-only batch',
      file({ batches: [batch({ serviceClassCode: 225 })] }),
      'transactionCode',
    ],
    [
      'an unknown transaction code',
      file({ batches: [batch({ entries: [entry({ transactionCode: 21 as TransactionCode })] })] }),
      'transactionCode',
    ],
    [
      'an account number over 17',
      file({ batches: [batch({ entries: [entry({ accountNumber: '1'.repeat(18) })] })] }),
      'accountNumber',
    ],
    [
      'a blank account number',
      file({ batches: [batch({ entries: [entry({ accountNumber: '  ' })] })] }),
      'accountNumber',
    ],
    [
      'an identification over 15',
      file({ batches: [batch({ entries: [entry({ identificationNumber: 'X'.repeat(16) })] })] }),
      'identificationNumber',
    ],
    [
      'a blank name',
      file({ batches: [batch({ entries: [entry({ individualName: ' 名 ' })] })] }),
      'individualName',
    ],
    [
      'a company id of zeros',
      file({ batches: [batch({ companyIdentification: '0000000000' })] }),
      'companyIdentification',
    ],
    [
      'a company id over 10',
      file({ batches: [batch({ companyIdentification: '11234567890' })] }),
      'companyIdentification',
    ],
    ['a blank company name', file({ batches: [batch({ companyName: '' })] }), 'companyName'],
    [
      'a blank entry description',
      file({ batches: [batch({ companyEntryDescription: ' ' })] }),
      'companyEntryDescription',
    ],
    [
      'an effective date that is no date',
      file({ batches: [batch({ effectiveEntryDate: '260230' })] }),
      'effectiveEntryDate',
    ],
    [
      'an ODFI that is not 8 digits',
      file({ batches: [batch({ odfiIdentification: '2313801' })] }),
      'odfiIdentification',
    ],
    [
      'a SEC code other than PPD/CCD',
      file({ batches: [batch({ standardEntryClassCode: 'WEB' as 'PPD' })] }),
      'standardEntryClassCode',
    ],
    [
      'an originator status of 0',
      file({ batches: [batch({ originatorStatusCode: '0' as '1' })] }),
      'originatorStatusCode',
    ],
    ['a batch without entries', file({ batches: [batch({ entries: [] })] }), 'entries'],
    ['a file without batches', file({ batches: [] }), 'batches'],
    [
      'a destination failing its check digit',
      file({ immediateDestination: '231380105' }),
      'immediateDestination',
    ],
    ['an origin of zeros', file({ immediateOrigin: '1000000000' }), 'immediateOrigin'],
    ['an origin neither routing nor 1+EIN', file({ immediateOrigin: '9123456789' }), 'immediateOrigin'],
    ['a lower-case file id modifier', file({ fileIdModifier: 'a' }), 'fileIdModifier'],
    ['a creation date that is no date', file({ fileCreationDate: '261301' }), 'fileCreationDate'],
    ['a creation time that is no time', file({ fileCreationTime: '2400' }), 'fileCreationTime'],
  ];

  it.each(refusals)('refuses %s, naming the field', (_what, input, field) => {
    let error: unknown;
    try {
      writeAchFile(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AchWriteError);
    expect((error as AchWriteError).field).toBe(field);
  });

  it('names the entry in the error and never its account number', () => {
    const input = file({
      batches: [batch(), batch({ entries: [entry(), entry({ accountNumber: 'SECRET-4242-4242-4242' })] })],
    });
    expect(() => writeAchFile(input)).toThrow(/^batches\[1\]\.entries\[1\]\.accountNumber: /);
    try {
      writeAchFile(input);
    } catch (err) {
      expect((err as Error).message).not.toContain('SECRET');
    }
  });
});

// Generated files: values already as a file holds them (upper-case printable ASCII, no blank around,
// within the width), so what parses back must equal what went in.
const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,&-/#'.split('');
const textOf = (max: number) =>
  fc
    .tuple(
      fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('')),
      fc.array(fc.constantFrom(...CHARS), { maxLength: max - 1 }),
    )
    .map(([first, rest]) => (first + rest.join('')).trimEnd());
const digits = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
const routing = digits(8).map((d) => d + routingCheckDigit(d));
const yymmdd = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(2, 10).replace(/-/g, ''));
const CODES: TransactionCode[] = [22, 23, 27, 28, 32, 33, 37, 38];

const entryArb = (scc: 200 | 220 | 225) =>
  fc
    .record({
      transactionCode: fc.constantFrom(
        ...CODES.filter((c) => (scc === 220 ? isCredit(c) : scc === 225 ? !isCredit(c) : true)),
      ),
      routingNumber: routing,
      accountNumber: textOf(17),
      amount: fc.integer({ min: 1, max: 9_999_999_999 }),
      identificationNumber: fc.option(textOf(15), { nil: undefined }),
      individualName: textOf(22),
      discretionaryData: fc.option(textOf(2), { nil: undefined }),
      addenda: fc.option(textOf(80), { nil: undefined }),
    })
    .map(({ amount, ...e }) => ({ ...e, amountCents: isPrenote(e.transactionCode) ? 0 : amount }));

const batchArb = fc.constantFrom<200 | 220 | 225>(200, 220, 225).chain((scc) =>
  fc.record({
    serviceClassCode: fc.constant(scc),
    standardEntryClassCode: fc.constantFrom<'PPD' | 'CCD'>('PPD', 'CCD'),
    companyName: textOf(16),
    companyDiscretionaryData: fc.option(textOf(20), { nil: undefined }),
    companyIdentification: fc.oneof(
      textOf(10),
      digits(9).map((d) => `1${d}`),
    ),
    companyEntryDescription: textOf(10),
    companyDescriptiveDate: fc.option(textOf(6), { nil: undefined }),
    effectiveEntryDate: yymmdd,
    originatorStatusCode: fc.constantFrom<'1' | '2'>('1', '2'),
    odfiIdentification: digits(8),
    entries: fc.array(entryArb(scc), { minLength: 1, maxLength: 8 }),
  }),
);

const fileArb = fc.record({
  immediateDestination: routing,
  immediateOrigin: fc.oneof(
    routing,
    digits(9).map((d) => `1${d === '000000000' ? '000000001' : d}`),
  ),
  fileCreationDate: yymmdd,
  fileCreationTime: fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `${String(h).padStart(2, '0')}${String(m).padStart(2, '0')}`),
  fileIdModifier: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')),
  immediateDestinationName: textOf(23),
  immediateOriginName: textOf(23),
  referenceCode: textOf(8),
  batches: fc.array(batchArb, { minLength: 1, maxLength: 5 }),
});

describe('writing then parsing (property)', () => {
  it('gives back the same records, numbered and totalled, and the validator finds no issue', () => {
    fc.assert(
      fc.property(fileArb, (input) => {
        const text = writeAchFile(input);
        const parsed = parseAchFile(text);
        const { batches: _b, ...header } = input;
        expect(parsed.header).toMatchObject({ ...header, priorityCode: '01', recordSize: '094' });
        let seq = 0;
        let debit = 0;
        let credit = 0;
        expect(parsed.batches).toHaveLength(input.batches.length);
        input.batches.forEach((b, i) => {
          const p = parsed.batches[i];
          const { entries, ...bh } = b;
          expect(p.header).toMatchObject({
            ...bh,
            companyDiscretionaryData: bh.companyDiscretionaryData ?? '',
            companyDescriptiveDate: bh.companyDescriptiveDate ?? '',
            batchNumber: i + 1,
          });
          expect(p.control).toMatchObject({ batchNumber: i + 1, serviceClassCode: b.serviceClassCode });
          expect(p.entries).toHaveLength(entries.length);
          entries.forEach((e, j) => {
            seq++;
            const pe = p.entries[j];
            expect(pe).toMatchObject({
              transactionCode: e.transactionCode,
              rdfiIdentification: e.routingNumber.slice(0, 8),
              checkDigit: e.routingNumber[8],
              dfiAccountNumber: e.accountNumber,
              amountCents: e.amountCents,
              identificationNumber: e.identificationNumber ?? '',
              individualName: e.individualName,
              discretionaryData: e.discretionaryData ?? '',
              addendaRecordIndicator: e.addenda ? '1' : '0',
              traceNumber: b.odfiIdentification + String(seq).padStart(7, '0'),
            });
            expect(pe.addenda.map((a) => a.paymentRelatedInformation)).toEqual(e.addenda ? [e.addenda] : []);
            if (isCredit(e.transactionCode)) credit += e.amountCents;
            else debit += e.amountCents;
          });
        });
        expect(parsed.control).toMatchObject({
          batchCount: input.batches.length,
          totalDebitCents: debit,
          totalCreditCents: credit,
        });
        expect(parsed.lineCount % 10).toBe(0);
        expect(validateAchFile(parsed)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
