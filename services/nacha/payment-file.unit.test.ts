// Billflow's files: the vendor payment file and the penny test, credits-only and balanced; each
// passes the validator, with the totals, service class and offset it should have.
import { describe, expect, it } from 'vitest';
import { isBankingDay, nextBankingDay } from './banking-day.js';
import { parseAchFile } from './parser.js';
import {
  achFileDay,
  buildPennyTestFile,
  buildVendorPaymentFile,
  type NachaCompany,
  type VendorCredit,
} from './payment-file.js';
import { AchWriteError } from './records.js';
import { validateAchFile } from './validator.js';

const company = (over: Partial<NachaCompany> = {}): NachaCompany => ({
  bankRoutingNumber: '231380104',
  bankAccountNumber: '000123456789',
  bankAccountType: 'checking',
  bankName: 'Citadel',
  originatorStatusCode: '1',
  companyTaxId: '12-3456789',
  achCompanyId: null,
  immediateDestinationName: 'Citadel FCU',
  immediateOriginName: 'Acme Supplies',
  companyEntryDescription: 'Vendor Pay',
  companyDiscretionaryData: null,
  balancedFile: false,
  companyName: 'Acme Supplies, Inc.',
  ...over,
});
const credits: VendorCredit[] = [
  {
    name: 'Paper Co',
    routingNumber: '031300012',
    accountNumber: '11112222',
    accountType: 'checking',
    amountCents: 1_250_00,
    identification: '58',
    addenda: 'BILLS 1001,1002',
  },
  {
    name: 'Crème Ink LLC',
    routingNumber: '121042882',
    accountNumber: '33334444',
    accountType: 'savings',
    amountCents: 80_05,
    identification: '61',
  },
];
// 2026-07-02 14:05 in New York (EDT, UTC-4).
const createdAt = new Date('2026-07-02T18:05:00Z');
const base = { credits, effectiveDate: '2026-07-06', fileIdModifier: 'B', createdAt };

describe('buildVendorPaymentFile', () => {
  it('credits only: one 220 CCD batch of 22/32 credits, 1+EIN as origin and company id, the bank as destination', () => {
    const out = buildVendorPaymentFile({ ...base, company: company() });
    expect(validateAchFile(out.text)).toEqual([]);
    const f = parseAchFile(out.text);
    expect(f.header).toMatchObject({
      immediateDestination: '231380104',
      immediateOrigin: '1123456789',
      fileCreationDate: '260702',
      fileCreationTime: '1405',
      fileIdModifier: 'B',
      immediateDestinationName: 'CITADEL FCU',
      immediateOriginName: 'ACME SUPPLIES',
    });
    expect(f.batches).toHaveLength(1);
    expect(f.batches[0].header).toMatchObject({
      serviceClassCode: 220,
      standardEntryClassCode: 'CCD',
      companyName: 'ACME SUPPLIES, I',
      companyIdentification: '1123456789',
      companyEntryDescription: 'VENDOR PAY',
      effectiveEntryDate: '260706',
      odfiIdentification: '23138010',
      batchNumber: 1,
    });
    expect(
      f.batches[0].entries.map((e) => [
        e.transactionCode,
        e.amountCents,
        e.identificationNumber,
        e.individualName,
      ]),
    ).toEqual([
      [22, 1_250_00, '58', 'PAPER CO'],
      [32, 80_05, '61', 'CREME INK LLC'],
    ]);
    expect(f.batches[0].entries[0].addenda[0].paymentRelatedInformation).toBe('BILLS 1001,1002');
    expect(out).toMatchObject({
      fileName: 'ACH_20260702_B_ACME-SUPPLIES-INC.txt',
      batchNumber: 1,
      entryCount: 2,
      entryAddendaCount: 3,
      totalCreditCents: 1_330_05,
      totalDebitCents: 0,
      hash: 3130001 + 12104288,
      serviceClassCode: 220,
    });
  });

  it("balanced: a 200 batch whose one debit (27 checking, 37 savings) draws the credits' total from the company's account", () => {
    for (const [type, code] of [
      ['checking', 27],
      ['savings', 37],
    ] as const) {
      const out = buildVendorPaymentFile({
        ...base,
        company: company({ balancedFile: true, bankAccountType: type, achCompanyId: 'ACME12345' }),
        secCode: 'PPD',
      });
      expect(validateAchFile(out.text)).toEqual([]);
      const b = parseAchFile(out.text).batches[0];
      expect(b.header).toMatchObject({
        serviceClassCode: 200,
        standardEntryClassCode: 'PPD',
        companyIdentification: 'ACME12345',
      });
      const offset = b.entries[2];
      expect(offset).toMatchObject({
        transactionCode: code,
        rdfiIdentification: '23138010',
        dfiAccountNumber: '000123456789',
        amountCents: 1_330_05,
        individualName: 'ACME SUPPLIES, INC.',
      });
      expect(out).toMatchObject({
        entryCount: 3,
        totalCreditCents: 1_330_05,
        totalDebitCents: 1_330_05,
        serviceClassCode: 200,
        hash: 3130001 + 12104288 + 23138010,
      });
    }
  });

  it('refuses a company without a 9-digit EIN, and a vendor whose routing number fails its check digit', () => {
    expect(() => buildVendorPaymentFile({ ...base, company: company({ companyTaxId: '12-345' }) })).toThrow(
      AchWriteError,
    );
    expect(() =>
      buildVendorPaymentFile({
        ...base,
        company: company(),
        credits: [{ ...credits[0], routingNumber: '031300013' }],
      }),
    ).toThrow(/routingNumber/);
    expect(() => buildVendorPaymentFile({ ...base, company: company(), credits: [] })).toThrow(/credits/);
  });

  it('dates the file by the New York day, the one its modifier is counted on', () => {
    // 02:30 UTC on July 3 is still July 2 in New York.
    const late = new Date('2026-07-03T02:30:00Z');
    expect(achFileDay(late)).toBe('20260702');
    const out = buildVendorPaymentFile({ ...base, company: company(), createdAt: late });
    expect(out.fileName).toBe('ACH_20260702_B_ACME-SUPPLIES-INC.txt');
    expect(parseAchFile(out.text).header).toMatchObject({
      fileCreationDate: '260702',
      fileCreationTime: '2230',
    });
  });

  it('takes the next banking day as its effective date', () => {
    const effective = nextBankingDay('2026-07-02');
    expect(effective).toBe('2026-07-03');
    expect(isBankingDay(effective)).toBe(true);
    const out = buildVendorPaymentFile({ ...base, company: company(), effectiveDate: effective });
    expect(parseAchFile(out.text).batches[0].header.effectiveEntryDate).toBe('260703');
  });
});

