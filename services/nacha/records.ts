// The NACHA (ACH) records as typed values, their field positions, and the errors the library throws.
// Positions are NACHA's (1-based, inclusive), as moov-io/ach lays them out; every line is 94
// characters. Pure: no I/O.

export const RECORD_LENGTH = 94;
export const BLOCKING_FACTOR = 10;
/** A padding line: ninety-four 9s, added until the line count is a multiple of the blocking factor. */
export const PADDING_LINE = '9'.repeat(RECORD_LENGTH);
/** The largest amount one entry can carry: ten digits of cents. */
export const MAX_ENTRY_AMOUNT_CENTS = 9_999_999_999;
/** The largest total a control record can carry: twelve digits of cents. */
export const MAX_TOTAL_CENTS = 999_999_999_999;

/** A field's place in its record: NACHA's 1-based first position and its width. */
export interface FieldPosition {
  start: number;
  width: number;
}

const f = (start: number, width: number): FieldPosition => ({ start, width });

export const FILE_HEADER_LAYOUT = {
  recordTypeCode: f(1, 1),
  priorityCode: f(2, 2),
  immediateDestination: f(4, 10),
  immediateOrigin: f(14, 10),
  fileCreationDate: f(24, 6),
  fileCreationTime: f(30, 4),
  fileIdModifier: f(34, 1),
  recordSize: f(35, 3),
  blockingFactor: f(38, 2),
  formatCode: f(40, 1),
  immediateDestinationName: f(41, 23),
  immediateOriginName: f(64, 23),
  referenceCode: f(87, 8),
} as const;

export const BATCH_HEADER_LAYOUT = {
  recordTypeCode: f(1, 1),
  serviceClassCode: f(2, 3),
  companyName: f(5, 16),
  companyDiscretionaryData: f(21, 20),
  companyIdentification: f(41, 10),
  standardEntryClassCode: f(51, 3),
  companyEntryDescription: f(54, 10),
  companyDescriptiveDate: f(64, 6),
  effectiveEntryDate: f(70, 6),
  settlementDate: f(76, 3),
  originatorStatusCode: f(79, 1),
  odfiIdentification: f(80, 8),
  batchNumber: f(88, 7),
} as const;

export const ENTRY_DETAIL_LAYOUT = {
  recordTypeCode: f(1, 1),
  transactionCode: f(2, 2),
  rdfiIdentification: f(4, 8),
  checkDigit: f(12, 1),
  dfiAccountNumber: f(13, 17),
  amount: f(30, 10),
  identificationNumber: f(40, 15),
  individualName: f(55, 22),
  discretionaryData: f(77, 2),
  addendaRecordIndicator: f(79, 1),
  traceNumber: f(80, 15),
} as const;

export const ADDENDA_LAYOUT = {
  recordTypeCode: f(1, 1),
  addendaTypeCode: f(2, 2),
  paymentRelatedInformation: f(4, 80),
  addendaSequenceNumber: f(84, 4),
  entryDetailSequenceNumber: f(88, 7),
} as const;

export const BATCH_CONTROL_LAYOUT = {
  recordTypeCode: f(1, 1),
  serviceClassCode: f(2, 3),
  entryAddendaCount: f(5, 6),
  entryHash: f(11, 10),
  totalDebit: f(21, 12),
  totalCredit: f(33, 12),
  companyIdentification: f(45, 10),
  messageAuthenticationCode: f(55, 19),
  reserved: f(74, 6),
  odfiIdentification: f(80, 8),
  batchNumber: f(88, 7),
} as const;

export const FILE_CONTROL_LAYOUT = {
  recordTypeCode: f(1, 1),
  batchCount: f(2, 6),
  blockCount: f(8, 6),
  entryAddendaCount: f(14, 8),
  entryHash: f(22, 10),
  totalDebit: f(32, 12),
  totalCredit: f(44, 12),
  reserved: f(56, 39),
} as const;

export type RecordName =
  | 'FileHeader'
  | 'BatchHeader'
  | 'EntryDetail'
  | 'Addenda'
  | 'BatchControl'
  | 'FileControl';

/** The record each type code starts; what an error names when a line is out of place. */
export const RECORD_NAMES: Record<string, RecordName> = {
  '1': 'FileHeader',
  '5': 'BatchHeader',
  '6': 'EntryDetail',
  '7': 'Addenda',
  '8': 'BatchControl',
  '9': 'FileControl',
};

export type ServiceClassCode = 200 | 220 | 225;
export const SERVICE_CLASS_CODES: readonly number[] = [200, 220, 225];
export type SecCode = 'PPD' | 'CCD';
export const SEC_CODES: readonly string[] = ['PPD', 'CCD'];

/** 22/32 credit checking/savings, 23/33 their prenotes, 27/37 debits, 28/38 their prenotes. */
export type TransactionCode = 22 | 23 | 27 | 28 | 32 | 33 | 37 | 38;
export const CREDIT_CODES: readonly number[] = [22, 23, 32, 33];
export const DEBIT_CODES: readonly number[] = [27, 28, 37, 38];
export const PRENOTE_CODES: readonly number[] = [23, 28, 33, 38];
export const isCredit = (code: number) => code === 22 || code === 23 || code === 32 || code === 33;
export const isDebit = (code: number) => code === 27 || code === 28 || code === 37 || code === 38;
export const isPrenote = (code: number) => code === 23 || code === 28 || code === 33 || code === 38;

