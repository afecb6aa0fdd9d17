// Nacha's change codes (Addenda 98, positions 04–06), the vendor fields each corrects, and the
// corrected data (positions 36–64, 29 characters) read by position as Nacha lays it out
// (shared/reference/ach-returns.md §3). Live NOCs do not always keep the positions (a C06 seen with a
// space inside the account and the code at 26–27), so when the positions do not hold, the field is
// split on its blanks instead; what still does not read is refused, never guessed. Pure: no I/O.
import { isDigits, isPrintableAscii, isRoutingNumber } from './records.js';

export type CorrectedField =
  | 'accountNumber'
  | 'routingNumber'
  | 'transactionCode'
  | 'name'
  | 'identification';

export interface ChangeCodeEntry {
  code: string;
  description: string;
  /** The vendor fields the corrected data carries; none for C13 and the refusals. */
  corrects: readonly CorrectedField[];
  /** C61–C69: the ODFI refusing an RDFI's NOC, not a change to apply. */
  refused: boolean;
}

export interface CorrectedData {
  accountNumber?: string;
  routingNumber?: string;
  transactionCode?: number;
  name?: string;
  identification?: string;
}

const change = (code: string, description: string, corrects: CorrectedField[]): ChangeCodeEntry =>
  Object.freeze({ code, description, corrects: Object.freeze(corrects), refused: false });
const refusal = (code: string, description: string): ChangeCodeEntry =>
  Object.freeze({ code, description, corrects: Object.freeze([]), refused: true });

// C08 and C14 are IAT-only; C10–C12 are in some processors' lists but not Nacha's: unknown here.
const entries: ChangeCodeEntry[] = [
  change('C01', 'Incorrect DFI account number', ['accountNumber']),
  change('C02', 'Incorrect routing number', ['routingNumber']),
  change('C03', 'Incorrect routing number and incorrect DFI account number', [
    'routingNumber',
    'accountNumber',
  ]),
  change('C04', 'Incorrect individual name / receiving company name', ['name']),
  change('C05', 'Incorrect transaction code', ['transactionCode']),
  change('C06', 'Incorrect DFI account number and incorrect transaction code', [
    'accountNumber',
    'transactionCode',
  ]),
  change('C07', 'Incorrect routing number, DFI account number and transaction code', [
    'routingNumber',
    'accountNumber',
    'transactionCode',
  ]),
  change('C09', 'Incorrect individual identification number', ['identification']),
  change('C13', 'Addenda format error (the entry posted)', []),
  refusal('C61', 'Misrouted notification of change'),
  refusal('C62', 'Incorrect trace number'),
  refusal('C63', 'Incorrect company identification number'),
  refusal('C64', 'Incorrect individual identification number / identification number'),
  refusal('C65', 'Incorrectly formatted corrected data'),
  refusal('C66', 'Incorrect discretionary data'),
  refusal('C67', 'Routing number not from original entry detail record'),
  refusal('C68', 'DFI account number not from original entry detail record'),
  refusal('C69', 'Incorrect transaction code'),
];

/** Every change code the product reads, by code (refusals included). */
export const CHANGE_CODES: ReadonlyMap<string, ChangeCodeEntry> = new Map(entries.map((e) => [e.code, e]));

export function changeCode(code: string): ChangeCodeEntry | undefined {
  return CHANGE_CODES.get(code);
}

export function isRefusedChangeCode(code: string): boolean {
  return CHANGE_CODES.get(code)?.refused === true;
}

/** The transaction codes a correction may name: Billflow's credits (checking, savings, and their prenotes). */
export const CORRECTABLE_TRANSACTION_CODES: readonly number[] = [22, 23, 32, 33];

/** Corrected data that cannot be read for its change code. The message never carries the data itself. */
export class CorrectedDataError extends Error {
  override readonly name = 'CorrectedDataError';
  constructor(
    readonly changeCode: string,
    readonly reason: string,
  ) {
    super(`corrected data for ${changeCode}: ${reason}`);
  }
}

const CORRECTED_DATA_LENGTH = 29;

/** A 1-based, inclusive slice of the field, trimmed. */
const at = (field: string, from: number, to: number) => field.slice(from - 1, to).trim();
const blank = (field: string, from: number, to: number) => at(field, from, to) === '';
const tokens = (s: string) => s.split(' ').filter((t) => t !== '');

function account(code: string, value: string): string {
  if (value === '') throw new CorrectedDataError(code, 'the account number is blank');
  if (value.length > 17)
    throw new CorrectedDataError(code, 'the account number is longer than 17 characters');
  if (!isPrintableAscii(value))
    throw new CorrectedDataError(code, 'the account number is not printable ASCII');
  return value;
}

function routing(code: string, value: string): string {
  if (!isDigits(value, 9)) throw new CorrectedDataError(code, 'the routing number is not 9 digits');
  if (!isRoutingNumber(value))
    throw new CorrectedDataError(code, `routing number ${value} fails its check digit`);
  return value;
}

