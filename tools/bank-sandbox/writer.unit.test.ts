// The bank's return and NOC files against the layouts of reference/ach-returns.md §1 (Addenda 99)
// and §3 (COR batch, Addenda 98 and its corrected data by position), and against the bank's own checks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ruleFor } from './bank.js';
import { checkNachaFile, field } from './checks.js';
import { demoBankRules } from './demo.js';
import type { BankAnswer } from './types.js';
import { answerTransactionCode, correctedData, writeAnswerFile } from './writer.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/ach');
// One PPD credit (TC 22) of $1,000,000.00 to account 12345678 at RDFI 23138010, trace 121042880000001.
const [, batchHeader, entry] = readFileSync(
  path.join(FIXTURES, 'valid/ach-ppd-read_ppd-credit.ach'),
  'utf8',
).split('\n');
const ODFI = '231380104';
const write = (kind: 'return' | 'noc', answer: BankAnswer, entryLine = entry) =>
  writeAnswerFile({
    kind,
    odfiRouting: ODFI,
    items: [{ batchHeader, entry: entryLine, answer }],
    createdAt: new Date('2026-12-07T15:04:00Z'),
    traceSequence: 41,
  });
const records = (content: string) => content.trimEnd().split('\n');

describe('the bank sandbox writes answer files', () => {
  it('returns a credit as TC 21 with an Addenda 99 carrying the original trace and RDFI', () => {
    const { content, nextTraceSequence } = write('return', { kind: 'return', code: 'R03' });
    const lines = records(content);
    expect(lines.every((l) => l.length === 94)).toBe(true);
    expect(lines).toHaveLength(10);
    expect(checkNachaFile(content, ODFI)).toMatchObject({
      ok: true,
      entryCount: 1,
      totalCreditCents: 100_000_000,
    });
    const [header, batch, ret, addenda] = lines;
    expect(field(header, 4, 13)).toBe(` ${ODFI}`);
    expect(field(header, 24, 33)).toBe('2612071504');
    expect(field(batch, 51, 53)).toBe('PPD');
    expect(field(batch, 41, 50)).toBe(field(batchHeader, 41, 50));
    expect(field(batch, 80, 87)).toBe('23138010');
    expect(field(ret, 2, 3)).toBe('21');
    expect(field(ret, 4, 12)).toBe(ODFI);
    expect(field(ret, 13, 29)).toBe(field(entry, 13, 29));
    expect(field(ret, 30, 39)).toBe('0100000000');
    expect(field(ret, 40, 78)).toBe(field(entry, 40, 78));
    expect(field(ret, 79, 79)).toBe('1');
    expect(field(ret, 80, 94)).toBe('231380100000041');
    expect(nextTraceSequence).toBe(42);
    expect(field(addenda, 1, 3)).toBe('799');
    expect(field(addenda, 4, 6)).toBe('R03');
    expect(field(addenda, 7, 21)).toBe('121042880000001');
    expect(field(addenda, 7, 21)).toBe(field(entry, 80, 94));
    expect(field(addenda, 22, 27)).toBe('      ');
    expect(field(addenda, 28, 35)).toBe('23138010');
    expect(field(addenda, 80, 94)).toBe(field(ret, 80, 94));
  });

  it('writes a NOC as a COR batch, amount zero, with an Addenda 98 and the corrected account of C01', () => {
    const { content } = write('noc', { kind: 'noc', code: 'C01', correctedAccountSuffix: '0102' });
    const lines = records(content);
    expect(lines.every((l) => l.length === 94)).toBe(true);
    expect(checkNachaFile(content, ODFI)).toMatchObject({ ok: true, totalCreditCents: 0 });
    const [, batch, cor, addenda, control] = lines;
    expect(field(batch, 51, 53)).toBe('COR');
    expect(field(cor, 2, 3)).toBe('21');
    expect(field(cor, 30, 39)).toBe('0000000000');
    expect(field(addenda, 1, 3)).toBe('798');
    expect(field(addenda, 4, 6)).toBe('C01');
    expect(field(addenda, 7, 21)).toBe(field(entry, 80, 94));
    expect(field(addenda, 22, 27)).toBe(' '.repeat(6));
    expect(field(addenda, 28, 35)).toBe('23138010');
    expect(field(addenda, 36, 64)).toBe('12340102'.padEnd(29));
    expect(field(addenda, 65, 79)).toBe(' '.repeat(15));
    expect(field(addenda, 80, 94)).toBe(field(cor, 80, 94));
    expect(field(control, 33, 44)).toBe('000000000000');
  });

  it('lays out each change code’s corrected data by position', () => {
    const savings = `632${entry.slice(3)}`;
    expect(correctedData({ kind: 'noc', code: 'C05' }, entry)).toBe('32'.padEnd(29));
    expect(correctedData({ kind: 'noc', code: 'C05' }, savings)).toBe('22'.padEnd(29));
    expect(correctedData({ kind: 'noc', code: 'C02', correctedRoutingNumber: '121000248' }, entry)).toBe(
      '121000248'.padEnd(29),
    );
    expect(
      correctedData(
        {
          kind: 'noc',
          code: 'C03',
          correctedRoutingNumber: '121000248',
          correctedAccountNumber: '987654321',
        },
        entry,
      ),
    ).toBe(`121000248   ${'987654321'.padEnd(17)}`);
    expect(correctedData({ kind: 'noc', code: 'C06', correctedAccountNumber: '987654321' }, entry)).toBe(
      `${'987654321'.padEnd(17)}   32       `,
    );
    expect(
      correctedData(
        {
          kind: 'noc',
          code: 'C07',
          correctedRoutingNumber: '121000248',
          correctedAccountNumber: '987654321',
        },
        entry,
      ),
    ).toBe(`121000248${'987654321'.padEnd(17)}32 `);
    expect(correctedData({ kind: 'noc', code: 'C01', correctedAccountNumber: '55501' }, entry)).toBe(
      '55501'.padEnd(29),
    );
    expect(correctedData({ kind: 'noc', code: 'C13' }, entry)).toBe(' '.repeat(29));
  });

  it('answers a savings entry and a prenote with the return codes of their kind', () => {
    expect([22, 23, 24, 27, 32, 33, 37, 38].map((tc) => answerTransactionCode(String(tc)))).toEqual([
      '21',
      '21',
      '21',
      '26',
      '31',
      '31',
      '36',
      '36',
    ]);
    const { content } = write('noc', { kind: 'noc', code: 'C05' }, `632${entry.slice(3)}`);
    const [, , cor, addenda] = records(content);
    expect(field(cor, 2, 3)).toBe('31');
    expect(field(addenda, 36, 37)).toBe('22');
  });

  it('matches the demo rules by account suffix', () => {
    const withAccount = (account: string) => `${entry.slice(0, 12)}${account.padEnd(17)}${entry.slice(29)}`;
    expect(ruleFor(demoBankRules, withAccount('4410003'))?.answer).toEqual({ kind: 'return', code: 'R03' });
    expect(ruleFor(demoBankRules, withAccount('4410002'))?.answer).toEqual({ kind: 'return', code: 'R02' });
    expect(ruleFor(demoBankRules, withAccount('4410101'))?.answer.code).toBe('C01');
    expect(ruleFor(demoBankRules, withAccount('4410105'))?.answer.code).toBe('C05');
    expect(ruleFor(demoBankRules, withAccount('4410104'))).toBeUndefined();
    expect(
      ruleFor([{ match: { accountNumber: '12345678' }, answer: { kind: 'return', code: 'R04' } }], entry)
        ?.answer.code,
    ).toBe('R04');
  });
});
