// The NACHA form: field rules, display formats (XXX-XXX-XXX, XX-XXXXXXX), defaults and
// the payload (dashes stripped, text upper-cased). The server checks the same and more (check digit).
import type { Company, NachaPayload } from '../api/companies';

export interface NachaFormValues {
  bankRoutingNumber: string;
  bankAccountNumber: string;
  bankAccountType: '' | 'checking' | 'savings';
  bankName: string;
  originatorStatusCode: string;
  companyTaxId: string;
  achCompanyId: string;
  immediateDestinationName: string;
  immediateOriginName: string;
  companyEntryDescription: string;
  companyDiscretionaryData: string;
}
export type NachaFormErrors = Partial<Record<keyof NachaFormValues, string>>;

export const NACHA_LIMITS = {
  bankAccountNumber: 17,
  bankName: 100,
  immediateDestinationName: 23,
  immediateOriginName: 23,
  companyEntryDescription: 10,
  companyDiscretionaryData: 20,
} as const;

/** Fields forced to upper case as they are typed. */
export const UPPERCASE_FIELDS = new Set<keyof NachaFormValues>([
  'immediateDestinationName',
  'immediateOriginName',
  'companyEntryDescription',
  'companyDiscretionaryData',
]);

const digits = (v: string) => v.replace(/[\s-]/g, '');

/** 'XXX-XXX-XXX' as the digits come. */
export function formatRouting(v: string): string {
  const d = v.replace(/\D/g, '').slice(0, 9);
  return [d.slice(0, 3), d.slice(3, 6), d.slice(6, 9)].filter(Boolean).join('-');
}

/** 'XX-XXXXXXX' as the digits come. */
export function formatTaxId(v: string): string {
  const d = v.replace(/\D/g, '').slice(0, 9);
  return d.length > 2 ? `${d.slice(0, 2)}-${d.slice(2)}` : d;
}

/** The form's first values: what is saved, else the defaults (status 1, checking, BILL PAY, the name). */
export function nachaDefaults(c: Company): NachaFormValues {
  return {
    bankRoutingNumber: c.bankRoutingNumber ? formatRouting(c.bankRoutingNumber) : '',
    bankAccountNumber: c.bankAccountNumber ?? '',
    bankAccountType: c.bankAccountType ?? 'checking',
    bankName: c.bankName ?? '',
    originatorStatusCode: c.originatorStatusCode ?? '1',
    companyTaxId: c.companyTaxId ? formatTaxId(c.companyTaxId) : '',
    achCompanyId: c.achCompanyId ?? '',
    immediateDestinationName: c.immediateDestinationName ?? '',
    immediateOriginName: c.immediateOriginName ?? c.name.toUpperCase().slice(0, 23),
    companyEntryDescription: c.companyEntryDescription ?? 'BILL PAY',
    companyDiscretionaryData: c.companyDiscretionaryData ?? '',
  };
}

/** The NACHA form's checks, with their messages. */
export function validateNacha(v: NachaFormValues): NachaFormErrors {
  const e: NachaFormErrors = {};
  const routing = digits(v.bankRoutingNumber);
  if (!routing) e.bankRoutingNumber = 'Routing number is required';
  else if (!/^\d{9}$/.test(routing)) e.bankRoutingNumber = 'Routing number must be exactly 9 digits';
  const account = v.bankAccountNumber.trim();
  if (!account) e.bankAccountNumber = 'Account number is required';
  else if (account.length > 17) e.bankAccountNumber = 'Account number must be 17 characters or less';
  if (v.bankAccountType !== 'checking' && v.bankAccountType !== 'savings')
    e.bankAccountType = 'Please select an account type';
  const bank = v.bankName.trim();
  if (!bank) e.bankName = 'Bank name is required';
  else if (bank.length > 100) e.bankName = 'Bank name must be 100 characters or less';
  if (v.originatorStatusCode.trim().length !== 1)
    e.originatorStatusCode = 'Originator status code must be exactly 1 character';
  const tax = digits(v.companyTaxId);
  if (!/^\d{9}$/.test(tax)) e.companyTaxId = 'Tax ID must be in format XX-XXXXXXX (9 digits total)';
  const ach = v.achCompanyId.trim();
  if (ach && !/^\d{10}$/.test(ach)) e.achCompanyId = 'ACH company ID must be exactly 10 digits';
  const text = (key: keyof typeof NACHA_LIMITS, label: string, required: boolean) => {
    const value = v[key].trim();
    if (required && !value) e[key] = `${label} is required`;
    else if (value.length > NACHA_LIMITS[key])
      e[key] = `${label} must be ${NACHA_LIMITS[key]} characters or less`;
  };
  text('immediateDestinationName', 'Immediate destination name', true);
  text('immediateOriginName', 'Immediate origin name', true);
  text('companyEntryDescription', 'Company entry description', true);
  text('companyDiscretionaryData', 'Discretionary data', false);
  return e;
}

const upper = (s: string) => s.trim().toUpperCase();

/** Dashes stripped, names upper-cased, empty optionals absent. */
export function toNachaPayload(v: NachaFormValues): NachaPayload {
  return {
    bankRoutingNumber: digits(v.bankRoutingNumber),
    bankAccountNumber: v.bankAccountNumber.trim(),
    bankAccountType: v.bankAccountType === 'savings' ? 'savings' : 'checking',
    bankName: v.bankName.trim(),
    originatorStatusCode: v.originatorStatusCode.trim(),
    companyTaxId: digits(v.companyTaxId),
    achCompanyId: v.achCompanyId.trim() || undefined,
    immediateDestinationName: upper(v.immediateDestinationName),
    immediateOriginName: upper(v.immediateOriginName),
    companyEntryDescription: upper(v.companyEntryDescription),
    companyDiscretionaryData: upper(v.companyDiscretionaryData) || undefined,
  };
}
