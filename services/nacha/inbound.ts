// Reads the files the bank hands back: returns (Addenda 99) and notifications of change (COR batches,
// Addenda 98), as shared/reference/ach-returns.md lays them out. The records are read by the strict
// parser (parser.ts); the rules here are the inbound ones: the return and NOC transaction codes, the
// controls' counts, hash and totals computed as for Billflow's own files, every entry's addenda, and
// only the return and change codes Nacha assigns. A file breaking any of them is refused whole, each
// broken rule naming its line and field (never an account number): a bank file is read all or not at
// all, so no return is half-applied. Pure: no I/O.
import {
  type ChangeCodeEntry,
  type CorrectedData,
  CorrectedDataError,
  changeCode,
  parseCorrectedData,
} from './change-codes.js';
import { parseAchFile } from './parser.js';
import {
  type AchFile,
  AchParseError,
  type Addenda,
  type BatchHeader,
  BLOCKING_FACTOR,
  type EntryDetail,
  isDigits,
  isFileIdModifier,
  isPrintableAscii,
  isRoutingNumber,
  isYymmdd,
  routingCheckDigit,
  SERVICE_CLASS_CODES,
} from './records.js';
import { DECEASED_CODES, type ReturnAction, returnAction, returnCode } from './return-codes.js';

export type { CorrectedData } from './change-codes.js';
export type { ReturnAction } from './return-codes.js';

export interface InboundError {
  line: number | null;
  /** The record and its field, e.g. `Addenda99.returnReasonCode`, `FileControl.blockCount`. */
  field: string;
  message: string;
}

export type InboundParse = { ok: true; file: InboundFile } | { ok: false; errors: InboundError[] };

export interface InboundFile {
  immediateOrigin: string;
  immediateDestination: string;
  /** YYYY-MM-DD */
  createdOn: string;
  fileIdModifier: string;
  returns: InboundReturn[];
  corrections: InboundCorrection[];
  /** C61–C69: the ODFI refusing a NOC. */
  refusedCorrections: InboundRefusedCorrection[];
  /** Entries that are neither a return nor a NOC (a forward entry, a received prenote). */
  other: Array<{ line: number; reason: string }>;
}

export interface InboundEntryBase {
  /** The entry's line in the file (1-based). */
  line: number;
  batchNumber: number;
  companyName: string;
  companyIdentification: string;
  secCode: string;
  /** The batch's effective entry date (the original's), YYYY-MM-DD; null when not a date. */
  effectiveDate: string | null;
  /** 21, 31, 26, 36 … */
  transactionCode: number;
  /** Nine digits as written: on a return, the ODFI's routing number. */
  receivingDfi: string;
  /** As in the file: the caller masks or seals it and never logs it. */
  accountNumber: string;
  amountCents: number;
  individualId: string;
  individualName: string;
  /** The return's or NOC's own trace, the RDFI's: never the key to match on. */
  traceNumber: string;
  /** Addenda 07–21: the trace Billflow wrote on the original entry, the key to match it. */
  originalTrace: string;
  /** Addenda 28–35: the first 8 digits of the original entry's receiving routing number. */
  originalRdfi: string;
}

export interface InboundReturn extends InboundEntryBase {
  returnCode: string;
  description: string;
  action: ReturnAction;
  /** YYYY-MM-DD, only with R14/R15. */
  dateOfDeath: string | null;
  /** Addenda 36–79 (a dishonored or contested return's own fields are in it too). */
  addendaInformation: string;
}

export interface InboundCorrection extends InboundEntryBase {
  changeCode: string;
  description: string;
  corrected: CorrectedData;
  /** Addenda 36–64 as written. */
  correctedRaw: string;
}

export interface InboundRefusedCorrection extends InboundEntryBase {
  /** C61–C69 */
  refusedCode: string;
  description: string;
  /** Addenda 65–67: the change code of the NOC refused. */
  originalChangeCode: string;
  /** Addenda 36–64 as written. */
  correctedRaw: string;
  /** Addenda 68–74: the sequence part of the refused NOC's trace. */
  nocTraceSequence: string;
}

const HASH_MODULUS = 10_000_000_000;

