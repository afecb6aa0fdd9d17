// The bank's own checks of an uploaded NACHA file, written here and not borrowed from the product's
// validator, so the sandbox catches the product's mistakes instead of sharing them. Minimal, as an
// ODFI's front door is: record length and order, batch and file control figures, padding and block
// count, and that the file is addressed to this bank (reference/nacha.md "Records").
import type { OriginalEntry } from './types.js';

/** Positions as Nacha writes them: 1-based, inclusive. */
export const field = (line: string, from: number, to: number) => line.slice(from - 1, to);

export const checkDigit = (first8: string) => {
  const w = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = [...first8].reduce((s, d, i) => s + Number(d) * w[i], 0);
  return String((10 - (sum % 10)) % 10);
};

/** A transaction code's direction: second digit 1–4 credits the receiver, 6–9 debits. */
export const isCredit = (tc: string) => /^[2-5][1-4]$/.test(tc);
export const isDebit = (tc: string) => /^[2-5][6-9]$/.test(tc);

export type CheckResult =
  | {
      ok: true;
      entries: OriginalEntry[];
      entryCount: number;
      totalCreditCents: number;
      totalDebitCents: number;
    }
  | { ok: false; reason: string };

class Refusal extends Error {}
const refuse = (reason: string): never => {
  throw new Refusal(reason);
};
const numeric = (value: string, what: string, at: number) =>
  /^\d+$/.test(value) ? Number(value) : refuse(`record ${at}: ${what} is not numeric`);

export function checkNachaFile(content: string, odfiRouting: string): CheckResult {
  try {
    return { ok: true, ...check(content, odfiRouting) };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, reason: err.message };
    throw err;
  }
}

