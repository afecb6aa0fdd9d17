// Rules of the companies screens: the form's checks and payload, dates,
// the connection's display state, the expiry display, and the bank account picker's order.
import type { BankAccount, Company, CompanyPayload, TokenStatus } from '../api/companies';

export const COMPANIES_PAGE_SIZE = 10;
export const PICKER_LIMIT = 100;
/** The assignment selects' value for "unassigned". */
export const NONE = 'none';
export const CONNECTION_POLL_MS = 30_000;
export const LOW_BALANCE = 1000;

export const INDUSTRIES = [
  'Technology',
  'Healthcare',
  'Finance',
  'Retail',
  'Manufacturing',
  'Construction',
  'Education',
  'Real Estate',
  'Transportation',
  'Food & Beverage',
  'Entertainment',
  'Consulting',
  'Non-profit',
  'Government',
  'Other',
] as const;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 'Jan 05, 2024'; 'Invalid date' when it cannot be read. */
export function formatDate(value: string | null | undefined): string {
  const d = value ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) return 'Invalid date';
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, '0')}, ${d.getFullYear()}`;
}

/** Date and time for the details card. */
export function formatDateTime(value: string | null | undefined): string {
  const d = value ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) return 'Invalid date';
  const time = d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
  return `${formatDate(value)} ${time}`;
}

export function personName(p: { firstName?: string | null; lastName?: string | null; email?: string }) {
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ').trim();
  return name || p.email || '';
}

export interface CompanyFormValues {
  name: string;
  email: string;
  phone: string;
  website: string;
  address: string;
  description: string;
  industry: string;
  managerId: string;
  processorId: string;
  approverId: string;
  accountantId: string;
  qbPaymentAccountReference: string;
}
export type CompanyFormErrors = Partial<Record<keyof CompanyFormValues, string>>;

export const EMPTY_COMPANY_FORM: CompanyFormValues = {
  name: '',
  email: '',
  phone: '',
  website: '',
  address: '',
  description: '',
  industry: '',
  managerId: NONE,
  processorId: NONE,
  approverId: NONE,
  accountantId: NONE,
  qbPaymentAccountReference: '',
};

const idValue = (id: number | null) => (id == null ? NONE : String(id));

export function companyToForm(c: Company): CompanyFormValues {
  return {
    name: c.name,
    email: c.email ?? '',
    phone: c.phone ?? '',
    website: c.website ?? '',
    address: c.address ?? '',
    description: c.description ?? '',
    industry: c.industry ?? '',
    managerId: idValue(c.managerId),
    processorId: idValue(c.processorId),
    approverId: idValue(c.approverId),
    accountantId: idValue(c.accountantId),
    qbPaymentAccountReference: c.qbPaymentAccountReference ?? '',
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isUrl(v: string) {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The company form's checks. */
export function validateCompanyForm(v: CompanyFormValues): CompanyFormErrors {
  const errors: CompanyFormErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = 'Company name is required';
  else if (name.length > 255) errors.name = 'Name is too long';
  if (v.email.trim() && !EMAIL.test(v.email.trim())) errors.email = 'Invalid email address';
  if (v.website.trim() && !isUrl(v.website.trim())) errors.website = 'Invalid website URL';
  return errors;
}

const optional = (s: string) => (s.trim() ? s.trim() : undefined);
const assignee = (s: string) => (s === NONE || s === '' ? null : Number.parseInt(s, 10));

/** Empty optional strings are absent; 'none' is null; other assignees are integers. */
export function toCompanyPayload(v: CompanyFormValues): CompanyPayload {
  return {
    name: v.name.trim(),
    email: optional(v.email),
    phone: optional(v.phone),
    website: optional(v.website),
    address: optional(v.address),
    description: optional(v.description),
    industry: optional(v.industry),
    managerId: assignee(v.managerId),
    processorId: assignee(v.processorId),
    approverId: assignee(v.approverId),
    accountantId: assignee(v.accountantId),
    qbPaymentAccountReference: optional(v.qbPaymentAccountReference),
  };
}

/**
 * The edit form's payload: the server keeps an absent payment account (null clears it), so the field,
 * shown once the company is connected, is sent as null when emptied there and left out otherwise.
 */
export function toCompanyUpdatePayload(
  v: CompanyFormValues,
  o: { paymentAccountShown: boolean },
): CompanyPayload {
  const payload = toCompanyPayload(v);
  return o.paymentAccountShown && payload.qbPaymentAccountReference === undefined
    ? { ...payload, qbPaymentAccountReference: null }
    : payload;
}

/** The QB Status column and badge: a realm without a status reads 'Connected'. */
export function qbStatusLabel(c: Pick<Company, 'qbRealmId' | 'qbConnectionStatus'>): string {
  if (!c.qbRealmId) return 'Not Connected';
  switch (c.qbConnectionStatus) {
    case 'disconnected':
      return 'Disconnected';
    case 'error':
      return 'Error';
    default:
      return 'Connected';
  }
}

export type ConnectionState =
  | 'checking'
  | 'error'
  | 'not-connected'
  | 'no-tokens'
  | 'expired'
  | 'connected'
  | 'reconnect'
  | 'attention';

/** The company detail's connection display states. */
export function connectionState(
  company: Pick<Company, 'qbRealmId' | 'qbConnectionStatus'>,
  status: { data?: TokenStatus; error: Error | null; loading: boolean },
): ConnectionState {
  if (!company.qbRealmId) return 'not-connected';
  // A grant QuickBooks no longer honours (revoked, expired, lost by Intuit) is never "connected",
  // whatever the stored token's own expiry says.
  if (company.qbConnectionStatus === 'disconnected') return 'reconnect';
  if (company.qbConnectionStatus === 'error') return 'attention';
  if (status.error && !status.data) return 'error';
  if (!status.data) return 'checking';
  if (!status.data.hasTokens) return 'no-tokens';
  if (status.data.isExpired) return 'expired';
  return 'connected';
}

/** Token expiry: above 3600 s in hours, above 60 in minutes, otherwise seconds. */
export function formatExpiresIn(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s > 3600) {
    const h = Math.floor(s / 3600);
    return `${h} hour${h === 1 ? '' : 's'}`;
  }
  if (s > 60) {
    const m = Math.floor(s / 60);
    return `${m} minute${m === 1 ? '' : 's'}`;
  }
  return `${s} second${s === 1 ? '' : 's'}`;
}

/** Bank and Active accounts only, highest balance first. */
export function pickableAccounts(accounts: readonly BankAccount[]): BankAccount[] {
  return accounts
    .filter((a) => a.AccountType === 'Bank' && a.Active)
    .sort((a, b) => (b.CurrentBalance ?? 0) - (a.CurrentBalance ?? 0));
}

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
export const formatUsd = (n: number) => USD.format(n);

/** 'name (USD balance)'. */
export const accountLabel = (a: BankAccount) => `${a.Name} (${formatUsd(a.CurrentBalance ?? 0)})`;

/** Green when funded; orange when it is the chosen account and below 1000. */
export function balanceDot(a: BankAccount, selected: boolean): 'green' | 'orange' | null {
  if (selected && a.CurrentBalance < LOW_BALANCE) return 'orange';
  if (a.CurrentBalance > 0) return 'green';
  return null;
}

/** The OAuth callback on this product's API host. */
export function defaultCallbackUrl(origin: string): string {
  return `${origin}/api/company/companies/qb-oauth/callback`;
}

/** The OAuth dialog's states. */
export type OAuthPhase = 'idle' | 'starting' | 'authorizing' | 'success' | 'error';
export const OAUTH_POPUP = { width: 600, height: 700, pollMs: 1000, giveUpMs: 600_000, closeAfterMs: 1000 };
export const REQUIRED_SCOPES = ['accounting', 'openid', 'profile', 'email', 'phone', 'address'] as const;

/** The dialog's toasts in the spec's words; null when the step may go on. */
export function credentialsProblem(
  v: { clientId: string; clientSecret: string; callbackUrl: string },
  forFlow: boolean,
): string | null {
  const id = v.clientId.trim();
  const secret = v.clientSecret.trim();
  if (!id && !secret) return 'Missing Credentials';
  if (!id) return 'Missing Client ID';
  if (!secret) return 'Missing Client Secret';
  if (forFlow && !v.callbackUrl.trim()) return 'Missing Callback URL';
  return null;
}