// Return and NOC codes answer 22–24 → 21, 27–29 → 26, 32–34 → 31, 37–39 → 36 (and the GL, loan
// accounts' 4x/5x); a dishonored return carries the forward code of the entry it answers.
const RETURN_OR_NOC_CODES = new Set([21, 26, 31, 36, 41, 46, 51, 56]);
const KNOWN_CODES = new Set([
  21, 22, 23, 24, 26, 27, 28, 29, 31, 32, 33, 34, 36, 37, 38, 39, 41, 42, 43, 44, 46, 47, 48, 49, 51, 52, 53,
  54, 55, 56,
]);
/** Credits end in 1–4, debits in 5–9 (55 and 56 are the loan accounts' debit and its return). */
const isCreditCode = (code: number) => code % 10 >= 1 && code % 10 <= 4;

const isoDate = (yymmdd: string) =>
  isYymmdd(yymmdd) ? `20${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}` : null;

/**
 * The addenda record's positions 01–94. The parser keeps positions 04–83 without their trailing
 * blanks and 84–94 as two numbers it read digit by digit, so the record is exactly rebuilt.
 */
const addendaLine = (a: Addenda) =>
  `7${a.addendaTypeCode}${a.paymentRelatedInformation.padEnd(80, ' ')}${String(a.addendaSequenceNumber).padStart(4, '0')}${String(a.entryDetailSequenceNumber).padStart(7, '0')}`;
/** 1-based, inclusive. */
const pos = (l: string, from: number, to: number) => l.slice(from - 1, to);

type Add = (line: number | null, field: string, message: string) => void;

/** The bank's return or NOC file, read whole, or every rule it breaks. */
export function parseInboundFile(text: string): InboundParse {
  let ach: AchFile;
  try {
    ach = parseAchFile(text);
  } catch (err) {
    if (!(err instanceof AchParseError)) throw err;
    const record = err.record === 'Unknown' ? 'File' : err.record;
    const message = err.message.replace(/^line \d+, [^:]*: /, '');
    return { ok: false, errors: [{ line: err.line, field: `${record}.${err.field}`, message }] };
  }
  const errors: InboundError[] = [];
  const add: Add = (line, field, message) => errors.push({ line, field, message });
  const file: InboundFile = {
    immediateOrigin: ach.header.immediateOrigin,
    immediateDestination: ach.header.immediateDestination,
    createdOn: isoDate(ach.header.fileCreationDate) ?? '',
    fileIdModifier: ach.header.fileIdModifier,
    returns: [],
    corrections: [],
    refusedCorrections: [],
    other: [],
  };
  checkFileHeader(ach, add);

  let entryAddenda = 0;
  let hash = 0;
  let debit = 0;
  let credit = 0;
  let previousBatchNumber = 0;
  for (const batch of ach.batches) {
    const h = batch.header;
    if (h.batchNumber <= previousBatchNumber)
      add(
        h.line,
        'BatchHeader.batchNumber',
        `batch numbers must ascend: ${h.batchNumber} follows ${previousBatchNumber}`,
      );
    previousBatchNumber = h.batchNumber;
    checkBatchHeader(h, add);
    const base = {
      batchNumber: h.batchNumber,
      companyName: h.companyName,
      companyIdentification: h.companyIdentification.trim(),
      secCode: h.standardEntryClassCode,
      effectiveDate: isoDate(h.effectiveEntryDate),
    };
    const cor = h.standardEntryClassCode === 'COR';
    let bHash = 0;
    let bDebit = 0;
    let bCredit = 0;
    let bCount = 0;
    for (const e of batch.entries) {
      bCount += 1 + e.addenda.length;
      if (isDigits(e.rdfiIdentification, 8)) bHash += Number(e.rdfiIdentification);
      if (isCreditCode(e.transactionCode)) bCredit += e.amountCents;
      else bDebit += e.amountCents;
      checkEntry(e, h, cor, add);
      readEntry(e, base, cor, file, add);
    }
    const c = batch.control;
    const same = (field: string, found: string | number, header: string | number) => {
      if (found !== header)
        add(c.line, `BatchControl.${field}`, `is ${found}; its batch header (line ${h.line}) has ${header}`);
    };
    same('serviceClassCode', c.serviceClassCode, h.serviceClassCode);
    same('companyIdentification', c.companyIdentification.trim(), h.companyIdentification.trim());
    same('odfiIdentification', c.odfiIdentification, h.odfiIdentification);
    same('batchNumber', c.batchNumber, h.batchNumber);
    const computed = (field: string, what: string, found: number, value: number) => {
      if (found !== value)
        add(c.line, `BatchControl.${field}`, `${what} is ${found}; the batch's entries give ${value}`);
    };
    computed('entryAddendaCount', 'the entry/addenda count', c.entryAddendaCount, bCount);
    computed('entryHash', 'the entry hash', c.entryHash, bHash % HASH_MODULUS);
    computed('totalDebit', 'the total debit', c.totalDebitCents, bDebit);
    computed('totalCredit', 'the total credit', c.totalCreditCents, bCredit);
    entryAddenda += bCount;
    hash += bHash;
    debit += bDebit;
    credit += bCredit;
  }

  const c = ach.control;
  const fc = (field: string, what: string, found: number, computed: number) => {
    if (found !== computed)
      add(c.line, `FileControl.${field}`, `${what} is ${found}; the file's records give ${computed}`);
  };
  fc('batchCount', 'the batch count', c.batchCount, ach.batches.length);
  fc('entryAddendaCount', 'the entry/addenda count', c.entryAddendaCount, entryAddenda);
  fc('entryHash', 'the entry hash', c.entryHash, hash % HASH_MODULUS);
  fc('totalDebit', 'the total debit', c.totalDebitCents, debit);
  fc('totalCredit', 'the total credit', c.totalCreditCents, credit);
  // Padding is not required: the count of blocks is what the records say, as moov-io/ach reads it.
  const recordLines = 2 + 2 * ach.batches.length + entryAddenda;
  fc('blockCount', 'the block count', c.blockCount, Math.ceil(recordLines / BLOCKING_FACTOR));

  return errors.length > 0 ? { ok: false, errors } : { ok: true, file };
}

