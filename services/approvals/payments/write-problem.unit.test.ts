// What a generation reports when the NACHA writer refuses the file (nacha-generate.ts writeProblem),
// from the writer's own refusals: an entry above what its 10-digit amount field holds
// ($99,999,999.99; a vendor's bills summed, or a balanced file's offsetting debit) is the entry
// limit, never the vendor's banking; a vendor's bad account is its banking; the rest the company's.
import { describe, expect, it } from 'vitest';
import { buildVendorPaymentFile, type NachaCompany, type VendorCredit } from '../../nacha/payment-file.js';
import { AchWriteError } from '../../nacha/records.js';
import { writeProblem } from './nacha-generate.js';

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
const credit = (name: string, amountCents: number, over: Partial<VendorCredit> = {}): VendorCredit => ({
  name,
  routingNumber: '031300012',
  accountNumber: '11112222',
  accountType: 'checking',
  amountCents,
  identification: '58',
  ...over,
});

/** The writer's refusal of a file of these credits. */
function refusal(credits: VendorCredit[], c = company()): AchWriteError {
  try {
    buildVendorPaymentFile({
      company: c,
      credits,
      effectiveDate: '2026-07-06',
      fileIdModifier: 'A',
      createdAt: new Date('2026-07-02T18:05:00Z'),
    });
  } catch (err) {
    if (err instanceof AchWriteError) return err;
    throw err;
  }
  throw new Error('the writer wrote the file');
}

describe('writeProblem', () => {
  it('names one vendor’s bills summed above $99,999,999.99 the entry limit, for that vendor', () => {
    // Two bills of $60,000,000.00 for one vendor: one credit of $120,000,000.00.
    const credits = [credit('Paper Co', 100_00), credit('Crème Ink LLC', 2 * 6_000_000_000)];
    const p = writeProblem(
      refusal(credits),
      credits.map((c) => c.name),
    );
    expect(p.kind).toBe('entry-limit');
    expect(p.vendorName).toBe('Crème Ink LLC');
    expect(p.message).toContain('Crème Ink LLC');
    expect(p.message).toContain('$99,999,999.99');
    expect(p.message).not.toMatch(/banking|settings/i);
  });

  it('names a balanced file’s offsetting debit above the limit the entry limit, for no vendor', () => {
    const credits = [credit('Paper Co', 6_000_000_000), credit('Crème Ink LLC', 6_000_000_000)];
    const p = writeProblem(
      refusal(credits, company({ balancedFile: true })),
      credits.map((c) => c.name),
    );
    expect(p).toMatchObject({ kind: 'entry-limit', vendorName: null });
    expect(p.message).toContain('$99,999,999.99');
    expect(p.message).not.toMatch(/settings/i);
  });

  it('still names a vendor’s bad account its banking, and the company’s bad settings its settings', () => {
    const bad = [credit('Paper Co', 100_00, { routingNumber: '031300013' })];
    expect(
      writeProblem(
        refusal(bad),
        bad.map((c) => c.name),
      ),
    ).toMatchObject({ kind: 'vendor-banking', vendorName: 'Paper Co' });
    const ok = [credit('Paper Co', 100_00)];
    expect(
      writeProblem(
        refusal(ok, company({ companyTaxId: '12-345' })),
        ok.map((c) => c.name),
      ),
    ).toMatchObject({ kind: 'company-settings', vendorName: null });
  });
});
