// Every rule of the reference (shared/reference/nacha.md) that a bank applies to a file, checked on
// the parsed records; each broken rule is one issue naming its line, record and field. Messages never
// carry an account number.
import { parseAchFile } from './parser.js';
import {
  type AchBatch,
  type AchFile,
  type AchIssue,
  AchParseError,
  BLOCKING_FACTOR,
  type EntryDetail,
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
  type RecordName,
  routingCheckDigit,
  SEC_CODES,
  SERVICE_CLASS_CODES,
} from './records.js';

export interface ValidateOptions {
  /**
   * true (the default): every rule of the reference. false: the two the trusted validator
   * (moov-io/ach) does not apply, left out: the immediate origin may be any ten characters that are
   * not blank or zeros (a bank may assign its own), and the effective entry date is not checked (the
   * ACH operator settles a missing or invalid date at its first opportunity). Files from elsewhere
   * (two of its accepted test files) need it; Billflow's own files never do.
   */
  strict?: boolean;
}

const HASH_MODULUS = 10_000_000_000;

/** The rules a file breaks; none for a good file. A string is parsed first (a parse error is one issue). */
export function validateAchFile(file: AchFile | string, options: ValidateOptions = {}): AchIssue[] {
  const strict = options.strict ?? true;
  if (typeof file === 'string') {
    try {
      file = parseAchFile(file);
    } catch (err) {
      if (!(err instanceof AchParseError)) throw err;
      return [
        {
          line: err.line,
          record: err.record === 'Unknown' ? 'File' : err.record,
          field: err.field,
          message: err.message,
        },
      ];
    }
  }
  const issues: AchIssue[] = [];
  const add = (line: number, record: AchIssue['record'], field: string, message: string) =>
    issues.push({ line, record, field, message });

  validateFileHeader(file, strict, add);

  let entryAddenda = 0;
  let hash = 0;
  let debit = 0;
  let credit = 0;
  let previousBatchNumber = 0;
  for (const batch of file.batches) {
    const h = batch.header;
    if (previousBatchNumber === 0 ? h.batchNumber !== 1 : h.batchNumber <= previousBatchNumber)
      add(
        h.line,
        'BatchHeader',
        'batchNumber',
        previousBatchNumber === 0
          ? `the first batch number must be 1, not ${h.batchNumber}`
          : `batch numbers must ascend: ${h.batchNumber} follows ${previousBatchNumber}`,
      );
    previousBatchNumber = h.batchNumber;
    const totals = validateBatch(batch, strict, add);
    entryAddenda += totals.entryAddenda;
    hash += totals.hash;
    debit += totals.debit;
    credit += totals.credit;
  }

  const c = file.control;
  const fc = (field: string, what: string, found: number, computed: number) => {
    if (found !== computed)
      add(c.line, 'FileControl', field, `${what} is ${found}; the file's records give ${computed}`);
  };
  fc('batchCount', 'the batch count', c.batchCount, file.batches.length);
  fc('entryAddendaCount', 'the entry/addenda count', c.entryAddendaCount, entryAddenda);
  fc('entryHash', 'the entry hash', c.entryHash, hash % HASH_MODULUS);
  fc('totalDebit', 'the total debit', c.totalDebitCents, debit);
  fc('totalCredit', 'the total credit', c.totalCreditCents, credit);
  const recordLines = 2 + 2 * file.batches.length + entryAddenda;
  fc('blockCount', 'the block count', c.blockCount, Math.ceil(recordLines / BLOCKING_FACTOR));
  const expectedPadding = (BLOCKING_FACTOR - (recordLines % BLOCKING_FACTOR)) % BLOCKING_FACTOR;
  if (file.paddingLines !== expectedPadding)
    add(
      c.line,
      'Padding',
      'paddingLines',
      `${recordLines} record lines need ${expectedPadding} padding lines of 9s to fill blocks of ${BLOCKING_FACTOR}; the file has ${file.paddingLines}`,
    );
  return issues;
}

type Add = (line: number, record: AchIssue['record'], field: string, message: string) => void;

function text(add: Add, line: number, record: RecordName, field: string, value: string, required: boolean) {
  if (!isPrintableAscii(value)) add(line, record, field, 'must be printable ASCII');
  else if (required && isBlankOrZeros(value)) add(line, record, field, 'is required: it is blank or zeros');
}