function checkFileHeader(ach: AchFile, add: Add) {
  const h = ach.header;
  const r = (field: string) => `FileHeader.${field}`;
  if (h.priorityCode !== '01') add(h.line, r('priorityCode'), `must be 01, not '${h.priorityCode}'`);
  const dest = h.immediateDestination;
  const destRouting = dest.length === 10 && dest[0] === '0' ? dest.slice(1) : dest;
  if (!isRoutingNumber(destRouting))
    add(
      h.line,
      r('immediateDestination'),
      `must be a 9-digit routing number with its check digit, not '${dest}'`,
    );
  if (h.immediateOrigin === '' || !isPrintableAscii(h.immediateOrigin))
    add(h.line, r('immediateOrigin'), 'is required: printable, not blank');
  if (!isYymmdd(h.fileCreationDate)) add(h.line, r('fileCreationDate'), 'must be a date written YYMMDD');
  if (!isFileIdModifier(h.fileIdModifier))
    add(h.line, r('fileIdModifier'), `must be A–Z or 0–9, not '${h.fileIdModifier}'`);
  if (h.recordSize !== '094') add(h.line, r('recordSize'), `must be 094, not '${h.recordSize}'`);
  if (h.blockingFactor !== '10') add(h.line, r('blockingFactor'), `must be 10, not '${h.blockingFactor}'`);
  if (h.formatCode !== '1') add(h.line, r('formatCode'), `must be 1, not '${h.formatCode}'`);
}

function checkBatchHeader(h: BatchHeader, add: Add) {
  if (!SERVICE_CLASS_CODES.includes(h.serviceClassCode))
    add(h.line, 'BatchHeader.serviceClassCode', `must be 200, 220 or 225, not ${h.serviceClassCode}`);
  if (!/^[A-Z]{3}$/.test(h.standardEntryClassCode))
    add(
      h.line,
      'BatchHeader.standardEntryClassCode',
      `must be three letters, not '${h.standardEntryClassCode}'`,
    );
  if (!isPrintableAscii(h.companyName)) add(h.line, 'BatchHeader.companyName', 'must be printable ASCII');
  if (h.companyIdentification.trim() === '' || !isPrintableAscii(h.companyIdentification))
    add(h.line, 'BatchHeader.companyIdentification', 'is required: printable, not blank');
  if (!isDigits(h.odfiIdentification, 8))
    add(h.line, 'BatchHeader.odfiIdentification', 'must be the 8 digits of a routing number');
}