// Parsed records. Text fields lose their trailing blanks; the immediate destination and origin lose
// their leading blank too. Numbers the controls are computed from are integers (amounts in cents).
// `line` is the record's 1-based line in the text it was read from.

export interface FileHeader {
  line: number;
  priorityCode: string;
  immediateDestination: string;
  immediateOrigin: string;
  fileCreationDate: string;
  fileCreationTime: string;
  fileIdModifier: string;
  recordSize: string;
  blockingFactor: string;
  formatCode: string;
  immediateDestinationName: string;
  immediateOriginName: string;
  referenceCode: string;
}

export interface BatchHeader {
  line: number;
  serviceClassCode: number;
  companyName: string;
  companyDiscretionaryData: string;
  companyIdentification: string;
  standardEntryClassCode: string;
  companyEntryDescription: string;
  companyDescriptiveDate: string;
  effectiveEntryDate: string;
  settlementDate: string;
  originatorStatusCode: string;
  odfiIdentification: string;
  batchNumber: number;
}

export interface Addenda {
  line: number;
  addendaTypeCode: string;
  paymentRelatedInformation: string;
  addendaSequenceNumber: number;
  entryDetailSequenceNumber: number;
}

export interface EntryDetail {
  line: number;
  transactionCode: number;
  rdfiIdentification: string;
  checkDigit: string;
  dfiAccountNumber: string;
  amountCents: number;
  identificationNumber: string;
  individualName: string;
  discretionaryData: string;
  addendaRecordIndicator: string;
  traceNumber: string;
  /** The addenda records that follow the entry (a PPD/CCD entry may carry at most one). */
  addenda: Addenda[];
}

export interface BatchControl {
  line: number;
  serviceClassCode: number;
  entryAddendaCount: number;
  entryHash: number;
  totalDebitCents: number;
  totalCreditCents: number;
  companyIdentification: string;
  messageAuthenticationCode: string;
  odfiIdentification: string;
  batchNumber: number;
}

export interface FileControl {
  line: number;
  batchCount: number;
  blockCount: number;
  entryAddendaCount: number;
  entryHash: number;
  totalDebitCents: number;
  totalCreditCents: number;
}

export interface AchBatch {
  header: BatchHeader;
  entries: EntryDetail[];
  control: BatchControl;
}

export interface AchFile {
  header: FileHeader;
  batches: AchBatch[];
  control: FileControl;
  /** Lines of ninety-four 9s after the file control. */
  paddingLines: number;
  /** Every line read: records and padding. */
  lineCount: number;
}

/** One rule a file breaks: where, in which record and field, and what is wrong (never an account number). */
export interface AchIssue {
  line: number;
  record: RecordName | 'Padding' | 'File';
  field: string;
  message: string;
}

/** A file that cannot be read as records at all: a line of the wrong length, out of order, unknown. */
export class AchParseError extends Error {
  override readonly name = 'AchParseError';
  constructor(
    readonly line: number,
    readonly record: AchIssue['record'] | 'Unknown',
    readonly field: string,
    message: string,
  ) {
    super(`line ${line}, ${record}.${field}: ${message}`);
  }
}

/** A value the writer cannot put in a file. `path` says which batch/entry, `field` which of its fields. */
export class AchWriteError extends Error {
  override readonly name = 'AchWriteError';
  constructor(
    readonly path: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${path ? `${path}.` : ''}${field}: ${reason}`);
  }
}

/** The ABA check digit of a routing number's first eight digits (weights 3, 7, 1). */
export function routingCheckDigit(first8: string): number {
  const d = (i: number) => first8.charCodeAt(i) - 48;
  const sum = 3 * d(0) + 7 * d(1) + d(2) + 3 * d(3) + 7 * d(4) + d(5) + 3 * d(6) + 7 * d(7);
  return (10 - (sum % 10)) % 10;
}

export function isDigits(value: string, length?: number): boolean {
  if (length !== undefined && value.length !== length) return false;
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Nine digits whose last is the check digit of the first eight. */
export function isRoutingNumber(value: string): boolean {
  return isDigits(value, 9) && routingCheckDigit(value) === value.charCodeAt(8) - 48;
}

/** Every character a space through a tilde. */
export function isPrintableAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 32 || c > 126) return false;
  }
  return true;
}

/** Empty, blanks only, or zeros (and blanks) only: what NACHA calls a missing mandatory field. */
export function isBlankOrZeros(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c !== 32 && c !== 48) return false;
  }
  return true;
}

/** A real calendar date written YYMMDD (years 2000–2099). */
export function isYymmdd(value: string): boolean {
  if (!isDigits(value, 6)) return false;
  const y = 2000 + Number(value.slice(0, 2));
  const m = Number(value.slice(2, 4));
  const d = Number(value.slice(4, 6));
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** HHmm, 0000–2359. */
export function isHhmm(value: string): boolean {
  if (!isDigits(value, 4)) return false;
  return Number(value.slice(0, 2)) < 24 && Number(value.slice(2, 4)) < 60;
}

/** A–Z or 0–9. */
export function isFileIdModifier(value: string): boolean {
  if (value.length !== 1) return false;
  const c = value.charCodeAt(0);
  return (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** The file id modifiers that tell apart a company's files of one day (File Header 34): A–Z, then 0–9. */
export const FILE_ID_MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
