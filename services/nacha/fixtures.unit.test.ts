// The library against real files: moov-io/ach's test files (shared/fixtures/ach), which that trusted
// validator accepted or refused. Its verdict and totals are in the fixtures' README table.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAchFile } from './parser.js';
import { AchParseError } from './records.js';
import { validateAchFile } from './validator.js';

// Copied unchanged into the repository (test/fixtures/ach, with moov-io/ach's licence and notice), so
// every clone tests against them.
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/ach');
const read = (dir: string, file: string) => readFileSync(path.join(FIXTURES, dir, file), 'utf8');

/** The README's table: file, moov-io/ach's verdict, and for accepted files its totals. */
function verdicts() {
  const rows = readFileSync(path.join(FIXTURES, 'README.md'), 'utf8')
    .split('\n')
    .filter((l) => /^\| (valid|invalid)\//.test(l));
  return rows.map((l) => {
    const [file, , result] = l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const n = (key: string) => Number(new RegExp(`${key}=(\\d+)`).exec(result)?.[1]);
    return {
      dir: file.split('/')[0],
      file: file.split('/')[1],
      ok: result.startsWith('OK'),
      result,
      batches: n('batches'),
      entries: n('entries'),
      credit: n('credit'),
      debit: n('debit'),
      hash: n('hash'),
    };
  });
}

const table = verdicts();
const valid = table.filter((v) => v.ok);
const invalid = table.filter((v) => !v.ok);

describe('the fixtures', () => {
  it('has a verdict for every file, and a file for every verdict', () => {
    expect(valid.map((v) => v.file).sort()).toEqual(readdirSync(path.join(FIXTURES, 'valid')).sort());
    expect(invalid.map((v) => v.file).sort()).toEqual(readdirSync(path.join(FIXTURES, 'invalid')).sort());
    expect(valid).toHaveLength(11);
    expect(invalid).toHaveLength(7);
  });
});

describe.each(valid)('accepted by the trusted validator: $file', (v) => {
  const text = read('valid', v.file);

  it("parses to the trusted validator's totals (batches, entry/addenda count, credit, debit, hash)", () => {
    const file = parseAchFile(text);
    expect(file.batches).toHaveLength(v.batches);
    expect(file.control.batchCount).toBe(v.batches);
    // The README's "entries" is the file control's entry/addenda count; the records give the same.
    const counted = file.batches.reduce(
      (n, b) => n + b.entries.length + b.entries.reduce((a, e) => a + e.addenda.length, 0),
      0,
    );
    expect(counted).toBe(v.entries);
    expect(file.control.entryAddendaCount).toBe(v.entries);
    const amounts = (debits: boolean) =>
      file.batches
        .flatMap((b) => b.entries)
        .filter((e) => (debits ? e.transactionCode % 10 >= 7 : e.transactionCode % 10 < 5))
        .reduce((n, e) => n + e.amountCents, 0);
    expect(amounts(false)).toBe(v.credit);
    expect(amounts(true)).toBe(v.debit);
    expect(file.control.totalCreditCents).toBe(v.credit);
    expect(file.control.totalDebitCents).toBe(v.debit);
    const hash = file.batches.flatMap((b) => b.entries).reduce((n, e) => n + Number(e.rdfiIdentification), 0);
    expect(hash % 10_000_000_000).toBe(v.hash);
    expect(file.control.entryHash).toBe(v.hash);
  });

  it('gives no issue under the rules the trusted validator applies', () => {
    expect(validateAchFile(text, { strict: false })).toEqual([]);
  });

  it('reads the same with \\r\\n line endings', () => {
    const crlf = text.replace(/\r?\n/g, '\r\n');
    expect(parseAchFile(crlf)).toEqual(parseAchFile(text));
  });
});

describe('the strict rules on the accepted files', () => {
  // Two rules of the reference the trusted validator does not apply: each file it accepts but breaks
  // one of them breaks exactly that one.
  const strictOnly: Record<string, { line: number; field: string }> = {
    'issues_testdata_issue1378_employers_test.txt': { line: 1, field: 'immediateOrigin' }, // 'N833219776'
    'testdata_txp-credit.ach': { line: 2, field: 'effectiveEntryDate' }, // '16    '
  };
  it.each(valid)('$file', (v) => {
    const issues = validateAchFile(read('valid', v.file));
    const expected = strictOnly[v.file];
    expect(issues.map((i) => ({ line: i.line, field: i.field }))).toEqual(expected ? [expected] : []);
  });
});

describe('refused by the trusted validator', () => {
  // Each is refused here too, with the line and the field.
  const reasons: Record<string, { line: number; record: string; field: string; message: RegExp }> = {
    'issues_testdata_issue1378_no_control.txt': {
      line: 29,
      record: 'FileControl',
      field: 'recordTypeCode',
      message: /without a file control/,
    },
    'issues_testdata_issue1378_no_header.txt': {
      line: 1,
      record: 'FileHeader',
      field: 'recordTypeCode',
      message: /must start with a file header/,
    },
    'issues_testdata_issue702-1.ach': {
      line: 1,
      record: 'FileHeader',
      field: 'lineLength',
      message: /94 characters; this one has 69/,
    },
    // An IAT batch: its 71x addenda do not have the 05 layout.
    'testdata_20110805A.ach': {
      line: 51,
      record: 'Addenda',
      field: 'addendaSequenceNumber',
      message: /must be digits/,
    },
    'testdata_crashers_0.ach': { line: 1, record: 'BatchHeader', field: 'lineLength', message: /has 282/ },
    'testdata_invalid-two-micro-deposits.ach': {
      line: 15,
      record: 'EntryDetail',
      field: 'amount',
      message: /must be digits/,
    },
    // Its header lost its trailing blanks (75 characters); the trusted validator pads and then
    // refuses line 3's check digit, which is checked below on the padded file.
    'testdata_ppd-debit-invalid-entryDetail-checkDigit.ach': {
      line: 1,
      record: 'FileHeader',
      field: 'lineLength',
      message: /has 75/,
    },
  };

  it.each(invalid)('$file ($result)', (v) => {
    const text = read('invalid', v.file);
    const expected = reasons[v.file];
    expect(() => parseAchFile(text)).toThrow(AchParseError);
    const issues = validateAchFile(text);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: expected.line, record: expected.record, field: expected.field });
    expect(issues[0].message).toMatch(expected.message);
  });

  it("refuses the check-digit file's RDFI on line 3 once its lines are padded to 94", () => {
    const padded = read('invalid', 'testdata_ppd-debit-invalid-entryDetail-checkDigit.ach')
      .split('\n')
      .map((l) => (l === '' ? l : l.padEnd(94, ' ')))
      .join('\n');
    const issues = validateAchFile(padded);
    expect(issues).toEqual([
      expect.objectContaining({ line: 3, record: 'EntryDetail', field: 'checkDigit' }),
      // The entry hash was computed from the wrong RDFI, so it still matches: only the check digit is wrong.
    ]);
  });
});
