// Nacha's return reason codes (Addenda 99, positions 04–06) and what the product does with each when
// one of its vendor credits comes back (shared/reference/ach-returns.md §2). The list is Nacha's
// R01–R85 (with the numbers Nacha never assigned left out) and R90, sanctions, split out of R16.
// Pure: no I/O.

/**
 * block-account: the vendor's bank account cannot take the credit: block it, bill back to unpaid,
 * require new details. investigate: block and have a person look; never retry by itself. our-file:
 * the file Billflow wrote was wrong. impossible-on-credit: a debit-only code, or one of an SEC code
 * Billflow never sends; an alert. dishonored / contested: the ODFI refused a return (R61–R70), the
 * RDFI answered that refusal (R71–R77). other: none of these; a person decides.
 */
export type ReturnAction =
  | 'block-account'
  | 'investigate'
  | 'our-file'
  | 'impossible-on-credit'
  | 'dishonored'
  | 'contested'
  | 'other';

export interface ReturnCodeEntry {
  code: string;
  description: string;
  action: ReturnAction;
}

const table: Array<[string, string, ReturnAction]> = [
  ['R01', 'Insufficient funds', 'impossible-on-credit'],
  ['R02', 'Account closed', 'block-account'],
  ['R03', 'No account / unable to locate account', 'block-account'],
  ['R04', 'Invalid account number', 'block-account'],
  ['R05', 'Unauthorized debit to consumer account using corporate SEC code', 'impossible-on-credit'],
  ['R06', "Returned per ODFI's request", 'investigate'],
  ['R07', 'Authorization revoked by customer', 'impossible-on-credit'],
  ['R08', 'Payment stopped', 'impossible-on-credit'],
  ['R09', 'Uncollected funds', 'impossible-on-credit'],
  ['R10', 'Customer advises originator is not known or not authorized', 'impossible-on-credit'],
  [
    'R11',
    'Customer advises entry not in accordance with the terms of the authorization',
    'impossible-on-credit',
  ],
  ['R12', 'Account sold to another DFI', 'block-account'],
  ['R13', 'Invalid ACH routing number', 'block-account'],
  ['R14', 'Representative payee deceased or unable to continue in that capacity', 'investigate'],
  ['R15', 'Beneficiary or account holder deceased', 'investigate'],
  ['R16', 'Account frozen / entry returned per OFAC instruction', 'block-account'],
  // R17 is 'our-file' unless its addenda say QUESTIONABLE: returnAction reads that.
  ['R17', 'File record edit criteria / entry initiated under questionable circumstances', 'our-file'],
  ['R18', 'Improper effective entry date', 'our-file'],
  ['R19', 'Amount field error', 'our-file'],
  ['R20', 'Non-transaction account', 'block-account'],
  ['R21', 'Invalid company identification', 'other'],
  ['R22', 'Invalid individual ID number', 'other'],
  ['R23', 'Credit entry refused by receiver', 'investigate'],
  ['R24', 'Duplicate entry', 'investigate'],
  ['R25', 'Addenda error', 'our-file'],
  ['R26', 'Mandatory field error', 'our-file'],
  ['R27', 'Trace number error', 'our-file'],
  ['R28', 'Routing number check digit error', 'block-account'],
  ['R29', 'Corporate customer advises not authorized', 'impossible-on-credit'],
  ['R30', 'RDFI not participant in check truncation program', 'other'],
  ['R31', 'Permissible return entry (CCD and CTX only)', 'other'],
  ['R32', 'RDFI non-settlement', 'our-file'],
  ['R33', 'Return of XCK entry', 'impossible-on-credit'],
  ['R34', 'Limited participation DFI', 'our-file'],
  ['R35', 'Return of improper debit entry', 'impossible-on-credit'],
  ['R36', 'Return of improper credit entry', 'our-file'],
  ['R37', 'Source document presented for payment', 'impossible-on-credit'],
  ['R38', 'Stop payment on source document', 'impossible-on-credit'],
  ['R39', 'Improper source document / source document presented for payment', 'impossible-on-credit'],
  ['R40', 'Return of ENR entry by federal government agency', 'impossible-on-credit'],
  ['R41', 'Invalid transaction code (ENR)', 'impossible-on-credit'],
  ['R42', 'Routing number / check digit error (ENR)', 'impossible-on-credit'],
  ['R43', 'Invalid DFI account number (ENR)', 'impossible-on-credit'],
  ['R44', 'Invalid individual ID number / identification number (ENR)', 'impossible-on-credit'],
  ['R45', 'Invalid individual name / company name (ENR)', 'impossible-on-credit'],
  ['R46', 'Invalid representative payee indicator (ENR)', 'impossible-on-credit'],
  ['R47', 'Duplicate enrollment (ENR)', 'impossible-on-credit'],
  ['R50', 'State law affecting RCK acceptance', 'impossible-on-credit'],
  ['R51', 'Item related to RCK entry is ineligible or RCK entry is improper', 'impossible-on-credit'],
  ['R52', 'Stop payment on item related to RCK entry', 'impossible-on-credit'],
  ['R53', 'Item and RCK entry presented for payment', 'impossible-on-credit'],
  ['R61', 'Misrouted return', 'dishonored'],
  ['R62', 'Return of erroneous or reversing debit', 'dishonored'],
  ['R67', 'Duplicate return', 'dishonored'],
  ['R68', 'Untimely return', 'dishonored'],
  ['R69', 'Field error(s)', 'dishonored'],
  ['R70', 'Permissible return entry not accepted / return not requested by ODFI', 'dishonored'],
  ['R71', 'Misrouted dishonored return', 'contested'],
  ['R72', 'Untimely dishonored return', 'contested'],
  ['R73', 'Timely original return', 'contested'],
  ['R74', 'Corrected return', 'contested'],
  ['R75', 'Return not a duplicate', 'contested'],
  ['R76', 'No errors found', 'contested'],
  ['R77', 'Non-acceptance of R62 dishonored return', 'contested'],
  ['R80', 'IAT entry coding error', 'impossible-on-credit'],
  ['R81', 'Non-participant in IAT program', 'impossible-on-credit'],
  ['R82', 'Invalid foreign receiving DFI identification', 'impossible-on-credit'],
  ['R83', 'Foreign receiving DFI unable to settle', 'impossible-on-credit'],
  ['R84', 'Entry not processed by gateway', 'impossible-on-credit'],
  ['R85', 'Incorrectly coded outbound international payment', 'impossible-on-credit'],
  // Split out of R16 (effective March 17, 2028): the same action as R16.
  ['R90', 'Sanctions compliance', 'block-account'],
];

