// Billflow's two files: the vendor payment file (one batch of credits, optionally balanced by one
// debit to the company's own account) and the penny test (micro-entries, description ACCTVERIFY).
// Pure: the caller gives the creation instant, the effective date and the day's file id modifier.
import { AchWriteError, isDigits, type SecCode, type TransactionCode } from './records.js';
import { type AchEntryInput, achText, writeAchFileWithTotals } from './writer.js';

export type BankAccountType = 'checking' | 'savings';

/** A company's NACHA settings (unsealed by the caller). */
export interface NachaCompany {
  bankRoutingNumber: string;
  bankAccountNumber: string;
  bankAccountType: BankAccountType;
  bankName: string;
  /** '1' or '2' (anything else is refused). */
  originatorStatusCode: string;
  /** The EIN, with or without its dash. */
  companyTaxId: string;
  /** The ACH company id the bank assigned; null: '1' + EIN. */
  achCompanyId: string | null;
  immediateDestinationName: string;
  immediateOriginName: string;
  companyEntryDescription: string;
  companyDiscretionaryData: string | null;
  /** true: a 200 batch with an offsetting debit to the company's account; false: a 220 credits-only batch. */
  balancedFile: boolean;
  companyName: string;
}

export interface VendorCredit {
  name: string;
  routingNumber: string;
  accountNumber: string;
  accountType: BankAccountType;
  amountCents: number;
  /** At most 15 characters, e.g. the QuickBooks vendor id. */
  identification: string;
  /** Payment-related information (one 05 addenda, cut to 80), e.g. 'BILLS 1001,1002'. */
  addenda?: string;
}

export interface VendorPaymentFileInput {
  company: NachaCompany;
  /** CCD by default: vendors are businesses. */
  secCode?: SecCode;
  credits: VendorCredit[];
  /** The effective entry date, 'YYYY-MM-DD' (the next banking day: nextBankingDay). */
  effectiveDate: string;
  /**
   * The batch header's company descriptive date (positions 64–69): 'SD1700' marks a same-day file for
   * the 17:00 settlement window (Nacha's recommended SDHHMM; ODFIs may require it). Blank when absent.
   */
  companyDescriptiveDate?: string;
  fileIdModifier: string;
  createdAt: Date;
  /** The first entry's trace sequence, reserved at the ODFI (writer.ts); 1 when absent. */
  firstTraceSequence?: number;
}

export interface PennyTestFileInput extends VendorPaymentFileInput {
  /** The offsetting debit when the company's files are balanced; the credits' total by default. */
  offsetDebitCents?: number;
}

export interface PaymentFile {
  text: string;
  fileName: string;
  /** The file's one batch: always 1 (batch numbers restart in every file). */
  batchNumber: number;
  /** Entry detail records, the offsetting debit included. */
  entryCount: number;
  entryAddendaCount: number;
  totalCreditCents: number;
  totalDebitCents: number;
  /** The entry hash of the file control. */
  hash: number;
  serviceClassCode: 200 | 220;
  /** Each entry's trace number, in order: the credits as given, then any offsetting debit. */
  traceNumbers: string[];
}

/** File dates and names are in the Federal Reserve's time, Eastern. */
const EASTERN = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** The instant's date and time in New York: YYYYMMDD and HHmm. */
function eastern(at: Date): { day: string; time: string } {
  const p: Record<string, string> = {};
  for (const part of EASTERN.formatToParts(at)) p[part.type] = part.value;
  return { day: `${p.year}${p.month}${p.day}`, time: `${p.hour}${p.minute}` };
}

/**
 * The day a file belongs to, 'YYYYMMDD' in New York: the day of its file id modifier and its name.
 * The one day the modifier sequence (A, B, …) is counted on.
 */
export function achFileDay(createdAt: Date): string {
  return eastern(createdAt).day;
}

/** What tells companies apart in a file name: the company name's letters and digits. */
function slug(name: string): string {
  return (
    achText(name)
      .replace(/[^A-Z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 24)
      .replace(/-+$/, '') || 'COMPANY'
  );
}

function yymmdd(isoDate: string): string {
  const m = /^20(\d{2})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!m) throw new AchWriteError('', 'effectiveDate', `must be 'YYYY-MM-DD' in 2000–2099`);
  return `${m[1]}${m[2]}${m[3]}`;
}

function ein(taxId: string): string {
  const digits = taxId.replace(/-/g, '').trim();
  if (!isDigits(digits, 9)) throw new AchWriteError('company', 'companyTaxId', 'must be the 9-digit EIN');
  return digits;
}

const creditCode = (t: BankAccountType): TransactionCode => (t === 'savings' ? 32 : 22);
const debitCode = (t: BankAccountType): TransactionCode => (t === 'savings' ? 37 : 27);