function validateFileHeader(file: AchFile, strict: boolean, add: Add) {
  const h = file.header;
  const r = 'FileHeader';
  if (h.priorityCode !== '01') add(h.line, r, 'priorityCode', `must be 01, not '${h.priorityCode}'`);
  if (!isRoutingNumber(h.immediateDestination))
    add(
      h.line,
      r,
      'immediateDestination',
      isDigits(h.immediateDestination, 9)
        ? `routing number ${h.immediateDestination} fails its check digit`
        : `must be a blank and a 9-digit routing number, not '${h.immediateDestination}'`,
    );
  const origin = h.immediateOrigin;
  if (isBlankOrZeros(origin)) add(h.line, r, 'immediateOrigin', 'is required: it is blank or zeros');
  else if (isDigits(origin, 9) || (origin.length === 10 && origin[0] === '0' && isDigits(origin))) {
    // A routing number, its leading blank written as a zero by some writers.
    if (!isRoutingNumber(origin.slice(-9)))
      add(h.line, r, 'immediateOrigin', `routing number ${origin.slice(-9)} fails its check digit`);
  } else if (!isPrintableAscii(origin)) add(h.line, r, 'immediateOrigin', 'must be printable ASCII');
  else if (strict && !(origin.length === 10 && origin[0] === '1' && isDigits(origin)))
    add(h.line, r, 'immediateOrigin', "must be a 9-digit routing number or '1' followed by the 9-digit EIN");
  if (!isYymmdd(h.fileCreationDate)) add(h.line, r, 'fileCreationDate', 'must be a date written YYMMDD');
  if (h.fileCreationTime !== '' && !isHhmm(h.fileCreationTime))
    add(h.line, r, 'fileCreationTime', 'must be a time written HHmm, or blank');
  if (!isFileIdModifier(h.fileIdModifier))
    add(h.line, r, 'fileIdModifier', `must be A–Z or 0–9, not '${h.fileIdModifier}'`);
  if (h.recordSize !== '094') add(h.line, r, 'recordSize', `must be 094, not '${h.recordSize}'`);
  if (h.blockingFactor !== '10') add(h.line, r, 'blockingFactor', `must be 10, not '${h.blockingFactor}'`);
  if (h.formatCode !== '1') add(h.line, r, 'formatCode', `must be 1, not '${h.formatCode}'`);
  text(add, h.line, r, 'immediateDestinationName', h.immediateDestinationName, false);
  text(add, h.line, r, 'immediateOriginName', h.immediateOriginName, false);
  text(add, h.line, r, 'referenceCode', h.referenceCode, false);
}

/** One batch's rules; returns what it adds to the file control. */
function validateBatch(batch: AchBatch, strict: boolean, add: Add) {
  const h = batch.header;
  const B = 'BatchHeader';
  const scc = h.serviceClassCode;
  const sccKnown = SERVICE_CLASS_CODES.includes(scc);
  if (!sccKnown) add(h.line, B, 'serviceClassCode', `must be 200, 220 or 225, not ${scc}`);
  text(add, h.line, B, 'companyName', h.companyName, true);
  text(add, h.line, B, 'companyDiscretionaryData', h.companyDiscretionaryData, false);
  text(add, h.line, B, 'companyIdentification', h.companyIdentification, true);
  if (!SEC_CODES.includes(h.standardEntryClassCode))
    add(h.line, B, 'standardEntryClassCode', `must be PPD or CCD, not '${h.standardEntryClassCode}'`);
  text(add, h.line, B, 'companyEntryDescription', h.companyEntryDescription, true);
  text(add, h.line, B, 'companyDescriptiveDate', h.companyDescriptiveDate, false);
  if (strict && !isYymmdd(h.effectiveEntryDate))
    add(h.line, B, 'effectiveEntryDate', `must be a date written YYMMDD, not '${h.effectiveEntryDate}'`);
  if (h.originatorStatusCode !== '1' && h.originatorStatusCode !== '2')
    add(h.line, B, 'originatorStatusCode', `must be 1 or 2, not '${h.originatorStatusCode}'`);
  const odfiOk = isDigits(h.odfiIdentification, 8);
  if (!odfiOk) add(h.line, B, 'odfiIdentification', 'must be the 8 digits of the ODFI routing number');

  let hash = 0;
  let debit = 0;
  let credit = 0;
  let addendaCount = 0;
  let previousTrace = '';
  for (const e of batch.entries) {
    validateEntry(e, scc, sccKnown, add);
    const rdfi = e.rdfiIdentification;
    if (isDigits(rdfi, 8)) hash += Number(rdfi);
    if (isCredit(e.transactionCode)) credit += e.amountCents;
    else if (isDebit(e.transactionCode)) debit += e.amountCents;
    const t = e.traceNumber;
    if (!isDigits(t, 15)) add(e.line, 'EntryDetail', 'traceNumber', 'must be 15 digits');
    else {
      if (odfiOk && !t.startsWith(h.odfiIdentification))
        add(
          e.line,
          'EntryDetail',
          'traceNumber',
          `must start with the batch's ODFI ${h.odfiIdentification}, not ${t.slice(0, 8)}`,
        );
      if (previousTrace !== '' && t <= previousTrace)
        add(e.line, 'EntryDetail', 'traceNumber', `trace numbers must ascend: ${t} follows ${previousTrace}`);
      previousTrace = t;
    }
    addendaCount += e.addenda.length;
  }

  const c = batch.control;
  const C = 'BatchControl';
  const same = (field: string, found: string | number, header: string | number) => {
    if (found !== header)
      add(c.line, C, field, `is ${found}; its batch header (line ${h.line}) has ${header}`);
  };
  same('serviceClassCode', c.serviceClassCode, h.serviceClassCode);
  same('companyIdentification', c.companyIdentification, h.companyIdentification);
  same('odfiIdentification', c.odfiIdentification, h.odfiIdentification);
  same('batchNumber', c.batchNumber, h.batchNumber);
  const entryAddenda = batch.entries.length + addendaCount;
  const computed = (field: string, what: string, found: number, value: number) => {
    if (found !== value) add(c.line, C, field, `${what} is ${found}; the batch's entries give ${value}`);
  };
  computed('entryAddendaCount', 'the entry/addenda count', c.entryAddendaCount, entryAddenda);
  computed('entryHash', 'the entry hash', c.entryHash, hash % HASH_MODULUS);
  computed('totalDebit', 'the total debit', c.totalDebitCents, debit);
  computed('totalCredit', 'the total credit', c.totalCreditCents, credit);
  return { entryAddenda, hash, debit, credit };
}