function checkEntry(e: EntryDetail, h: BatchHeader, cor: boolean, add: Add) {
  const r = (field: string) => `EntryDetail.${field}`;
  const code = e.transactionCode;
  if (!KNOWN_CODES.has(code)) add(e.line, r('transactionCode'), `${code} is not an ACH transaction code`);
  else if (cor && !RETURN_OR_NOC_CODES.has(code))
    add(
      e.line,
      r('transactionCode'),
      `a notification of change carries 21, 26, 31, 36, 41, 46, 51 or 56, not ${code}`,
    );
  else if (!cor && h.serviceClassCode === 220 && !isCreditCode(code))
    add(e.line, r('transactionCode'), `a debit (${code}) in a credits-only batch (service class 220)`);
  else if (!cor && h.serviceClassCode === 225 && isCreditCode(code))
    add(e.line, r('transactionCode'), `a credit (${code}) in a debits-only batch (service class 225)`);
  if (!isDigits(e.rdfiIdentification, 8))
    add(e.line, r('rdfiIdentification'), 'must be the first 8 digits of a routing number');
  else if (!isDigits(e.checkDigit, 1) || routingCheckDigit(e.rdfiIdentification) !== Number(e.checkDigit))
    add(
      e.line,
      r('checkDigit'),
      `routing number ${e.rdfiIdentification}${e.checkDigit} fails its check digit`,
    );
  if (e.dfiAccountNumber.trim() === '' || !isPrintableAscii(e.dfiAccountNumber))
    add(e.line, r('dfiAccountNumber'), 'is required: printable, not blank');
  if (!isDigits(e.traceNumber, 15)) add(e.line, r('traceNumber'), 'must be 15 digits');
  const n = e.addenda.length;
  if (e.addendaRecordIndicator !== '0' && e.addendaRecordIndicator !== '1')
    add(e.line, r('addendaRecordIndicator'), `must be 0 or 1, not '${e.addendaRecordIndicator}'`);
  else if (e.addendaRecordIndicator === '1' && n === 0)
    add(e.line, r('addendaRecordIndicator'), 'is 1 but no addenda record follows the entry');
  else if (e.addendaRecordIndicator === '0' && n > 0)
    add(e.line, r('addendaRecordIndicator'), `is 0 but ${n} addenda record(s) follow the entry`);
  if (cor && e.amountCents !== 0)
    add(e.line, r('amount'), `a notification of change carries amount 0, not ${e.amountCents}`);
}

type BatchFields = Pick<
  InboundEntryBase,
  'batchNumber' | 'companyName' | 'companyIdentification' | 'secCode' | 'effectiveDate'
>;

/**
 * Sorts the entry into the file's returns, corrections, refused corrections or other entries. Each is
 * written out field by field: spreading shared fields into a larger object takes V8's slow path, ten
 * times the parser's own time on a file of 10,000 returns.
 */
