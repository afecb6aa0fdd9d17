// Writes a NACHA file from header fields and batches of entries. It numbers what NACHA numbers
// (batches 1..n, trace numbers, addenda sequences), computes every control, pads to blocks of ten,
// and refuses (AchWriteError naming the field) any value it cannot write as the rules want: it never
// writes a file the validator would refuse. Pure: dates and times come in as arguments.
import {
  AchWriteError,
  BLOCKING_FACTOR,
  isBlankOrZeros,
  isCredit,
  isDebit,
  isDigits,
  isFileIdModifier,
  isHhmm,
  isPrenote,
  isPrintableAscii,
  isRoutingNumber,
  isYymmdd,
  MAX_ENTRY_AMOUNT_CENTS,
  MAX_TOTAL_CENTS,
  PADDING_LINE,
  type SecCode,
  type ServiceClassCode,
  type TransactionCode,
} from './records.js';

export interface AchEntryInput {
  transactionCode: TransactionCode;
  /** The receiving bank's 9-digit routing number (its check digit is verified). */
  routingNumber: string;
  /** At most 17 characters; never truncated. */
  accountNumber: string;
  amountCents: number;
  /** At most 15 characters (e.g. the vendor's id); never truncated. */
  identificationNumber?: string;
  /** The receiver's name: required; cut to 22 characters. */
  individualName: string;
  discretionaryData?: string;
  /** Payment-related information: one 05 addenda record, cut to 80 characters. */
  addenda?: string;
}

export interface AchBatchInput {
  serviceClassCode: ServiceClassCode;
  standardEntryClassCode: SecCode;
  companyName: string;
  companyDiscretionaryData?: string;
  /** ACH company id, or '1' + EIN: at most 10 characters; never truncated. */
  companyIdentification: string;
  companyEntryDescription: string;
  companyDescriptiveDate?: string;
  /** YYMMDD. */
  effectiveEntryDate: string;
  originatorStatusCode?: '1' | '2';
  /** The first 8 digits of the originating bank's routing number; trace numbers start with it. */
  odfiIdentification: string;
  entries: AchEntryInput[];
}

export interface AchFileInput {
  /** The 9-digit routing number of the bank the file goes to. */
  immediateDestination: string;
  /** A 9-digit routing number, or '1' + the 9-digit EIN. */
  immediateOrigin: string;
  /** YYMMDD. */
  fileCreationDate: string;
  /** HHmm; blank when absent. */
  fileCreationTime?: string;
  /** A–Z or 0–9: the day's first file is A, the next B, … */
  fileIdModifier: string;
  immediateDestinationName?: string;
  immediateOriginName?: string;
  referenceCode?: string;
  /**
   * The first entry's trace sequence (7 digits after the ODFI's 8), the rest counting up from it: the
   * caller reserves a range never used before at that ODFI, so a return names one entry only. 1 when absent.
   */
  firstTraceSequence?: number;
  batches: AchBatchInput[];
}

/** What the file controls say, for the caller to record. */
export interface AchFileTotals {
  batchCount: number;
  entryCount: number;
  entryAddendaCount: number;
  entryHash: number;
  totalDebitCents: number;
  totalCreditCents: number;
  blockCount: number;
  lineCount: number;
  /** Every entry's trace number (15 digits), in the file's order. */
  traceNumbers: string[];
}

/** Letters folded by hand: NFKD leaves them whole. */
const FOLD: Record<string, string> = {
  ß: 'SS',
  Æ: 'AE',
  æ: 'AE',
  Ø: 'O',
  ø: 'O',
  Œ: 'OE',
  œ: 'OE',
  Ł: 'L',
  ł: 'L',
  Đ: 'D',
  đ: 'D',
  Þ: 'TH',
  þ: 'TH',
  ı: 'I',
};

/**
 * Text as a NACHA field holds it: printable ASCII, upper case, accents dropped (NFKD), other
 * characters dropped, control characters and odd spaces as blanks, no blanks around it.
 */
export function achText(value: string): string {
  if (isPrintableAscii(value)) return value.trim().toUpperCase();
  const decomposed = value.normalize('NFKD');
  const out: string[] = [];
  for (const ch of decomposed) {
    const c = ch.charCodeAt(0);
    if (c >= 32 && c <= 126) out.push(ch);
    else if (c < 32 || /\s/.test(ch)) out.push(' ');
    else {
      const folded = FOLD[ch];
      if (folded) out.push(folded);
    }
  }
  return out.join('').trim().toUpperCase();
}

const alpha = (value: string, width: number) => {
  const t = achText(value);
  return t.length >= width ? t.slice(0, width) : t.padEnd(width, ' ');
};

function num(value: number, width: number, path: string, field: string, max: number) {
  if (!Number.isSafeInteger(value) || value < 0 || value > max)
    throw new AchWriteError(path, field, `must be a whole number from 0 to ${max}, not ${value}`);
  return String(value).padStart(width, '0');
}