function validateEntry(e: EntryDetail, scc: number, sccKnown: boolean, add: Add) {
  const E = 'EntryDetail';
  const code = e.transactionCode;
  const credit = isCredit(code);
  const debit = isDebit(code);
  if (!credit && !debit)
    add(e.line, E, 'transactionCode', `must be 22, 23, 27, 28, 32, 33, 37 or 38, not ${code}`);
  else if (sccKnown && scc === 220 && debit)
    add(e.line, E, 'transactionCode', `a debit (${code}) in a credits-only batch (service class 220)`);
  else if (sccKnown && scc === 225 && credit)
    add(e.line, E, 'transactionCode', `a credit (${code}) in a debits-only batch (service class 225)`);
  if (!isDigits(e.rdfiIdentification, 8))
    add(e.line, E, 'rdfiIdentification', 'must be the first 8 digits of the receiving routing number');
  else if (!isDigits(e.checkDigit, 1) || routingCheckDigit(e.rdfiIdentification) !== Number(e.checkDigit))
    add(
      e.line,
      E,
      'checkDigit',
      `routing number ${e.rdfiIdentification}${e.checkDigit} fails its check digit (expected ${routingCheckDigit(e.rdfiIdentification)})`,
    );
  if (!isPrintableAscii(e.dfiAccountNumber)) add(e.line, E, 'dfiAccountNumber', 'must be printable ASCII');
  else if (e.dfiAccountNumber.trim() === '') add(e.line, E, 'dfiAccountNumber', 'is required: it is blank');
  if ((credit || debit) && isPrenote(code) && e.amountCents !== 0)
    add(e.line, E, 'amount', `a prenote (${code}) must carry amount 0, not ${e.amountCents}`);
  else if ((credit || debit) && !isPrenote(code) && e.amountCents === 0)
    add(e.line, E, 'amount', `a live entry (${code}) must carry an amount above 0`);
  text(add, e.line, E, 'identificationNumber', e.identificationNumber, false);
  if (!isPrintableAscii(e.individualName)) add(e.line, E, 'individualName', 'must be printable ASCII');
  else if (e.individualName.trim() === '') add(e.line, E, 'individualName', 'is required: it is blank');
  text(add, e.line, E, 'discretionaryData', e.discretionaryData, false);
  const n = e.addenda.length;
  if (e.addendaRecordIndicator !== (n > 0 ? '1' : '0'))
    add(
      e.line,
      E,
      'addendaRecordIndicator',
      `is '${e.addendaRecordIndicator}' but ${n === 0 ? 'no addenda record follows (must be 0)' : 'an addenda record follows (must be 1)'}`,
    );
  for (let i = 0; i < n; i++) {
    const a = e.addenda[i];
    if (i > 0) {
      add(a.line, 'Addenda', 'addendaTypeCode', 'a PPD/CCD entry may carry at most one addenda record');
      continue;
    }
    if (a.addendaTypeCode !== '05')
      add(a.line, 'Addenda', 'addendaTypeCode', `must be 05 for PPD/CCD, not '${a.addendaTypeCode}'`);
    if (!isPrintableAscii(a.paymentRelatedInformation))
      add(a.line, 'Addenda', 'paymentRelatedInformation', 'must be printable ASCII');
    if (a.addendaSequenceNumber !== 1)
      add(a.line, 'Addenda', 'addendaSequenceNumber', `must be 1, not ${a.addendaSequenceNumber}`);
    if (isDigits(e.traceNumber, 15) && a.entryDetailSequenceNumber !== Number(e.traceNumber.slice(8)))
      add(
        a.line,
        'Addenda',
        'entryDetailSequenceNumber',
        `must be the last 7 digits of its entry's trace number (${e.traceNumber.slice(8)}), not ${a.entryDetailSequenceNumber}`,
      );
  }
}

/** The file's text checked by the validator: an Error naming the first few issues when it breaks a rule. */
export function assertValidAchFile(text: string): void {
  const issues = validateAchFile(text);
  if (issues.length > 0)
    throw new Error(
      `the NACHA library refused the file it wrote: ${issues
        .slice(0, 5)
        .map((i) => `line ${i.line} ${i.record}.${i.field}: ${i.message}`)
        .join('; ')}`,
    );
}