/** Every return reason code Nacha assigns, by code. */
export const RETURN_CODES: ReadonlyMap<string, ReturnCodeEntry> = new Map(
  table.map(([code, description, action]) => [code, Object.freeze({ code, description, action })]),
);

/** The code's entry (exact, upper-case code as written in the file), or undefined for a code Nacha never assigned. */
export function returnCode(code: string): ReturnCodeEntry | undefined {
  return RETURN_CODES.get(code);
}

/**
 * The action for one return: the code's, except an R17 whose addenda information says QUESTIONABLE
 * (an invalid account the RDFI believes was used under questionable circumstances, i.e. suspected
 * fraud), which is investigated rather than treated as a formatting fault of Billflow's file.
 */
export function returnAction(code: string, addendaInformation: string): ReturnAction | undefined {
  const entry = RETURN_CODES.get(code);
  if (!entry) return undefined;
  if (code === 'R17' && /QUESTIONABLE/i.test(addendaInformation)) return 'investigate';
  return entry.action;
}

/**
 * True when the return says the vendor's bank account itself cannot take credits (closed, unknown,
 * invalid, sold, frozen, non-transaction, bad routing): the account is blocked and new details are
 * required before the vendor is paid again.
 */
export function isAccountLevelReturn(code: string): boolean {
  return RETURN_CODES.get(code)?.action === 'block-account';
}

/** Date of death (Addenda 99 positions 22–27) is given only with these. */
export const DECEASED_CODES: readonly string[] = ['R14', 'R15'];
