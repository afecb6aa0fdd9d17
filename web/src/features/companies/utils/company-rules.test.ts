import { describe, expect, it } from 'vitest';
import type { BankAccount } from '../api/companies';
import {
  balanceDot,
  connectionState,
  credentialsProblem,
  EMPTY_COMPANY_FORM,
  formatDate,
  formatExpiresIn,
  pickableAccounts,
  qbStatusLabel,
  toCompanyPayload,
  toCompanyUpdatePayload,
  validateCompanyForm,
} from './company-rules';

const account = (Id: string, balance: number, more: Partial<BankAccount> = {}): BankAccount => ({
  Id,
  Name: `Account ${Id}`,
  AccountType: 'Bank',
  AccountSubType: null,
  Active: true,
  CurrentBalance: balance,
  ...more,
});

describe('company form', () => {
  it('requires a name of at most 255 characters and checks e-mail and website only when given', () => {
    expect(validateCompanyForm({ ...EMPTY_COMPANY_FORM, name: '  ' })).toEqual({
      name: 'Company name is required',
    });
    expect(validateCompanyForm({ ...EMPTY_COMPANY_FORM, name: 'x'.repeat(256) }).name).toBe(
      'Name is too long',
    );
    expect(
      validateCompanyForm({ ...EMPTY_COMPANY_FORM, name: 'Acme', email: 'nope', website: 'acme.com' }),
    ).toEqual({ email: 'Invalid email address', website: 'Invalid website URL' });
    expect(
      validateCompanyForm({
        ...EMPTY_COMPANY_FORM,
        name: 'Acme',
        email: 'ap@acme.com',
        website: 'https://acme.com',
      }),
    ).toEqual({});
  });

  it('on edit, an emptied payment account is cleared (null) where the field is shown, and kept (absent) where not', () => {
    const emptied = { ...EMPTY_COMPANY_FORM, name: 'Acme', qbPaymentAccountReference: ' ' };
    expect(
      toCompanyUpdatePayload(emptied, { paymentAccountShown: true }).qbPaymentAccountReference,
    ).toBeNull();
    expect(
      toCompanyUpdatePayload(emptied, { paymentAccountShown: false }).qbPaymentAccountReference,
    ).toBeUndefined();
    expect(
      toCompanyUpdatePayload({ ...emptied, qbPaymentAccountReference: '35' }, { paymentAccountShown: true })
        .qbPaymentAccountReference,
    ).toBe('35');
  });

  it("sends empty optional strings as absent, 'none' as null and other assignees as integers", () => {
    const payload = toCompanyPayload({
      ...EMPTY_COMPANY_FORM,
      name: ' Acme ',
      phone: '  ',
      industry: 'Retail',
      managerId: '7',
      approverId: 'none',
    });
    expect(payload).toEqual({
      name: 'Acme',
      email: undefined,
      phone: undefined,
      website: undefined,
      address: undefined,
      description: undefined,
      industry: 'Retail',
      managerId: 7,
      processorId: null,
      approverId: null,
      accountantId: null,
      qbPaymentAccountReference: undefined,
    });
  });
});

