// The bank's return and NOC files: moov-io/ach's accepted files read with its counts and totals, its
// refused files refused naming line and field, and hand-built files breaking one rule each.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type InboundFile, parseInboundFile } from './inbound.js';
import { routingCheckDigit } from './records.js';

// moov-io/ach's return and NOC test files, copied unchanged beside the other ACH fixtures (with
// moov-io/ach's licence and notice).
const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.resolve(HERE, '../../test/fixtures/ach/returns');
const read = (dir: string, file: string) => readFileSync(path.join(FIXTURES, dir, file), 'utf8');

function verdicts() {
  const rows = readFileSync(path.join(FIXTURES, 'README.md'), 'utf8')
    .split('\n')
    .filter((l) => /^\| (valid|invalid)\//.test(l));
  return rows.map((l) => {
    const [file, , result] = l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const n = (key: string) => Number(new RegExp(`${key}=(\\d+)`).exec(result)?.[1] ?? 0);
    return {
      dir: file.split('/')[0],
      file: file.split('/')[1],
      ok: result.startsWith('OK'),
      result,
      batches: n('batches'),
      entries: n('entries'),
      credit: n('credit'),
      debit: n('debit'),
    };
  });
}

const table = FIXTURES ? verdicts() : [];
const valid = table.filter((v) => v.ok);
const invalid = table.filter((v) => !v.ok);

function parsed(text: string): InboundFile {
  const r = parseInboundFile(text);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.errors)}`);
  return r.file;
}
const entriesOf = (f: InboundFile) => [...f.returns, ...f.corrections, ...f.refusedCorrections];

describe('the return fixtures', () => {
  it('are found, with a verdict for every file and a file for every verdict', () => {
    expect(valid.map((v) => v.file).sort()).toEqual(readdirSync(path.join(FIXTURES, 'valid')).sort());
    expect(invalid.map((v) => v.file).sort()).toEqual(readdirSync(path.join(FIXTURES, 'invalid')).sort());
    expect(valid).toHaveLength(3);
    expect(invalid).toHaveLength(3);
  });
});

describe.each(valid)('accepted by moov-io/ach: $file ($result)', (v) => {
  it('is read with its batches, entry/addenda count and totals', () => {
    const f = parsed(read('valid', v.file));
    const all = entriesOf(f);
    expect(f.other).toEqual([]);
    expect(new Set(all.map((e) => e.batchNumber)).size).toBe(v.batches);
    // Each return or NOC is an entry and its one addenda record.
    expect(all.length * 2).toBe(v.entries);
    const total = (credit: boolean) =>
      all.filter((e) => e.transactionCode % 10 <= 4 === credit).reduce((n, e) => n + e.amountCents, 0);
    expect(total(true)).toBe(v.credit);
    expect(total(false)).toBe(v.debit);
  });

  it('reads the same with \\r\\n line endings', () => {
    const text = read('valid', v.file);
    expect(parseInboundFile(text.replace(/\r?\n/g, '\r\n'))).toEqual(parseInboundFile(text));
  });
});

describe('what the accepted files hold', () => {
  it("return-WEB.ach: an R01 on a debit and the credit's R03, matched on the original trace", () => {
    const f = parsed(read('valid', 'return-WEB.ach'));
    expect(f).toMatchObject({
      immediateDestination: '091400606',
      createdOn: '2018-10-17',
      fileIdModifier: 'A',
    });
    expect(f.returns.map((r) => [r.line, r.transactionCode, r.returnCode, r.action])).toEqual([
      [3, 26, 'R01', 'impossible-on-credit'],
      [7, 21, 'R03', 'block-account'],
    ]);
    expect(f.returns[1]).toMatchObject({
      batchNumber: 2,
      companyIdentification: '123456789',
      secCode: 'WEB',
      receivingDfi: '091400606',
      amountCents: 4565,
      individualName: 'Bob Marley',
      traceNumber: '021000029461242',
      originalTrace: '091400600000003',
      originalRdfi: '02100002',
      dateOfDeath: null,
    });
  });

  it('cor-example.ach: a C01 whose corrected account is 1918171614', () => {
    const f = parsed(read('valid', 'cor-example.ach'));
    expect(f.returns).toEqual([]);
    expect(f.corrections).toHaveLength(1);
    expect(f.corrections[0]).toMatchObject({
      line: 3,
      secCode: 'COR',
      transactionCode: 21,
      amountCents: 0,
      changeCode: 'C01',
      corrected: { accountNumber: '1918171614' },
      originalTrace: '121042880000001',
      originalRdfi: '12104288',
    });
  });

  it('dishonored-return.ach: two R68 dishonored returns', () => {
    const f = parsed(read('valid', 'dishonored-return.ach'));
    expect(f.returns.map((r) => [r.returnCode, r.action, r.amountCents, r.originalTrace])).toEqual([
      ['R68', 'dishonored', 25000, '059999990000301'],
      ['R68', 'dishonored', 23000, '059999990000301'],
    ]);
    expect(f.returns[0].addendaInformation).toContain('Untimely Return');
  });
});

describe('refused by moov-io/ach', () => {
  const reasons: Record<string, { line: number; field: string; message: RegExp }> = {
    'web-invalidNOCFile.ach': {
      line: 4,
      field: 'Addenda98.changeCode',
      message: /^C92 is not a valid change code$/,
    },
    'pos-invalidReturnFile.ach': {
      line: 4,
      field: 'Addenda99.returnReasonCode',
      message: /^R96 is not a valid return code$/,
    },
    'return-no-batch-controls.ach': {
      line: 1,
      field: 'FileHeader.recordTypeCode',
      message: /must start with a file header/,
    },
  };
  it.each(invalid)('$file ($result)', (v) => {
    const r = parseInboundFile(read('invalid', v.file));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    const expected = reasons[v.file];
    expect(r.errors[0]).toMatchObject({ line: expected.line, field: expected.field });
    expect(r.errors[0].message).toMatch(expected.message);
  });
});

// ---- Hand-built files: every control right, so each variant breaks exactly one rule.

const ODFI = '09100001'; // Billflow's bank, on the returns' entries: 091000019
const pad = (s: string, n: number) => s.padEnd(n, ' ').slice(0, n);
const num = (v: number, n: number) => String(v).padStart(n, '0');
const routing = (first8: string) => first8 + routingCheckDigit(first8);

interface Entry {
  tc?: number;
  amount?: number;
  account?: string;
  indicator?: string;
  addenda?: string[];
}
interface Batch {
  sec?: string;
  scc?: number;
  entries: Entry[];
}

/** Addenda 99 from its fields; positions as the reference lays them out. */
function addenda99(code: string, info = '', dateOfDeath = '', originalTrace = '021000020000042') {
  return `799${code}${originalTrace}${pad(dateOfDeath, 6)}02100002${pad(info, 44)}${ODFI}0000001`;
}
/** Addenda 98: corrected data at 36–64. */
function addenda98(code: string, corrected: string, originalTrace = '021000020000042', tail = '') {
  return `798${code}${originalTrace}${pad('', 6)}02100002${pad(corrected, 29)}${pad(tail, 15)}${ODFI}0000001`;
}

function build(batches: Batch[]): string {
  const lines = [
    `101 ${routing(ODFI)}1123456789261206${'1200'}A094101${pad('BANK', 23)}${pad('BILLFLOW', 23)}${pad('', 8)}`,
  ];
  let count = 0;
  let hash = 0;
  let debit = 0;
  let credit = 0;
  batches.forEach((b, i) => {
    const sec = b.sec ?? 'CCD';
    const scc = b.scc ?? 200;
    const n = i + 1;
    lines.push(
      `5${scc}${pad('Billflow Inc', 16)}${pad('', 20)}${pad('1123456789', 10)}${sec}${pad('VENDOR PAY', 10)}${pad('', 6)}261207${pad('', 3)}1${ODFI}${num(n, 7)}`,
    );
    let bCount = 0;
    let bHash = 0;
    let bDebit = 0;
    let bCredit = 0;
    b.entries.forEach((e, j) => {
      const tc = e.tc ?? 21;
      const amount = e.amount ?? (sec === 'COR' ? 0 : 1500);
      const addenda = e.addenda ?? [];
      lines.push(
        `6${tc}${routing(ODFI)}${pad(e.account ?? '5550001234', 17)}${num(amount, 10)}${pad('V-42', 15)}${pad('Acme Supply', 22)}  ${e.indicator ?? (addenda.length > 0 ? '1' : '0')}021000020${num(j + 1, 6)}`,
      );
      lines.push(...addenda);
      bCount += 1 + addenda.length;
      bHash += Number(ODFI);
      if (tc % 10 <= 4) bCredit += amount;
      else bDebit += amount;
    });
    lines.push(
      `8${scc}${num(bCount, 6)}${num(bHash % 10_000_000_000, 10)}${num(bDebit, 12)}${num(bCredit, 12)}${pad('1123456789', 10)}${pad('', 25)}${ODFI}${num(n, 7)}`,
    );
    count += bCount;
    hash += bHash;
    debit += bDebit;
    credit += bCredit;
  });
  const recordLines = lines.length + 1;
  const blocks = Math.ceil(recordLines / 10);
  lines.push(
    `9${num(batches.length, 6)}${num(blocks, 6)}${num(count, 8)}${num(hash % 10_000_000_000, 10)}${num(debit, 12)}${num(credit, 12)}${pad('', 39)}`,
  );
  while (lines.length % 10 !== 0) lines.push('9'.repeat(94));
  for (const l of lines) if (l.length !== 94) throw new Error(`built a line of ${l.length}: ${l}`);
  return `${lines.join('\n')}\n`;
}

const oneReturn = (code = 'R02', info = '', dateOfDeath = '') =>
  build([{ entries: [{ addenda: [addenda99(code, info, dateOfDeath)] }] }]);
const oneNoc = (code: string, corrected: string, tail = '') =>
  build([{ sec: 'COR', scc: 220, entries: [{ addenda: [addenda98(code, corrected, undefined, tail)] }] }]);

function refusal(text: string) {
  const r = parseInboundFile(text);
  expect(r.ok).toBe(false);
  return r.ok ? [] : r.errors;
}
const only = (text: string) => {
  const errors = refusal(text);
  expect(errors).toHaveLength(1);
  return errors[0];
};
const withLine = (text: string, line: number, change: (l: string) => string) => {
  const lines = text.split('\n');
  lines[line - 1] = change(lines[line - 1]);
  return lines.join('\n');
};

describe('hand-built returns', () => {
  it('reads a good one', () => {
    const f = parsed(oneReturn('R02'));
    expect(f.returns).toHaveLength(1);
    expect(f.returns[0]).toMatchObject({
      line: 3,
      returnCode: 'R02',
      action: 'block-account',
      originalTrace: '021000020000042',
      effectiveDate: '2026-12-07',
      receivingDfi: '091000019',
    });
  });

  it('reads the date of death of an R15, and R17 QUESTIONABLE as one to investigate', () => {
    expect(parsed(oneReturn('R15', '', '261130')).returns[0].dateOfDeath).toBe('2026-11-30');
    expect(parsed(oneReturn('R17', 'QUESTIONABLE')).returns[0].action).toBe('investigate');
    expect(only(oneReturn('R15', '', '261341'))).toMatchObject({ line: 4, field: 'Addenda99.dateOfDeath' });
  });

  it('refuses a code Nacha never assigned', () => {
    expect(only(oneReturn('R48'))).toEqual({
      line: 4,
      field: 'Addenda99.returnReasonCode',
      message: 'R48 is not a valid return code',
    });
  });

  it('refuses an entry whose addenda indicator is 1 with no addenda after it', () => {
    const text = build([{ entries: [{ indicator: '1' }] }]);
    expect(only(text)).toMatchObject({
      line: 3,
      field: 'EntryDetail.addendaRecordIndicator',
      message: /no addenda/,
    });
  });

  it('refuses an entry outside a batch', () => {
    const text = oneReturn();
    const lines = text.split('\n');
    // The entry and its addenda moved after the batch control.
    const outside = [lines[0], lines[1], lines[4], lines[2], lines[3], ...lines.slice(5)].join('\n');
    expect(only(outside)).toMatchObject({
      line: 4,
      field: 'EntryDetail.recordTypeCode',
      message: /outside a batch/,
    });
  });

  it('refuses a changed block count, entry hash and batch total', () => {
    const text = oneReturn();
    const control = text.split('\n').findIndex((l) => l.startsWith('9')) + 1;
    expect(only(withLine(text, control, (l) => `${l.slice(0, 7)}000002${l.slice(13)}`))).toMatchObject({
      line: control,
      field: 'FileControl.blockCount',
      message: "the block count is 2; the file's records give 1",
    });
    expect(only(withLine(text, control, (l) => `${l.slice(0, 21)}0000000001${l.slice(31)}`))).toMatchObject({
      field: 'FileControl.entryHash',
    });
    expect(only(withLine(text, 5, (l) => `${l.slice(0, 32)}000000001501${l.slice(44)}`))).toMatchObject({
      line: 5,
      field: 'BatchControl.totalCredit',
    });
  });

  it('refuses a line of 93 characters', () => {
    expect(only(withLine(oneReturn(), 3, (l) => l.slice(0, 93)))).toMatchObject({
      line: 3,
      field: 'EntryDetail.lineLength',
      message: /94 characters; this one has 93/,
    });
  });

  it('refuses a file with no file control, and one with no file header', () => {
    const lines = oneReturn().split('\n');
    expect(only(lines.slice(0, 5).join('\n'))).toMatchObject({ field: 'FileControl.recordTypeCode' });
    expect(only(lines.slice(1).join('\n'))).toMatchObject({ line: 1, field: 'FileHeader.recordTypeCode' });
  });

  it('refuses two Addenda 99 on one return, and a bad RDFI check digit', () => {
    const two = build([{ entries: [{ addenda: [addenda99('R02'), addenda99('R03')] }] }]);
    expect(only(two)).toMatchObject({ line: 5, field: 'Addenda99.addendaTypeCode' });
    expect(only(withLine(oneReturn(), 3, (l) => `${l.slice(0, 11)}8${l.slice(12)}`))).toMatchObject({
      line: 3,
      field: 'EntryDetail.checkDigit',
    });
  });

  it('puts an entry with neither a return nor a NOC in other', () => {
    const f = parsed(build([{ entries: [{ tc: 22 }, { addenda: [addenda99('R03')] }] }]));
    expect(f.returns).toHaveLength(1);
    expect(f.other).toEqual([{ line: 3, reason: expect.stringContaining('transaction code 22') }]);
  });

  it('reads 10,000 returns (linear: no quadratic string building)', () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => ({
      addenda: [addenda99(i % 2 ? 'R03' : 'R02', '', '', `02100002${num(i + 1, 7)}`)],
    }));
    const f = parsed(build([{ entries }]));
    expect(f.returns).toHaveLength(10_000);
    expect(f.returns[9_999].originalTrace).toBe('021000020010000');
  });
});

describe('hand-built notifications of change', () => {
  it.each([
    ['C01', '5550009999', { accountNumber: '5550009999' }],
    ['C02', '091000019', { routingNumber: '091000019' }],
    ['C03', `091000019   5550009999`, { routingNumber: '091000019', accountNumber: '5550009999' }],
    ['C04', 'ACME SUPPLY LLC', { name: 'ACME SUPPLY LLC' }],
    ['C05', '32', { transactionCode: 32 }],
    ['C06', `${pad('5550009999', 20)}32`, { accountNumber: '5550009999', transactionCode: 32 }],
    [
      'C07',
      `091000019${pad('5550009999', 17)}33`,
      { routingNumber: '091000019', accountNumber: '5550009999', transactionCode: 33 },
    ],
    ['C09', 'V-0042', { identification: 'V-0042' }],
    ['C13', '', {}],
    // A live NOC: a space in the account and the code at 26–27.
    ['C06', '123456789 111            22', { accountNumber: '123456789 111', transactionCode: 22 }],
  ])('%s %j', (code, data, corrected) => {
    const f = parsed(oneNoc(code, data));
    expect(f.corrections).toHaveLength(1);
    expect(f.corrections[0]).toMatchObject({ changeCode: code, corrected, correctedRaw: pad(data, 29) });
  });

  it('refuses a C02 routing number failing its check digit, naming the addenda', () => {
    expect(only(oneNoc('C02', '091000018'))).toMatchObject({
      line: 4,
      field: 'Addenda98.correctedData',
      message: /091000018 fails its check digit/,
    });
  });

  it('refuses an unknown change code, a NOC with an amount, and an Addenda 99 in a COR batch', () => {
    expect(only(oneNoc('C10', 'NEW NAME'))).toMatchObject({ line: 4, field: 'Addenda98.changeCode' });
    const amount = build([
      { sec: 'COR', scc: 220, entries: [{ amount: 1, addenda: [addenda98('C01', '5550009999')] }] },
    ]);
    expect(only(amount)).toMatchObject({ line: 3, field: 'EntryDetail.amount' });
    const wrong = build([{ sec: 'COR', scc: 220, entries: [{ addenda: [addenda99('R02')] }] }]);
    expect(only(wrong)).toMatchObject({ line: 4, field: 'Addenda.addendaTypeCode' });
    const outside = build([{ entries: [{ addenda: [addenda98('C01', '5550009999')] }] }]);
    expect(only(outside)).toMatchObject({ line: 4, field: 'Addenda98.addendaTypeCode' });
  });

  it('reads a refused NOC (C61–C69) apart', () => {
    const f = parsed(oneNoc('C65', '5550009999', 'C010000042'));
    expect(f.corrections).toEqual([]);
    expect(f.refusedCorrections).toEqual([
      expect.objectContaining({ refusedCode: 'C65', originalChangeCode: 'C01', nocTraceSequence: '0000042' }),
    ]);
  });

  it('never puts an account number in an error message', () => {
    const account = '98765432109876543';
    const texts = [
      oneNoc('C06', `${pad(account, 20)}27`),
      build([{ entries: [{ account, indicator: '1' }] }]),
      withLine(
        build([{ entries: [{ account, addenda: [addenda99('R96')] }] }]),
        3,
        (l) => `${l.slice(0, 11)}8${l.slice(12)}`,
      ),
    ];
    for (const text of texts) for (const e of refusal(text)) expect(e.message).not.toContain(account);
  });
});