function check(content: string, odfiRouting: string) {
  if (!content.length) refuse('the file is empty');
  const lines = content.split(/\r\n|\n/);
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    if (line.length !== 94)
      refuse(`record ${i + 1} is ${line.length} characters long; every record must be 94`);
  });

  const header = lines[0];
  if (header[0] !== '1') refuse('the file does not start with a file header (record type 1)');
  if (field(header, 2, 3) !== '01') refuse('file header: priority code must be 01');
  const destination = field(header, 4, 13).trim();
  if (destination !== odfiRouting)
    refuse(`file header: immediate destination ${destination} is not this bank (${odfiRouting})`);
  if (field(header, 35, 37) !== '094') refuse('file header: record size must be 094');
  if (field(header, 38, 39) !== '10') refuse('file header: blocking factor must be 10');
  if (field(header, 40, 40) !== '1') refuse('file header: format code must be 1');

  const entries: OriginalEntry[] = [];
  const file = { batches: 0, count: 0, hash: 0, debit: 0, credit: 0 };
  let i = 1;
  while (i < lines.length && lines[i][0] === '5') {
    const batchHeader = lines[i];
    const at = i + 1;
    file.batches++;
    const serviceClass = field(batchHeader, 2, 4);
    if (!['200', '220', '225'].includes(serviceClass))
      refuse(`record ${at}: batch service class ${serviceClass} is not 200, 220 or 225`);
    const odfi = field(batchHeader, 80, 87);
    const batch = { count: 0, hash: 0, debit: 0, credit: 0 };
    i++;
    if (lines[i]?.[0] !== '6') refuse(`record ${at}: batch ${field(batchHeader, 88, 94)} has no entries`);
    while (i < lines.length && lines[i][0] === '6') {
      const entry = lines[i];
      const n = i + 1;
      const tc = field(entry, 2, 3);
      if (!isCredit(tc) && !isDebit(tc))
        refuse(`record ${n}: transaction code ${tc} is not one this bank takes`);
      const rdfi = field(entry, 4, 11);
      numeric(rdfi, 'the receiving DFI', n);
      if (field(entry, 12, 12) !== checkDigit(rdfi))
        refuse(`record ${n}: the receiving DFI's check digit is wrong`);
      const amount = numeric(field(entry, 30, 39), 'the amount', n);
      if (field(entry, 80, 87) !== odfi)
        refuse(`record ${n}: the trace number does not start with the batch's ODFI`);
      batch.count++;
      batch.hash += Number(rdfi);
      if (isCredit(tc)) batch.credit += amount;
      else batch.debit += amount;
      entries.push({ batchHeader, entry });
      i++;
      const addendaExpected = field(entry, 79, 79) === '1';
      while (i < lines.length && lines[i][0] === '7') {
        if (!addendaExpected)
          refuse(`record ${i + 1}: an addenda follows an entry whose addenda indicator is 0`);
        batch.count++;
        i++;
      }
      if (addendaExpected && lines[i - 1][0] !== '7')
        refuse(`record ${n}: the addenda indicator is 1 but no addenda follows`);
    }
    const control = lines[i];
    const c = i + 1;
    if (control?.[0] !== '8') refuse(`record ${c}: expected an entry, an addenda or a batch control`);
    if (field(control, 2, 4) !== serviceClass)
      refuse(`record ${c}: batch control's service class differs from its header's`);
    if (field(control, 88, 94) !== field(batchHeader, 88, 94))
      refuse(`record ${c}: batch control's batch number differs from its header's`);
    if (field(control, 45, 54) !== field(batchHeader, 41, 50))
      refuse(`record ${c}: batch control's company identification differs from its header's`);
    if (field(control, 80, 87) !== odfi)
      refuse(`record ${c}: batch control's ODFI differs from its header's`);
    const hash = batch.hash % 10_000_000_000;
    if (numeric(field(control, 5, 10), 'the entry/addenda count', c) !== batch.count)
      refuse(
        `record ${c}: batch control counts ${Number(field(control, 5, 10))} entries and addenda, the batch has ${batch.count}`,
      );
    if (numeric(field(control, 11, 20), 'the entry hash', c) !== hash)
      refuse(
        `record ${c}: batch control's entry hash ${field(control, 11, 20)} does not match the entries (${String(hash).padStart(10, '0')})`,
      );
    if (numeric(field(control, 21, 32), 'the total debit', c) !== batch.debit)
      refuse(`record ${c}: batch control's total debit does not match the entries`);
    if (numeric(field(control, 33, 44), 'the total credit', c) !== batch.credit)
      refuse(`record ${c}: batch control's total credit does not match the entries`);
    file.count += batch.count;
    file.hash += batch.hash;
    file.debit += batch.debit;
    file.credit += batch.credit;
    i++;
  }

  const control = lines[i];
  const c = i + 1;
  if (control?.[0] !== '9' || /^9+$/.test(control))
    refuse(`record ${c}: expected a batch header or the file control`);
  if (numeric(field(control, 2, 7), 'the batch count', c) !== file.batches)
    refuse(`file control counts ${Number(field(control, 2, 7))} batches, the file has ${file.batches}`);
  if (numeric(field(control, 14, 21), 'the entry/addenda count', c) !== file.count)
    refuse(
      `file control counts ${Number(field(control, 14, 21))} entries and addenda, the file has ${file.count}`,
    );
  const hash = file.hash % 10_000_000_000;
  if (numeric(field(control, 22, 31), 'the entry hash', c) !== hash)
    refuse(
      `file control's entry hash ${field(control, 22, 31)} does not match the batches (${String(hash).padStart(10, '0')})`,
    );
  if (numeric(field(control, 32, 43), 'the total debit', c) !== file.debit)
    refuse("file control's total debit does not match the batches");
  if (numeric(field(control, 44, 55), 'the total credit', c) !== file.credit)
    refuse("file control's total credit does not match the batches");
  for (let p = i + 1; p < lines.length; p++)
    if (lines[p] !== '9'.repeat(94))
      refuse(`record ${p + 1}: only lines of 94 nines may follow the file control`);
  if (lines.length % 10 !== 0)
    refuse(`the file has ${lines.length} records; padding must fill the last block of 10`);
  if (lines.length - (i + 1) > 9) refuse('more padding than one block needs');
  const blocks = numeric(field(control, 8, 13), 'the block count', c);
  if (blocks !== lines.length / 10)
    refuse(`file control says ${blocks} blocks, the file has ${lines.length / 10}`);
  return {
    entries,
    entryCount: entries.length,
    totalCreditCents: file.credit,
    totalDebitCents: file.debit,
  };
}
