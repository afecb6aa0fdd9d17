// The bank's return and notification-of-change files: real NACHA files built from the originator's
// own entries as the RDFI sends them back (reference/ach-returns.md §1 and §3): the entry copied but
// for its transaction code (22 → 21, 32 → 31), receiving DFI (now the ODFI) and trace (the
// returner's); an Addenda 99 with the return code, the original trace and RDFI; or a COR batch with
// an Addenda 98 carrying the corrected data by position, amounts zero.
import { field, isCredit } from './checks.js';
import type { AnswerItem, BankAnswer } from './types.js';

const RETURN_CODE: Record<string, string> = { '2': '1', '3': '1', '4': '1', '7': '6', '8': '6', '9': '6' };

/** The return/NOC transaction code of an original one: 22/23/24 → 21, 27/28/29 → 26, 32 → 31 … */
export function answerTransactionCode(original: string): string {
  const last = RETURN_CODE[original[1]];
  if (!last) throw new Error(`transaction code ${original} cannot be answered`);
  return `${original[0]}${last}`;
}

const swapAccountType = (tc: string) => (tc[0] === '2' ? `3${tc[1]}` : tc[0] === '3' ? `2${tc[1]}` : tc);
const left = (value: string, width: number) => value.slice(0, width).padEnd(width, ' ');
const num = (value: number, width: number) => String(value).padStart(width, '0');

/** The 29-character corrected-data field of an Addenda 98 (positions 36–64), by change code. */
export function correctedData(answer: Extract<BankAnswer, { kind: 'noc' }>, entry: string): string {
  const account = field(entry, 13, 29).trim();
  const tc = field(entry, 2, 3);
  switch (answer.code) {
    case 'C01': {
      const suffix = answer.correctedAccountSuffix;
      const corrected =
        answer.correctedAccountNumber ?? (suffix ? account.slice(0, -suffix.length) + suffix : account);
      return left(corrected, 29);
    }
    case 'C02':
      return left(answer.correctedRoutingNumber, 29);
    case 'C03':
      return left(`${left(answer.correctedRoutingNumber, 9)}   ${answer.correctedAccountNumber}`, 29);
    case 'C04':
      return left(answer.correctedName, 29);
    case 'C05':
      return left(answer.correctedTransactionCode ?? swapAccountType(tc), 29);
    case 'C06':
      return left(
        left(answer.correctedAccountNumber, 17) +
          '   ' +
          (answer.correctedTransactionCode ?? swapAccountType(tc)),
        29,
      );
    case 'C07':
      return left(
        left(answer.correctedRoutingNumber, 9) +
          left(answer.correctedAccountNumber, 17) +
          (answer.correctedTransactionCode ?? swapAccountType(tc)),
        29,
      );
    case 'C09':
      return left(answer.correctedIdentification, 29);
    case 'C13':
      return ' '.repeat(29);
  }
}

export interface AnswerFileInput {
  kind: 'return' | 'noc';
  /** The ODFI's routing: the file's destination and every answer entry's receiving DFI. */
  odfiRouting: string;
  items: AnswerItem[];
  createdAt: Date;
  /** The first of the answer entries' own trace sequences (7 digits after the RDFI's 8). */
  traceSequence: number;
}

/** A whole answer file (LF line ends) and the next trace sequence to use. */
export function writeAnswerFile(input: AnswerFileInput): { content: string; nextTraceSequence: number } {
  const { kind, odfiRouting, createdAt } = input;
  const yymmdd = createdAt.toISOString().slice(2, 10).replaceAll('-', '');
  const hhmm = createdAt.toISOString().slice(11, 16).replace(':', '');
  const lines: string[] = [
    `101 ${odfiRouting} ${odfiRouting}${yymmdd}${hhmm}A094101${left('BILLFLOW ORIGINATOR', 23)}${left(
      kind === 'return' ? 'BANK SANDBOX RETURNS' : 'BANK SANDBOX NOC',
      23,
    )}${' '.repeat(8)}`,
  ];
  // One batch per original batch and RDFI: the RDFI is the answer batch's originator (80–87).
  const batches = new Map<string, AnswerItem[]>();
  for (const item of input.items) {
    const key = `${item.batchHeader}|${field(item.entry, 4, 11)}`;
    batches.set(key, [...(batches.get(key) ?? []), item]);
  }
  let sequence = input.traceSequence;
  let batchNumber = 0;
  const file = { count: 0, hash: 0, debit: 0, credit: 0 };
  for (const items of batches.values()) {
    const original = items[0].batchHeader;
    const rdfi = field(items[0].entry, 4, 11);
    batchNumber++;
    const serviceClass = field(original, 2, 4);
    const sec = kind === 'noc' ? 'COR' : field(original, 51, 53);
    lines.push(`${field(original, 1, 50)}${sec}${field(original, 54, 78)}1${rdfi}${num(batchNumber, 7)}`);
    const batch = { count: 0, hash: 0, debit: 0, credit: 0 };
    for (const { entry, answer } of items) {
      const tc = answerTransactionCode(field(entry, 2, 3));
      const amount = kind === 'noc' ? 0 : Number(field(entry, 30, 39));
      const trace = `${rdfi}${num(sequence++ % 10_000_000, 7)}`;
      lines.push(
        `6${tc}${odfiRouting}${field(entry, 13, 29)}${num(amount, 10)}${field(entry, 40, 78)}1${trace}`,
      );
      const originalTrace = field(entry, 80, 94);
      const originalRdfi = field(entry, 4, 11);
      if (answer.kind === 'return')
        lines.push(
          `799${left(answer.code, 3)}${originalTrace}${left(answer.dateOfDeath ?? '', 6)}${originalRdfi}${left(
            answer.addendaInformation ?? '',
            44,
          )}${trace}`,
        );
      else
        lines.push(
          `798${answer.code}${originalTrace}${' '.repeat(6)}${originalRdfi}${correctedData(answer, entry)}${' '.repeat(15)}${trace}`,
        );
      batch.count += 2;
      batch.hash += Number(odfiRouting.slice(0, 8));
      if (isCredit(tc)) batch.credit += amount;
      else batch.debit += amount;
    }
    lines.push(
      `8${serviceClass}${num(batch.count, 6)}${num(batch.hash % 10_000_000_000, 10)}${num(batch.debit, 12)}${num(
        batch.credit,
        12,
      )}${field(original, 41, 50)}${' '.repeat(25)}${rdfi}${num(batchNumber, 7)}`,
    );
    file.count += batch.count;
    file.hash += batch.hash;
    file.debit += batch.debit;
    file.credit += batch.credit;
  }
  const records = lines.length + 1;
  const blocks = Math.ceil(records / 10);
  lines.push(
    `9${num(batchNumber, 6)}${num(blocks, 6)}${num(file.count, 8)}${num(file.hash % 10_000_000_000, 10)}${num(
      file.debit,
      12,
    )}${num(file.credit, 12)}${' '.repeat(39)}`,
  );
  while (lines.length % 10 !== 0) lines.push('9'.repeat(94));
  return { content: `${lines.join('\n')}\n`, nextTraceSequence: sequence };
}