function build(
  input: VendorPaymentFileInput,
  kind: { prefix: string; description: string; offsetCents: (total: number) => number },
): PaymentFile {
  const { company } = input;
  if (input.credits.length === 0) throw new AchWriteError('', 'credits', 'nothing to pay: no credit');
  const routing = company.bankRoutingNumber.trim();
  if (!isDigits(routing, 9))
    throw new AchWriteError('company', 'bankRoutingNumber', 'must be the 9-digit routing number');
  const origin = `1${ein(company.companyTaxId)}`;
  const entries: AchEntryInput[] = input.credits.map((c) => ({
    transactionCode: creditCode(c.accountType),
    routingNumber: c.routingNumber.trim(),
    accountNumber: c.accountNumber,
    amountCents: c.amountCents,
    identificationNumber: c.identification,
    individualName: c.name,
    addenda: c.addenda,
  }));
  const total = input.credits.reduce((sum, c) => sum + c.amountCents, 0);
  if (company.balancedFile)
    entries.push({
      transactionCode: debitCode(company.bankAccountType),
      routingNumber: routing,
      accountNumber: company.bankAccountNumber,
      amountCents: kind.offsetCents(total),
      identificationNumber: 'OFFSET',
      individualName: company.companyName,
    });
  const created = eastern(input.createdAt);
  const serviceClassCode = company.balancedFile ? 200 : 220;
  const { text, totals } = writeAchFileWithTotals({
    immediateDestination: routing,
    immediateOrigin: origin,
    fileCreationDate: created.day.slice(2),
    fileCreationTime: created.time,
    fileIdModifier: input.fileIdModifier,
    firstTraceSequence: input.firstTraceSequence,
    immediateDestinationName: company.immediateDestinationName || company.bankName,
    immediateOriginName: company.immediateOriginName || company.companyName,
    batches: [
      {
        serviceClassCode,
        standardEntryClassCode: input.secCode ?? 'CCD',
        companyName: company.companyName,
        companyDiscretionaryData: company.companyDiscretionaryData ?? '',
        companyIdentification: company.achCompanyId?.trim() || origin,
        companyEntryDescription: kind.description,
        companyDescriptiveDate: input.companyDescriptiveDate ?? '',
        effectiveEntryDate: yymmdd(input.effectiveDate),
        originatorStatusCode: company.originatorStatusCode as '1' | '2',
        odfiIdentification: routing.slice(0, 8),
        entries,
      },
    ],
  });
  return {
    text,
    fileName: `${kind.prefix}_${created.day}_${input.fileIdModifier}_${slug(company.companyName)}.txt`,
    batchNumber: 1,
    entryCount: totals.entryCount,
    entryAddendaCount: totals.entryAddendaCount,
    totalCreditCents: totals.totalCreditCents,
    totalDebitCents: totals.totalDebitCents,
    hash: totals.entryHash,
    serviceClassCode,
    traceNumbers: totals.traceNumbers,
  };
}

/**
 * The vendor payment file: one batch of credits (22 checking, 32 savings); balanced companies get a
 * 200 batch with one debit (27/37) to their own account for the credits' total, others a 220 batch.
 * Name: `ACH_<YYYYMMDD>_<modifier>_<COMPANY>.txt`, the New York creation day: the day and modifier
 * name the file uniquely within a company, the company's name tells companies apart.
 */
export function buildVendorPaymentFile(input: VendorPaymentFileInput): PaymentFile {
  return build(input, {
    prefix: 'ACH',
    description: input.company.companyEntryDescription,
    offsetCents: (total) => total,
  });
}

/**
 * The penny test (Nacha micro-entries): credits of 1–99 cents each, description ACCTVERIFY; for a
 * balanced company one offsetting debit, at most the credits' total (their total by default).
 * Name: `ACHVERIFY_<YYYYMMDD>_<modifier>_<COMPANY>.txt`.
 */
export function buildPennyTestFile(input: PennyTestFileInput): PaymentFile {
  input.credits.forEach((c, i) => {
    if (!Number.isInteger(c.amountCents) || c.amountCents < 1 || c.amountCents > 99)
      throw new AchWriteError(`credits[${i}]`, 'amountCents', 'a micro-entry is 1 to 99 cents');
  });
  return build(input, {
    prefix: 'ACHVERIFY',
    description: 'ACCTVERIFY',
    offsetCents: (total) => {
      const offset = input.offsetDebitCents ?? total;
      if (!Number.isInteger(offset) || offset < 1 || offset > total)
        throw new AchWriteError('', 'offsetDebitCents', `must be 1 to the credits' total (${total}) cents`);
      return offset;
    },
  });
}