/** An identifier: never truncated nor folded; refused when it does not fit. */
function ident(value: string, width: number, path: string, field: string, required: boolean) {
  if (!isPrintableAscii(value)) throw new AchWriteError(path, field, 'must be printable ASCII');
  const t = value.trim().toUpperCase();
  if (t.length > width)
    throw new AchWriteError(path, field, `is ${t.length} characters; the field holds ${width}`);
  if (required && isBlankOrZeros(t))
    throw new AchWriteError(path, field, 'is required: it is blank or zeros');
  return t.padEnd(width, ' ');
}

function required(value: string, width: number, path: string, field: string) {
  const t = alpha(value, width);
  if (isBlankOrZeros(t)) throw new AchWriteError(path, field, 'is required: it is blank or zeros');
  return t;
}

function origin(value: string): string {
  const v = value.trim();
  if (isDigits(v, 9)) {
    if (!isRoutingNumber(v))
      throw new AchWriteError('', 'immediateOrigin', `routing number ${v} fails its check digit`);
    return ` ${v}`;
  }
  if (v.length === 10 && v[0] === '1' && isDigits(v) && !isBlankOrZeros(v.slice(1))) return v;
  throw new AchWriteError('', 'immediateOrigin', "must be a 9-digit routing number or '1' + the 9-digit EIN");
}

function routing(value: string, path: string, field: string) {
  if (!isDigits(value, 9)) throw new AchWriteError(path, field, 'must be a 9-digit routing number');
  if (!isRoutingNumber(value))
    throw new AchWriteError(path, field, `routing number ${value} fails its check digit`);
  return value;
}

/** The file's text (94-character lines, each ending in '\n'). */
export function writeAchFile(input: AchFileInput): string {
  return writeAchFileWithTotals(input).text;
}