describe('display rules', () => {
  it("formats dates like 'Jan 05, 2024' and says 'Invalid date' otherwise", () => {
    expect(formatDate('2024-01-05T12:00:00')).toBe('Jan 05, 2024');
    expect(formatDate('not a date')).toBe('Invalid date');
    expect(formatDate(null)).toBe('Invalid date');
  });

  it('shows expiry in hours above 3600 s, minutes above 60 s, else seconds', () => {
    expect(formatExpiresIn(3601)).toBe('1 hour');
    expect(formatExpiresIn(7300)).toBe('2 hours');
    expect(formatExpiresIn(3600)).toBe('60 minutes');
    expect(formatExpiresIn(61)).toBe('1 minute');
    expect(formatExpiresIn(60)).toBe('60 seconds');
    expect(formatExpiresIn(1)).toBe('1 second');
    expect(formatExpiresIn(-5)).toBe('0 seconds');
  });

  it("labels QB status; a realm without a status reads 'Connected'", () => {
    expect(qbStatusLabel({ qbRealmId: null, qbConnectionStatus: null })).toBe('Not Connected');
    expect(qbStatusLabel({ qbRealmId: '1', qbConnectionStatus: null })).toBe('Connected');
    expect(qbStatusLabel({ qbRealmId: '1', qbConnectionStatus: 'disconnected' })).toBe('Disconnected');
    expect(qbStatusLabel({ qbRealmId: '1', qbConnectionStatus: 'error' })).toBe('Error');
  });

  it('derives the six connection display states', () => {
    const realm = { qbRealmId: '9', qbConnectionStatus: 'connected' as const };
    const none = { qbRealmId: null, qbConnectionStatus: null };
    const ok = {
      hasTokens: true,
      isExpired: false,
      expiresIn: 100,
      reconsentBy: null,
      reconsentDue: false,
      problem: null,
    };
    expect(connectionState(none, { error: null, loading: false })).toBe('not-connected');
    expect(connectionState(realm, { error: null, loading: true })).toBe('checking');
    expect(connectionState(realm, { error: new Error('x'), loading: false })).toBe('error');
    expect(connectionState(realm, { data: { ...ok, hasTokens: false }, error: null, loading: false })).toBe(
      'no-tokens',
    );
    expect(connectionState(realm, { data: { ...ok, isExpired: true }, error: null, loading: false })).toBe(
      'expired',
    );
    expect(connectionState(realm, { data: ok, error: null, loading: false })).toBe('connected');
  });

  it('never shows a lost grant as connected, even with a stored token not yet expired', () => {
    const data = {
      hasTokens: true,
      isExpired: false,
      expiresIn: 3000,
      reconsentBy: null,
      reconsentDue: false,
      problem: null,
    };
    const ok = { data, error: null, loading: false };
    expect(connectionState({ qbRealmId: '9', qbConnectionStatus: 'disconnected' }, ok)).toBe('reconnect');
    expect(connectionState({ qbRealmId: '9', qbConnectionStatus: 'error' }, ok)).toBe('attention');
  });
});

describe('bank account picker', () => {
  it('keeps active Bank accounts only, highest balance first', () => {
    const list = pickableAccounts([
      account('1', 50),
      account('2', 9000),
      account('3', 100_000, { Active: false }),
      account('4', 500_000, { AccountType: 'Credit Card' }),
      account('5', -20),
    ]);
    expect(list.map((a) => a.Id)).toEqual(['2', '1', '5']);
  });

  it('shows green above 0, orange on the chosen account below 1000', () => {
    expect(balanceDot(account('1', 5000), true)).toBe('green');
    expect(balanceDot(account('1', 500), false)).toBe('green');
    expect(balanceDot(account('1', 500), true)).toBe('orange');
    expect(balanceDot(account('1', 0), false)).toBeNull();
  });
});

describe('OAuth dialog checks', () => {
  const ok = { clientId: 'id', clientSecret: 'secret', callbackUrl: 'http://x/cb' };
  it('names what is missing in the toast titles of the spec', () => {
    expect(credentialsProblem({ ...ok, clientId: ' ', clientSecret: '' }, false)).toBe('Missing Credentials');
    expect(credentialsProblem({ ...ok, clientId: '' }, false)).toBe('Missing Client ID');
    expect(credentialsProblem({ ...ok, clientSecret: '  ' }, false)).toBe('Missing Client Secret');
    expect(credentialsProblem({ ...ok, callbackUrl: '' }, false)).toBeNull();
    expect(credentialsProblem({ ...ok, callbackUrl: '' }, true)).toBe('Missing Callback URL');
    expect(credentialsProblem(ok, true)).toBeNull();
  });
});
