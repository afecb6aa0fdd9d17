// One file from several (decision 0040): the approvals made for one cut-off window are each written as
// a file of one batch with the window file's header (the same origin, creation instant and file id
// modifier); the file that goes to the bank is the first one's header, their batches in order, and a file
// control over all of them. Entries and their trace numbers are kept as written; batch numbers are
// the ones given. Pure: the caller validates the result (validator.ts) before anyone may use it.
import { BLOCKING_FACTOR, MAX_TOTAL_CENTS, PADDING_LINE } from './records.js';

export class AchCombineError extends Error {}

export interface CombinedBatch {
  /** A file of one batch, as the writer made it. */
  text: string;
  /** The batch's number in the combined file (ascending, the first 1). */
  batch: number;
}

const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.length > 0 && l !== PADDING_LINE);
const digits = (line: string, from: number, to: number) => Number(line.slice(from, to));

export function combineAchFiles(parts: readonly CombinedBatch[]): string {
  if (parts.length === 0) throw new AchCombineError('a file needs at least one batch');
  const sorted = [...parts].sort((a, b) => a.batch - b.batch);
  let header: string | null = null;
  const out: string[] = [];
  let batches = 0;
  let entryAddenda = 0;
  let hash = 0;
  let debit = 0;
  let credit = 0;
  for (const part of sorted) {
    const ls = lines(part.text);
    if (ls[0]?.[0] !== '1') throw new AchCombineError(`batch ${part.batch}: no file header`);
    if (header === null) header = ls[0];
    // One destination, origin, creation instant and modifier (the names may have been edited since).
    else if (ls[0].slice(0, 34) !== header.slice(0, 34))
      throw new AchCombineError(`batch ${part.batch}: written for another file`);
    const number = String(part.batch).padStart(7, '0');
    for (const line of ls.slice(1)) {
      if (line[0] === '5' || line[0] === '8') {
        out.push(`${line.slice(0, 87)}${number}`);
        if (line[0] === '8') {
          batches++;
          entryAddenda += digits(line, 4, 10);
          hash += digits(line, 10, 20);
          debit += digits(line, 20, 32);
          credit += digits(line, 32, 44);
        }
      } else if (line[0] === '6' || line[0] === '7') out.push(line);
      else if (line[0] !== '9') throw new AchCombineError(`batch ${part.batch}: a record of type ${line[0]}`);
    }
  }
  if (debit > MAX_TOTAL_CENTS || credit > MAX_TOTAL_CENTS)
    throw new AchCombineError('the file total is above what its control holds');
  const records = 1 + out.length + 1;
  const blocks = Math.ceil(records / BLOCKING_FACTOR);
  const control = `9${String(batches).padStart(6, '0')}${String(blocks).padStart(6, '0')}${String(entryAddenda).padStart(8, '0')}${String(hash % 10_000_000_000).padStart(10, '0')}${String(debit).padStart(12, '0')}${String(credit).padStart(12, '0')}${' '.repeat(39)}`;
  const all = [header!, ...out, control];
  while (all.length % BLOCKING_FACTOR !== 0) all.push(PADDING_LINE);
  all.push('');
  return all.join('\n');
}
