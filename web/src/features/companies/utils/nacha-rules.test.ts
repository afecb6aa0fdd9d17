import { describe, expect, it } from 'vitest';
import type { Company } from '../api/companies';
import { formatRouting, formatTaxId, nachaDefaults, toNachaPayload, validateNacha } from './nacha-rules';

const company = { name: 'Sunrise Bakery and Catering Company LLC' } as Company;
const good = {
  ...nachaDefaults(company),
  bankRoutingNumber: '021-000-021',
  bankAccountNumber: '123456789',
  bankName: 'Chase',
  companyTaxId: '12-3456789',
  immediateDestinationName: 'JPMORGAN CHASE',
};

describe('NACHA form rules', () => {
  it('defaults status 1, checking, BILL PAY and the upper-cased name cut to 23', () => {
    const d = nachaDefaults(company);
    expect(d.originatorStatusCode).toBe('1');
    expect(d.bankAccountType).toBe('checking');
    expect(d.companyEntryDescription).toBe('BILL PAY');
    expect(d.immediateOriginName).toBe('SUNRISE BAKERY AND CATE');
  });

  it('formats routing XXX-XXX-XXX and the EIN XX-XXXXXXX as digits come', () => {
    expect(formatRouting('0210')).toBe('021-0');
    expect(formatRouting('021000021999')).toBe('021-000-021');
    expect(formatTaxId('123')).toBe('12-3');
    expect(formatTaxId('12-3456789')).toBe('12-3456789');
  });

  it('accepts a complete form', () => {
    expect(validateNacha(good)).toEqual({});
  });

  it("says each rule in the spec's words", () => {
    const e = validateNacha({
      ...good,
      bankRoutingNumber: '021-000',
      bankAccountNumber: '1'.repeat(18),
      bankAccountType: '',
      bankName: '',
      originatorStatusCode: '',
      companyTaxId: '12-345',
      achCompanyId: '123',
      immediateDestinationName: 'X'.repeat(24),
      immediateOriginName: '',
      companyEntryDescription: 'X'.repeat(11),
      companyDiscretionaryData: 'X'.repeat(21),
    });
    expect(e).toEqual({
      bankRoutingNumber: 'Routing number must be exactly 9 digits',
      bankAccountNumber: 'Account number must be 17 characters or less',
      bankAccountType: 'Please select an account type',
      bankName: 'Bank name is required',
      originatorStatusCode: 'Originator status code must be exactly 1 character',
      companyTaxId: 'Tax ID must be in format XX-XXXXXXX (9 digits total)',
      achCompanyId: 'ACH company ID must be exactly 10 digits',
      immediateDestinationName: 'Immediate destination name must be 23 characters or less',
      immediateOriginName: 'Immediate origin name is required',
      companyEntryDescription: 'Company entry description must be 10 characters or less',
      companyDiscretionaryData: 'Discretionary data must be 20 characters or less',
    });
  });

  it('strips dashes and upper-cases the names before sending; empty optionals are absent', () => {
    expect(toNachaPayload({ ...good, immediateDestinationName: 'chase bank ' })).toEqual({
      bankRoutingNumber: '021000021',
      bankAccountNumber: '123456789',
      bankAccountType: 'checking',
      bankName: 'Chase',
      originatorStatusCode: '1',
      companyTaxId: '123456789',
      achCompanyId: undefined,
      immediateDestinationName: 'CHASE BANK',
      immediateOriginName: 'SUNRISE BAKERY AND CATE',
      companyEntryDescription: 'BILL PAY',
      companyDiscretionaryData: undefined,
    });
  });
});
