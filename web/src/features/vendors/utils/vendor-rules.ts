// Vendor rules of the screens: the banking form's checks with the spec's texts,
// the import outcome messages, and the constants.

export const VENDORS_PAGE_SIZE = 20;
export const VENDOR_SYNC_LIMIT = 1000;
export const CSV_MAX_BYTES = 5_242_880;
export const CSV_REQUIRED_COLUMNS = ['ID', 'Routing Number', 'Account Number', 'Account Type', 'Bank Name'];
export const EXPORT_FILE_NAME = 'vendors-export.csv';
/** The ADMIN's export with full numbers (the server names it so too). */
export const EXPORT_FULL_FILE_NAME = 'vendors-export-full.csv';
/** Import errors listed in the dialog; the rest are counted. */
export const IMPORT_ERRORS_SHOWN = 10;

export interface BankingValues {
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  bankName: string;
}

export type BankingErrors = Partial<Record<keyof BankingValues, string>>;

/** The vendor banking form's checks; the ABA check digit is the server's (its message comes back). */
export function validateBanking(v: BankingValues): BankingErrors {
  const errors: BankingErrors = {};
  const routing = v.routingNumber.trim();
  if (!/^\d*$/.test(routing)) errors.routingNumber = 'Routing number must contain only digits';
  else if (routing.length !== 9) errors.routingNumber = 'Routing number must be 9 digits';
  const account = v.accountNumber.trim();
  if (!account) errors.accountNumber = 'Account number is required';
  else if (account.length > 17) errors.accountNumber = 'Account number must be 17 characters or less';
  else if (!/^[0-9A-Za-z-]+$/.test(account))
    errors.accountNumber = 'Account number may contain only letters, digits and hyphens';
  // The server's minimum (schema/vendors/commands.ts ACCOUNT_NUMBER_MIN): a masked shorter one showed whole.
  else if (account.replace(/-/g, '').length < 5)
    errors.accountNumber = 'Account number must have at least 5 digits';
  if (v.accountType !== 'checking' && v.accountType !== 'savings')
    errors.accountType = 'Account type must be checking or savings';
  if (v.bankName.trim().length > 100) errors.bankName = 'Bank name must be 100 characters or less';
  return errors;
}

/** '1 vendor', '2 vendors' (never "1 vendors updated"). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The import's changes of an account that wait for a second look before payments follow them. */
export function heldNote(held: number): string {
  return `${held === 1 ? '1 change of bank details waits' : `${held} changes of bank details wait`} for approval: each goes live once another ADMIN or MODERATOR approves it on the vendor's page, or the vendor confirms the micro-deposits. Until then payments go to the bank details on file.`;
}

/** The CSV import's outcome messages. */
export function importOutcome(r: { updated: number; failed: number; processed: number }): {
  tone: 'success' | 'partial' | 'failed';
  text: string;
} {
  if (r.failed === 0) return { tone: 'success', text: `${plural(r.updated, 'vendor')} updated successfully` };
  if (r.updated === 0 && r.failed === r.processed)
    return {
      tone: 'failed',
      text: r.failed === 1 ? 'The vendor failed to import' : `All ${r.failed} vendors failed to import`,
    };
  return { tone: 'partial', text: `${plural(r.updated, 'vendor')} updated, ${r.failed} failed` };
}

/**
 * A row's error as one message per field: the server lists every rule a value breaks ("Account
 * number is required; Account number may only contain …; … at least 5 digits" for an empty one),
 * and the first says it all.
 */
export function tidyRowError(error: string): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const part of error.split('; ')) {
    const field = /^(Routing number|Account number|Account type|Bank name)\b/i.exec(part)?.[1].toLowerCase();
    if (field && seen.has(field)) continue;
    if (field) seen.add(field);
    kept.push(part);
  }
  return kept.join('; ');
}

/** A number as an export writes it: masked ('*****6789', '•••• 6789'), so not importable. */
export const isMaskedNumber = (v: string) => /[*•●…]/.test(v);

/** What a row whose numbers are masked is refused with: why, and how to get the full numbers. */
export const MASKED_ROW_ERROR =
  'The routing or account number is masked, as an export writes it: enter the full numbers, or have an ADMIN use Export with full numbers and import that file';

/**
 * The import's note when rows carry masked numbers: a CSV export masks the numbers, so a file
 * exported and imported back fails on every such row. Full numbers come from the vendor, from Show
 * Full Numbers on the vendor's page (ADMIN, MODERATOR), or from an ADMIN's Export with full numbers
 * (recorded in each vendor's history), a file that imports back as it is.
 */
export function maskedRowsNote(rows: number): string {
  return `${plural(rows, 'row has', 'rows have')} masked bank numbers. A CSV export masks the routing and account numbers, so it cannot be imported back as it is: put the full numbers in those rows (from the vendor, or Show Full Numbers on the vendor's page), or have an ADMIN use Export with full numbers on the Vendors page (it is recorded in each vendor's history) and import that file.`;
}

/** The smallest CSV reader the import check needs: quoted cells, doubled quotes, CRLF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i++;
      row.push(cell);
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  row.push(cell);
  if (row.length > 1 || row[0] !== '') rows.push(row);
  return rows;
}

/**
 * The file's rows (numbered as the server numbers them: the header is row 1) whose routing or
 * account number is masked. Empty lines are skipped, as the server's reader does.
 */
export function maskedRows(csv: string): Set<number> {
  const [header, ...records] = parseCsv(csv);
  const out = new Set<number>();
  if (!header) return out;
  const names = header.map((h) => h.trim());
  const routing = names.indexOf('Routing Number');
  const account = names.indexOf('Account Number');
  records.forEach((r, i) => {
    const numbers = [r[routing] ?? '', r[account] ?? ''];
    if (numbers.some((n) => isMaskedNumber(n.trim()))) out.add(i + 2);
  });
  return out;
}

/** The rows' errors as the dialog shows them: one message per field; masked rows say why they fail. */
export function shownImportErrors(
  errors: ReadonlyArray<{ row: number; error: string }>,
  masked: ReadonlySet<number>,
): Array<{ row: number; error: string }> {
  return errors.map((e) => ({
    row: e.row,
    error: masked.has(e.row) ? MASKED_ROW_ERROR : tidyRowError(e.error),
  }));
}

/** What the dialog refuses before uploading (the server checks again). */
export function checkImportFile(file: { name: string; size: number }): string | null {
  if (!file.name.toLowerCase().endsWith('.csv')) return 'Only .csv files can be imported';
  if (file.size > CSV_MAX_BYTES) return 'The file is larger than 5 MB';
  if (file.size === 0) return 'The file is empty';
  return null;
}

export const accountTypeLabel = (t: string | null) =>
  t === 'checking' ? 'Checking' : t === 'savings' ? 'Savings' : null;

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '');
