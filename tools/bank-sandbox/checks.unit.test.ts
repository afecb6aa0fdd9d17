// The bank's own checks against moov-io/ach's test files (test/fixtures/ach) and against a good file
// broken one figure at a time, as the product's bugs would break it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkDigit, checkNachaFile, field } from './checks.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/ach');
const read = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const destinationOf = (content: string) => field(content.split('\n')[0], 4, 13).trim();
const credit = read('valid/ach-ppd-read_ppd-credit.ach');
const lines = credit.trimEnd().split('\n');
const edit = (at: number, from: number, value: string) => {
  const copy = [...lines];
  copy[at] = copy[at].slice(0, from - 1) + value + copy[at].slice(from - 1 + value.length);
  return `${copy.join('\n')}\n`;
};

describe('the bank sandbox checks an upload', () => {
  it('accepts the well-formed files moov-io/ach accepts, with their entry counts and credits', () => {
    const ok = checkNachaFile(credit, '231380104');
    expect(ok).toMatchObject({ ok: true, entryCount: 1, totalCreditCents: 100_000_000, totalDebitCents: 0 });
    const flat = read('valid/testdata_flattenBatchesTraceNumberCollision.ach');
    expect(checkNachaFile(flat, destinationOf(flat))).toMatchObject({
      ok: true,
      entryCount: 15,
      totalCreditCents: 1_500_000,
    });
  });

  it('refuses a file control shorter than 94 characters, which moov-io/ach tolerates and a bank need not', () => {
    const txp = read('valid/testdata_txp-credit.ach');
    expect(checkNachaFile(txp, destinationOf(txp))).toEqual({
      ok: false,
      reason: 'record 6 is 55 characters long; every record must be 94',
    });
  });

  it('refuses every file moov-io/ach refuses', () => {
    for (const name of readdirSync(path.join(FIXTURES, 'invalid'))) {
      const content = read(`invalid/${name}`);
      expect(checkNachaFile(content, destinationOf(content)).ok, name).toBe(false);
    }
  });

  it('names the reason in its own words', () => {
    const cases: Array<[string, string | RegExp]> = [
      [credit, /immediate destination 231380104 is not this bank \(121000248\)/],
      [
        credit.replace(lines[2], lines[2].slice(0, 93)),
        'record 3 is 93 characters long; every record must be 94',
      ],
      [
        edit(3, 11, '0023138011'),
        /batch control's entry hash 0023138011 does not match the entries \(0023138010\)/,
      ],
      [edit(3, 33, '000100000001'), /batch control's total credit does not match/],
      [edit(3, 5, '000002'), /batch control counts 2 entries and addenda, the batch has 1/],
      [edit(4, 8, '000002'), 'file control says 2 blocks, the file has 1'],
      [edit(4, 2, '000002'), 'file control counts 2 batches, the file has 1'],
      [edit(4, 22, '0023138011'), /file control's entry hash/],
      [edit(2, 12, '1'), "record 3: the receiving DFI's check digit is wrong"],
      [edit(2, 79, '1'), 'record 3: the addenda indicator is 1 but no addenda follows'],
      [`${lines.slice(0, 9).join('\n')}\n`, 'the file has 9 records; padding must fill the last block of 10'],
      [
        `${[lines[0], lines[2], ...lines.slice(1)].join('\n')}\n`,
        'record 2: expected a batch header or the file control',
      ],
    ];
    const [first, ...rest] = cases;
    expect(checkNachaFile(first[0], '121000248')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(first[1]),
    });
    for (const [content, reason] of rest) {
      const result = checkNachaFile(content, '231380104');
      expect(result.ok).toBe(false);
      if (!result.ok)
        typeof reason === 'string'
          ? expect(result.reason).toBe(reason)
          : expect(result.reason).toMatch(reason);
    }
  });

  it('computes the ABA check digit', () => {
    expect(checkDigit('23138010')).toBe('4');
    expect(checkDigit('12100024')).toBe('8');
  });
});