function transactionCode(code: string, value: string): number {
  if (!isDigits(value, 2)) throw new CorrectedDataError(code, 'the transaction code is not 2 digits');
  const n = Number(value);
  if (!CORRECTABLE_TRANSACTION_CODES.includes(n))
    throw new CorrectedDataError(
      code,
      `transaction code ${value} is not one of Billflow's credits (${CORRECTABLE_TRANSACTION_CODES.join(', ')})`,
    );
  return n;
}

function text22(code: string, what: string, field: string): string {
  const v = field.trim();
  if (v === '') throw new CorrectedDataError(code, `the ${what} is blank`);
  if (v.length > 22) throw new CorrectedDataError(code, `the ${what} is longer than 22 characters`);
  if (!isPrintableAscii(v)) throw new CorrectedDataError(code, `the ${what} is not printable ASCII`);
  return v;
}

/** An account then a 2-digit code, with blanks between: the last word is the code, the rest the account. */
function accountThenCode(code: string, rest: string): { accountNumber: string; transactionCode: number } {
  const words = tokens(rest);
  if (words.length < 2)
    throw new CorrectedDataError(code, 'expected an account number and a transaction code');
  const last = words[words.length - 1];
  const end = rest.lastIndexOf(last);
  return {
    accountNumber: account(code, rest.slice(0, end).trim()),
    transactionCode: transactionCode(code, last),
  };
}

/**
 * The vendor fields the corrected data (Addenda 98 positions 36–64) gives for a change code: by
 * Nacha's positions, else split on blanks. Throws CorrectedDataError when neither reads, when a
 * routing number fails its check digit, or when a transaction code is not one of Billflow's credits.
 */
export function parseCorrectedData(changeCodeValue: string, field29: string): CorrectedData {
  const code = changeCodeValue;
  const entry = CHANGE_CODES.get(code);
  if (!entry) throw new CorrectedDataError(code, `${code} is not a valid change code`);
  if (entry.refused)
    throw new CorrectedDataError(code, `${code} refuses a notification of change: nothing to apply`);
  if (field29.length > CORRECTED_DATA_LENGTH)
    throw new CorrectedDataError(
      code,
      `the field has ${field29.length} characters; it has ${CORRECTED_DATA_LENGTH}`,
    );
  const f = field29.padEnd(CORRECTED_DATA_LENGTH, ' ');
  let split: string[] | undefined;
  const words = () => {
    split ??= tokens(f);
    return split;
  };
  switch (code) {
    case 'C01':
      if (blank(f, 18, 29)) return { accountNumber: account(code, at(f, 1, 17)) };
      if (words().length === 1) return { accountNumber: account(code, words()[0]) };
      throw new CorrectedDataError(code, 'expected the account number at positions 1–17 and blanks after it');
    case 'C02':
      if (blank(f, 10, 29)) return { routingNumber: routing(code, at(f, 1, 9)) };
      if (words().length === 1) return { routingNumber: routing(code, words()[0]) };
      throw new CorrectedDataError(code, 'expected the routing number at positions 1–9 and blanks after it');
    case 'C03':
      if (isDigits(at(f, 1, 9), 9) && blank(f, 10, 12) && !blank(f, 13, 29))
        return { routingNumber: routing(code, at(f, 1, 9)), accountNumber: account(code, at(f, 13, 29)) };
      if (words().length >= 2) {
        const rest = f.trim().slice(words()[0].length).trim();
        return { routingNumber: routing(code, words()[0]), accountNumber: account(code, rest) };
      }
      throw new CorrectedDataError(code, 'expected a routing number and an account number');
    case 'C04':
      return { name: text22(code, 'name', blank(f, 23, 29) ? at(f, 1, 22) : f) };
    case 'C05':
      if (blank(f, 3, 29)) return { transactionCode: transactionCode(code, at(f, 1, 2)) };
      if (words().length === 1) return { transactionCode: transactionCode(code, words()[0]) };
      throw new CorrectedDataError(
        code,
        'expected the transaction code at positions 1–2 and blanks after it',
      );
    case 'C06':
      if (blank(f, 18, 20) && isDigits(at(f, 21, 22), 2) && blank(f, 23, 29))
        return {
          accountNumber: account(code, at(f, 1, 17)),
          transactionCode: transactionCode(code, at(f, 21, 22)),
        };
      return accountThenCode(code, f);
    case 'C07': {
      const routingNumber = routing(code, f.slice(0, 9));
      if (!blank(f, 10, 26) && isDigits(at(f, 27, 28), 2) && blank(f, 29, 29))
        return {
          routingNumber,
          accountNumber: account(code, at(f, 10, 26)),
          transactionCode: transactionCode(code, at(f, 27, 28)),
        };
      return { routingNumber, ...accountThenCode(code, f.slice(9)) };
    }
    case 'C09':
      return { identification: text22(code, 'identification number', blank(f, 23, 29) ? at(f, 1, 22) : f) };
    default:
      // C13: the entry posted; Billflow's addenda need fixing, no vendor field changes.
      return {};
  }
}
