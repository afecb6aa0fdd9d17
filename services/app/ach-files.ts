// The kernel's port to a company's NACHA files, kept by the approvals module: the company's NACHA
// settings as a file's header needs them, the day's file id modifiers with the penny tests' limits
// (services/approvals/payments/file-modifier.ts), and the stored files, sealed with the company's key
// (nacha-files.ts). A vendor's micro-deposit verification is a penny test too: through this port it
// takes one of the same modifiers under the same limits and is kept the same way, without the vendors
// module importing the approvals module.
import type { NachaCompany } from '../nacha/payment-file.js';
import type { CommandContext } from './command-handler.js';

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

export interface AchFileAccess {
  /** The company's NACHA settings, or the problem (in words for the person who can fix it). */
  company(companyId: number): Promise<{ company: NachaCompany } | { problem: string }>;
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
