// The kernel's port to a company's ACH files, kept by the payments module (decision 0041): the
// company's NACHA settings as a file's header needs them and whether it sends Same-Day ACH, the day's
// file id modifiers with the penny tests' limits (services/payments/file-modifier.ts), the writing of
// an approval's payment file (its date, cut-off window, modifier and traces), and the stored files,
// sealed with the company's key (services/payments/nacha-files.ts). The approvals module decides what a
// file pays (which bills, how much, to which approved bank details) and the vendors module what a
// micro-deposit test sends; both make and read their files through this port, without importing the
// payments module.
import type { NachaProblem } from '../../schema/approvals/payment-events.js';
import type { NachaCompany, VendorCredit } from '../nacha/payment-file.js';
import type { AchWriteError } from '../nacha/records.js';
import type { CommandContext } from './command-handler.js';

/** Penny tests a company may make in one New York day. */
export const PENNY_TESTS_PER_COMPANY_PER_DAY = 6;
/** Penny tests that may credit one vendor in one New York day. */
export const PENNY_TESTS_PER_VENDOR_PER_DAY = 2;
/** How a penny test over its limits is refused (a CONFLICT). */
export const PENNY_LIMIT = 'Penny test limit reached';

export interface PennyTestFileToStore {
  fileId: string;
  /** Whose file it is: `vendor-<vendorId>` for a vendor's verification (an approval's id otherwise). */
  ownerId: string;
  companyId: number;
  fileName: string;
  /** What is kept in plain beside the sealed text: counts and names, never an amount of a test. */
  summary: Record<string, unknown>;
  text: string;
}

/** An approval's payment file to write: what it pays, and when it was asked for. */
export interface PaymentFileRequest {
  companyId: number;
  approvalId: string;
  /** The file's id: the same for one request (approval, version) however often it is worked on. */
  fileId: string;
  version: number;
  /** One credit per vendor, in the order the file writes them (entry i is credit i). */
  credits: VendorCredit[];
  /** The effective entry date the approver chose ('YYYY-MM-DD'), null: the default. */
  chosenEffectiveDate: string | null;
  /** When the file was asked for: the instant its cut-off window is counted from (null: now). */
  requestedAt: Date | null;
}

/** What the payments module wrote: the file's facts, never its text. */
export interface WrittenPaymentFile {
  fileName: string;
  fileIdModifier: string;
  effectiveDate: string;
  sameDay: boolean;
  /** Why the effective date is not the one asked for. */
  dateNote: string | null;
  entryCount: number;
  totalCreditCents: number;
  totalDebitCents: number;
  balanced: boolean;
  /** Credit i's trace number. */
  traceNumbers: string[];
  /** Its batch in its cut-off window's shared file (decision 0040). */
  batchNumber: number;
  window: { at: string; file: number; via: 'manual' | 'sftp' };
}

export type PaymentFileOutcome<S> =
  | { kind: 'written'; summary: S }
  /** The writer refused a credit or the company's settings: nothing was taken or kept. */
  | { kind: 'refused'; error: AchWriteError }
  /** The company's NACHA settings stop any file (no settings, no company). */
  | { kind: 'company'; problem: NachaProblem }
  /** The day's 36 file id modifiers are used: the file waits for `waitUntil` ('YYYY-MM-DD'). */
  | { kind: 'file-limit'; companyName: string; modifiers: number; waitUntil: string };

export interface AchFileAccess {
  /** The company's NACHA settings and whether it is connected to QuickBooks, or the problem. */
  company(
    companyId: number,
  ): Promise<{ company: NachaCompany; connected: boolean } | { problem: NachaProblem }>;
  /** Whether the company sends Same-Day ACH (off by default). */
  sameDayAch(companyId: number): Promise<boolean>;
  /** How many of the 36 file id modifiers the company has left on a New York day ('YYYYMMDD'). */
  modifiersLeft(companyId: number, day: string): Promise<number>;
  /**
   * Writes an approval's payment file once: dated, placed in its cut-off window, given the window's
   * modifier and its traces, validated and kept sealed with `summarize(written)` beside it. Asked
   * again for the same file id, the summary kept the first time is answered (whatever summarize says).
   */
  writePaymentFile<S>(
    request: PaymentFileRequest,
    summarize: (written: WrittenPaymentFile) => S,
    ctx: CommandContext,
  ): Promise<PaymentFileOutcome<S>>;
  /** The summary kept with a payment file, or null when none is kept. */
  keptSummary<S>(fileId: string): Promise<S | null>;
  /**
   * What a person downloads for an approval's file: the cut-off window's shared file that carries it,
   * sealed by the download (decision 0040), else the file alone; 'gone' once its company was
   * forgotten, null when there is none. `record` runs once the file is found readable, before the
   * seal: the download is on record before anything is given.
   */
  download(
    approvalId: string,
    fileId: string,
    record: () => Promise<unknown>,
    ctx: CommandContext,
  ): Promise<{ fileName: string; text: string } | 'gone' | null>;
  /** A stand-in modifier for a trial build: a file the writer refuses takes none of the day's. */
  readonly trialModifier: string;
  /**
   * A penny test's modifier on the company's New York day ('YYYYMMDD'): at most 2 a vendor and 6 a
   * company a day, only from the last few of the range; past a limit a CONFLICT naming it. The same
   * file id answers the modifier it already took.
   */
  takePennyTestModifier(
    companyId: number,
    day: string,
    fileId: string,
    vendors: ReadonlyArray<{ qbVendorId: string; name: string }>,
    ctx: CommandContext,
  ): Promise<string>;
  /** Keeps a penny-test file once (a second store of the same id keeps the first). */
  storePennyTest(file: PennyTestFileToStore): Promise<void>;
  /** A stored file's text, 'gone' once its company was forgotten, null when there is none. */
  read(ownerId: string, fileId: string): Promise<{ fileName: string; text: string } | 'gone' | null>;
}