function readEntry(e: EntryDetail, batch: BatchFields, cor: boolean, file: InboundFile, add: Add) {
  const types = e.addenda.map((a) => a.addendaTypeCode);
  const has98 = types.includes('98');
  const has99 = types.includes('99');
  if (cor) {
    if (e.addenda.length !== 1 || !has98) {
      const line = e.addenda.find((a) => a.addendaTypeCode !== '98')?.line ?? e.addenda[1]?.line ?? e.line;
      add(line, 'Addenda.addendaTypeCode', 'an entry of a COR batch carries exactly one Addenda 98');
      return;
    }
  } else if (has98) {
    add(
      e.addenda[types.indexOf('98')].line,
      'Addenda98.addendaTypeCode',
      'an Addenda 98 (NOC) outside a COR batch',
    );
    return;
  } else if (!has99) {
    file.other.push({
      line: e.line,
      reason: `transaction code ${e.transactionCode} with no return (99) or change (98) addenda`,
    });
    return;
  } else if (e.addenda.length !== 1) {
    add(e.addenda[1].line, 'Addenda99.addendaTypeCode', 'a return carries exactly one Addenda 99');
    return;
  }

  const a = e.addenda[0];
  const l = addendaLine(a);
  const record = cor ? 'Addenda98' : 'Addenda99';
  const originalTrace = pos(l, 7, 21);
  const originalRdfi = pos(l, 28, 35);
  let ok = true;
  if (!isDigits(originalTrace, 15)) {
    add(a.line, `${record}.originalEntryTraceNumber`, 'positions 07–21 must be the 15-digit original trace');
    ok = false;
  }
  if (!isDigits(originalRdfi, 8)) {
    add(a.line, `${record}.originalDfi`, 'positions 28–35 must be the 8 digits of the original RDFI');
    ok = false;
  }
  const code = pos(l, 4, 6);
  if (!cor) {
    const entry = returnCode(code);
    if (!entry) return add(a.line, 'Addenda99.returnReasonCode', `${code} is not a valid return code`);
    let dateOfDeath: string | null = null;
    const death = pos(l, 22, 27);
    if (DECEASED_CODES.includes(code) && death.trim() !== '') {
      dateOfDeath = isoDate(death);
      if (dateOfDeath === null)
        return add(
          a.line,
          'Addenda99.dateOfDeath',
          'positions 22–27 must be a date written YYMMDD, or blank',
        );
    }
    const addendaInformation = pos(l, 36, 79).trimEnd();
    if (!ok) return;
    file.returns.push({
      line: e.line,
      batchNumber: batch.batchNumber,
      companyName: batch.companyName,
      companyIdentification: batch.companyIdentification,
      secCode: batch.secCode,
      effectiveDate: batch.effectiveDate,
      transactionCode: e.transactionCode,
      receivingDfi: e.rdfiIdentification + e.checkDigit,
      accountNumber: e.dfiAccountNumber,
      amountCents: e.amountCents,
      individualId: e.identificationNumber,
      individualName: e.individualName,
      traceNumber: e.traceNumber,
      originalTrace,
      originalRdfi,
      returnCode: code,
      description: entry.description,
      action: returnAction(code, addendaInformation) ?? entry.action,
      dateOfDeath,
      addendaInformation,
    });
    return;
  }
  const entry: ChangeCodeEntry | undefined = changeCode(code);
  if (!entry) return add(a.line, 'Addenda98.changeCode', `${code} is not a valid change code`);
  const correctedRaw = pos(l, 36, 64);
  if (entry.refused) {
    const originalChangeCode = pos(l, 65, 67);
    const original = changeCode(originalChangeCode);
    if (!original || original.refused)
      return add(a.line, 'Addenda98.originalChangeCode', `${originalChangeCode} is not a valid change code`);
    if (!ok) return;
    file.refusedCorrections.push({
      line: e.line,
      batchNumber: batch.batchNumber,
      companyName: batch.companyName,
      companyIdentification: batch.companyIdentification,
      secCode: batch.secCode,
      effectiveDate: batch.effectiveDate,
      transactionCode: e.transactionCode,
      receivingDfi: e.rdfiIdentification + e.checkDigit,
      accountNumber: e.dfiAccountNumber,
      amountCents: e.amountCents,
      individualId: e.identificationNumber,
      individualName: e.individualName,
      traceNumber: e.traceNumber,
      originalTrace,
      originalRdfi,
      refusedCode: code,
      description: entry.description,
      originalChangeCode,
      correctedRaw,
      nocTraceSequence: pos(l, 68, 74),
    });
    return;
  }
  let corrected: CorrectedData;
  try {
    corrected = parseCorrectedData(code, correctedRaw);
  } catch (err) {
    if (!(err instanceof CorrectedDataError)) throw err;
    return add(a.line, 'Addenda98.correctedData', err.message);
  }
  if (!ok) return;
  file.corrections.push({
    line: e.line,
    batchNumber: batch.batchNumber,
    companyName: batch.companyName,
    companyIdentification: batch.companyIdentification,
    secCode: batch.secCode,
    effectiveDate: batch.effectiveDate,
    transactionCode: e.transactionCode,
    receivingDfi: e.rdfiIdentification + e.checkDigit,
    accountNumber: e.dfiAccountNumber,
    amountCents: e.amountCents,
    individualId: e.identificationNumber,
    individualName: e.individualName,
    traceNumber: e.traceNumber,
    originalTrace,
    originalRdfi,
    changeCode: code,
    description: entry.description,
    corrected,
    correctedRaw,
  });
}