describe('buildPennyTestFile', () => {
  const pennies = credits.map((c, i) => ({ ...c, amountCents: [7, 42][i], addenda: undefined }));

  it('credits of under a dollar, description ACCTVERIFY, no debit when the company is not balanced', () => {
    const out = buildPennyTestFile({ ...base, credits: pennies, company: company() });
    expect(validateAchFile(out.text)).toEqual([]);
    const b = parseAchFile(out.text).batches[0];
    expect(b.header).toMatchObject({ serviceClassCode: 220, companyEntryDescription: 'ACCTVERIFY' });
    expect(b.entries.map((e) => e.amountCents)).toEqual([7, 42]);
    expect(out).toMatchObject({
      fileName: 'ACHVERIFY_20260702_B_ACME-SUPPLIES-INC.txt',
      totalCreditCents: 49,
      totalDebitCents: 0,
    });
  });

  it("balanced: one offsetting debit, the credits' total or less", () => {
    const full = buildPennyTestFile({ ...base, credits: pennies, company: company({ balancedFile: true }) });
    expect(validateAchFile(full.text)).toEqual([]);
    expect(full).toMatchObject({
      serviceClassCode: 200,
      totalCreditCents: 49,
      totalDebitCents: 49,
      entryCount: 3,
    });
    const less = buildPennyTestFile({
      ...base,
      credits: pennies,
      company: company({ balancedFile: true }),
      offsetDebitCents: 20,
    });
    expect(validateAchFile(less.text)).toEqual([]);
    expect(less.totalDebitCents).toBe(20);
    expect(() =>
      buildPennyTestFile({
        ...base,
        credits: pennies,
        company: company({ balancedFile: true }),
        offsetDebitCents: 50,
      }),
    ).toThrow(/offsetDebitCents/);
  });

  it('refuses a credit of a dollar or more, or of nothing', () => {
    for (const amountCents of [100, 0, 1.5])
      expect(() =>
        buildPennyTestFile({ ...base, credits: [{ ...pennies[0], amountCents }], company: company() }),
      ).toThrow(/credits\[0\]\.amountCents/);
  });
});
