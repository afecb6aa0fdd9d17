// Vendor rules of the screens (spec 2 §5, §8, §9): the banking form's checks with the spec's texts,
// the import outcome messages, and the constants.

export const VENDORS_PAGE_SIZE = 20;
export const VENDOR_SYNC_LIMIT = 1000;
export const CSV_MAX_BYTES = 5_242_880;
export const CSV_REQUIRED_COLUMNS = ['ID', 'Routing Number', 'Account Number', 'Account Type', 'Bank Name'];
export const EXPORT_FILE_NAME = 'vendors-export.csv';
/** Import errors listed in the dialog; the rest are counted. */
export const IMPORT_ERRORS_SHOWN = 10;

export interface BankingValues {
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  bankName: string;
}

export type BankingErrors = Partial<Record<keyof BankingValues, string>>;

/** Spec 2 §5 vendor banking. The ABA check digit is the server's (its message comes back on the field). */
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
  // The server's minimum (schema/commands/vendor.ts ACCOUNT_NUMBER_MIN): a masked shorter one showed whole.
  else if (account.replace(/-/g, '').length < 5)
    errors.accountNumber = 'Account number must have at least 5 digits';
  if (v.accountType !== 'checking' && v.accountType !== 'savings')
    errors.accountType = 'Account type must be checking or savings';
  if (v.bankName.trim().length > 100) errors.bankName = 'Bank name must be 100 characters or less';
  return errors;
}

/** Spec 2 §8 import outcomes. */
export function importOutcome(r: { updated: number; failed: number; processed: number }): {
  tone: 'success' | 'partial' | 'failed';
  text: string;
} {
  if (r.failed === 0) return { tone: 'success', text: `${r.updated} vendors updated successfully` };
  if (r.updated === 0 && r.failed === r.processed)
    return { tone: 'failed', text: `All ${r.failed} vendors failed to import` };
  return { tone: 'partial', text: `${r.updated} vendors updated, ${r.failed} failed` };
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