/** The file's text and what its file control says. */
export function writeAchFileWithTotals(input: AchFileInput): { text: string; totals: AchFileTotals } {
  const destination = routing(input.immediateDestination.trim(), '', 'immediateDestination');
  if (!isYymmdd(input.fileCreationDate))
    throw new AchWriteError(
      '',
      'fileCreationDate',
      `must be a date written YYMMDD, not '${input.fileCreationDate}'`,
    );
  const time = input.fileCreationTime ?? '';
  if (time !== '' && !isHhmm(time))
    throw new AchWriteError('', 'fileCreationTime', `must be a time written HHmm, not '${time}'`);
  if (!isFileIdModifier(input.fileIdModifier))
    throw new AchWriteError('', 'fileIdModifier', `must be A–Z or 0–9, not '${input.fileIdModifier}'`);
  if (input.batches.length === 0) throw new AchWriteError('', 'batches', 'a file needs at least one batch');

  const lines: string[] = [
    `101 ${destination}${origin(input.immediateOrigin)}${input.fileCreationDate}${time.padEnd(4, ' ')}${input.fileIdModifier}094101${alpha(input.immediateDestinationName ?? '', 23)}${alpha(input.immediateOriginName ?? '', 23)}${alpha(input.referenceCode ?? '', 8)}`,
  ];
  let fileHash = 0;
  let fileDebit = 0;
  let fileCredit = 0;
  let fileEntryAddenda = 0;
  let entryCount = 0;
  const firstTrace = input.firstTraceSequence ?? 1;
  if (!Number.isInteger(firstTrace) || firstTrace < 1)
    throw new AchWriteError('', 'firstTraceSequence', 'must be a whole number from 1');
  let trace = firstTrace - 1;
  const traceNumbers: string[] = [];
  for (let b = 0; b < input.batches.length; b++) {
    const batch = input.batches[b];
    const path = `batches[${b}]`;
    const scc = batch.serviceClassCode;
    if (scc !== 200 && scc !== 220 && scc !== 225)
      throw new AchWriteError(path, 'serviceClassCode', `must be 200, 220 or 225, not ${scc}`);
    const sec = batch.standardEntryClassCode;
    if (sec !== 'PPD' && sec !== 'CCD')
      throw new AchWriteError(path, 'standardEntryClassCode', `must be PPD or CCD, not '${sec}'`);
    if (!isYymmdd(batch.effectiveEntryDate))
      throw new AchWriteError(
        path,
        'effectiveEntryDate',
        `must be a date written YYMMDD, not '${batch.effectiveEntryDate}'`,
      );
    const status = batch.originatorStatusCode ?? '1';
    if (status !== '1' && status !== '2')
      throw new AchWriteError(path, 'originatorStatusCode', `must be 1 or 2, not '${status}'`);
    const odfi = batch.odfiIdentification;
    if (!isDigits(odfi, 8))
      throw new AchWriteError(path, 'odfiIdentification', 'must be the 8 digits of the ODFI routing number');
    if (batch.entries.length === 0)
      throw new AchWriteError(path, 'entries', 'a batch needs at least one entry');
    const companyId = ident(batch.companyIdentification, 10, path, 'companyIdentification', true);
    const batchNumber = num(b + 1, 7, path, 'batchNumber', 9_999_999);
    lines.push(
      `5${scc}${required(batch.companyName, 16, path, 'companyName')}${alpha(batch.companyDiscretionaryData ?? '', 20)}${companyId}${sec}${required(batch.companyEntryDescription, 10, path, 'companyEntryDescription')}${alpha(batch.companyDescriptiveDate ?? '', 6)}${batch.effectiveEntryDate}   ${status}${odfi}${batchNumber}`,
    );
    let hash = 0;
    let debit = 0;
    let credit = 0;
    let entryAddenda = 0;
    for (let i = 0; i < batch.entries.length; i++) {
      const e = batch.entries[i];
      const ep = `${path}.entries[${i}]`;
      const code = e.transactionCode;
      const credits = isCredit(code);
      if (!credits && !isDebit(code))
        throw new AchWriteError(
          ep,
          'transactionCode',
          `must be 22, 23, 27, 28, 32, 33, 37 or 38, not ${code}`,
        );
      if (scc === 220 && !credits)
        throw new AchWriteError(ep, 'transactionCode', `a debit (${code}) in a credits-only batch (220)`);
      if (scc === 225 && credits)
        throw new AchWriteError(ep, 'transactionCode', `a credit (${code}) in a debits-only batch (225)`);
      const amount = num(e.amountCents, 10, ep, 'amountCents', MAX_ENTRY_AMOUNT_CENTS);
      if (isPrenote(code) ? e.amountCents !== 0 : e.amountCents === 0)
        throw new AchWriteError(
          ep,
          'amountCents',
          isPrenote(code)
            ? `a prenote (${code}) carries amount 0`
            : `a live entry (${code}) needs an amount above 0`,
        );
      const rdfi = routing(e.routingNumber, ep, 'routingNumber');
      const addenda = e.addenda === undefined ? '' : alpha(e.addenda, 80);
      const hasAddenda = addenda !== '' && addenda.trim() !== '';
      trace++;
      const seq = num(trace, 7, ep, 'traceNumber', 9_999_999);
      traceNumbers.push(`${odfi}${seq}`);
      lines.push(
        `6${code}${rdfi}${ident(e.accountNumber, 17, ep, 'accountNumber', true)}${amount}${ident(e.identificationNumber ?? '', 15, ep, 'identificationNumber', false)}${required(e.individualName, 22, ep, 'individualName')}${alpha(e.discretionaryData ?? '', 2)}${hasAddenda ? '1' : '0'}${odfi}${seq}`,
      );
      if (hasAddenda) lines.push(`705${addenda}0001${seq}`);
      entryAddenda += hasAddenda ? 2 : 1;
      hash += Number(rdfi.slice(0, 8));
      if (credits) credit += e.amountCents;
      else debit += e.amountCents;
    }
    entryCount += batch.entries.length;
    const cp = `${path}.control`;
    lines.push(
      `8${scc}${num(entryAddenda, 6, cp, 'entryAddendaCount', 999_999)}${String(hash % 10_000_000_000).padStart(10, '0')}${num(debit, 12, cp, 'totalDebit', MAX_TOTAL_CENTS)}${num(credit, 12, cp, 'totalCredit', MAX_TOTAL_CENTS)}${companyId}${' '.repeat(25)}${odfi}${batchNumber}`,
    );
    fileHash += hash;
    fileDebit += debit;
    fileCredit += credit;
    fileEntryAddenda += entryAddenda;
  }
  const recordLines = lines.length + 1;
  const blockCount = Math.ceil(recordLines / BLOCKING_FACTOR);
  const entryHash = fileHash % 10_000_000_000;
  lines.push(
    `9${num(input.batches.length, 6, 'control', 'batchCount', 999_999)}${num(blockCount, 6, 'control', 'blockCount', 999_999)}${num(fileEntryAddenda, 8, 'control', 'entryAddendaCount', 99_999_999)}${String(entryHash).padStart(10, '0')}${num(fileDebit, 12, 'control', 'totalDebit', MAX_TOTAL_CENTS)}${num(fileCredit, 12, 'control', 'totalCredit', MAX_TOTAL_CENTS)}${' '.repeat(39)}`,
  );
  while (lines.length % BLOCKING_FACTOR !== 0) lines.push(PADDING_LINE);
  lines.push('');
  return {
    text: lines.join('\n'),
    totals: {
      batchCount: input.batches.length,
      entryCount,
      entryAddendaCount: fileEntryAddenda,
      entryHash,
      totalDebitCents: fileDebit,
      totalCreditCents: fileCredit,
      blockCount,
      lineCount: lines.length - 1,
      traceNumbers,
    },
  };
}
