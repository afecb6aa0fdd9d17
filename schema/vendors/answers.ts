// What the vendors module answers (REST, OpenAPI and GraphQL alike): the application's answer types
// are z.infer of these (services/vendors/).
import { z } from 'zod';
import { pageOf } from '../shared/answers.js';

export const AccountType = z.enum(['checking', 'savings']);

export const BankingChangeStatus = z.enum(['pending', 'frozen', 'approved', 'rejected', 'live']);

/**
 * A micro-deposit verification of a held change: two credits of 1–99 cents to its new account (their
 * amounts never shown), the file staff send to the bank, and the vendor's tries at the amounts.
 */
export const MicroDeposits = z.object({
  verificationId: z.string(),
  /** sent: waiting for the vendor; confirmed: the change went live by it; locked: out of tries. */
  status: z.enum(['sent', 'confirmed', 'locked']),
  triesLeft: z.number().int(),
  fileName: z.string(),
  /** The file's effective entry date: the credits reach the account from that banking day. */
  effectiveDate: z.string(),
  sentAt: z.string(),
  /** The vendor's link stops working then. */
  expiresAt: z.string(),
  startedById: z.number().int(),
  startedByName: z.string().nullable(),
  /** GET it (ADMIN, MODERATOR; recorded): the NACHA file to upload to the bank. */
  fileUrl: z.string(),
  /** The e-mail with the vendor's link was not delivered (refused, or out of tries). */
  linkUndelivered: z.boolean(),
});
export type MicroDeposits = z.infer<typeof MicroDeposits>;

/**
 * A change of a vendor's bank details, masked: held for a second look ('pending'), reported by the
 * vendor's contact as not theirs ('frozen'), approved, rejected, or live at once ('live': the
 * company's control was off, or a new bank name on the same account).
 */
export const BankingChange = z.object({
  changeId: z.string(),
  vendorId: z.number().int(),
  vendorName: z.string().nullable(),
  companyId: z.number().int(),
  status: BankingChangeStatus,
  source: z.enum(['form', 'batch', 'csv', 'noc']),
  routingNumber: z.string().nullable().describe('The new routing number, masked'),
  accountNumber: z.string().nullable().describe('The new account number, masked'),
  accountType: AccountType,
  previousRoutingNumber: z.string().nullable().describe('The routing number before, masked; null: none'),
  previousAccountNumber: z.string().nullable().describe('The account number before, masked; null: none'),
  requestedById: z.number().int().nullable(),
  requestedByName: z.string().nullable(),
  requestedAt: z.string(),
  decidedById: z.number().int().nullable(),
  decidedByName: z.string().nullable(),
  decidedAt: z.string().nullable(),
  /** How it went live: 'second-person', 'micro-deposits', 'control-off'; null while held or rejected. */
  verifiedBy: z.string().nullable(),
  reason: z.string().nullable(),
  /** Who must act on a held change, in words. Null once decided. */
  awaiting: z.string().nullable(),
  /**
   * The notice to the vendor's contact on record (the e-mail before the change): 'sent'; 'no-contact':
   * there was none, nobody could be told; 'undelivered': sent but refused for good or out of tries;
   * null: not yet, or made before notices were sent.
   */
  contactNotice: z.enum(['sent', 'no-contact', 'undelivered']).nullable(),
  /** The latest micro-deposit verification of this change; null: none was started. */
  microDeposits: MicroDeposits.nullable(),
});
export type BankingChange = z.infer<typeof BankingChange>;

/**
 * Who must act on a held change, in words: said the same on the vendor's page and where money is
 * decided (approvals, /bills), which adds where to act. Null once the change is decided.
 */
export function awaitingOnHeldChange(
  status: z.infer<typeof BankingChangeStatus>,
  /** The maker's name; null: the system (a bank's notification of change), or unknown. */
  maker: string | null,
  where = '',
  source?: z.infer<typeof BankingChange>['source'],
): string | null {
  if (status === 'pending' && source === 'noc')
    return `The bank's notification of change: an ADMIN must approve or reject it${where}`;
  if (status === 'pending')
    return `An ADMIN or MODERATOR ${maker ? `other than ${maker} ` : ''}must approve or reject it${where}, or the vendor confirm the micro-deposits`;
  if (status === 'frozen')
    return `The vendor's contact reported it as not theirs: an ADMIN or MODERATOR must reject it${where}`;
  return null;
}

/**
 * What a vendor link's page shows of its change (no sign-in): the company, the vendor, the tails old
 * and new, who made it and when, and whether the link can still act.
 */
export const VendorLinkChange = z.object({
  companyName: z.string(),
  vendorName: z.string(),
  accountType: AccountType,
  previousRoutingNumber: z.string().nullable().describe('Masked; null: no bank details before'),
  previousAccountNumber: z.string().nullable().describe('Masked; null: no bank details before'),
  routingNumber: z.string().nullable().describe('The new routing number, masked'),
  accountNumber: z.string().nullable().describe('The new account number, masked'),
  madeBy: z.string().describe('The person who made it, or a bank’s notification of change'),
  madeAt: z.string(),
  status: BankingChangeStatus,
  /** The link may still act (its change held and the link its latest). */
  canAct: z.boolean(),
  /** Why it cannot act, in words; null when it can. */
  note: z.string().nullable(),
  expiresAt: z.string(),
});
export type VendorLinkChange = z.infer<typeof VendorLinkChange>;

/** What the micro-deposit page shows: the change, and the verification's tries. */
export const MicroDepositLinkView = VendorLinkChange.extend({
  triesLeft: z.number().int(),
  effectiveDate: z.string(),
  verification: z.enum(['open', 'confirmed', 'locked', 'replaced', 'closed']),
});
export type MicroDepositLinkView = z.infer<typeof MicroDepositLinkView>;

/** A "this was not me" press: frozen now, or already before (nothing more done). */
export const NotMeResult = z.object({
  status: BankingChangeStatus,
  noAction: z.boolean(),
  message: z.string(),
});
export type NotMeResult = z.infer<typeof NotMeResult>;

/** The vendor's entry of the amounts. */
export const MicroDepositEntryResult = z.object({
  outcome: z.enum(['confirmed', 'wrong', 'locked']),
  triesLeft: z.number().int(),
  message: z.string(),
});
export type MicroDepositEntryResult = z.infer<typeof MicroDepositEntryResult>;

/** A company's control on bank detail changes. */
export const BankingControl = z.object({
  companyId: z.number().int(),
  enabled: z.boolean(),
  flagDays: z.number().int(),
});
export type BankingControl = z.infer<typeof BankingControl>;

/**
 * The vendor's banking blocked after the bank returned a payment to it: no NACHA file pays it until a
 * changed account goes live. `message` is what every screen shows, in red.
 */
export const BankingBlock = z.object({
  returnCode: z.string(),
  description: z.string(),
  traceNumber: z.string(),
  since: z.string(),
  message: z.string(),
});
export type BankingBlock = z.infer<typeof BankingBlock>;

/** The words of a block, the same on the vendor's page, its list and where a file holds it out. */
export const bankingBlockMessage = (returnCode: string, description: string) =>
  `Payments blocked: ${returnCode} ${description} — change the bank details`;

/** A vendor from QuickBooks with its bank details, the numbers masked ('*****6789') unless unmasked. */
export const Vendor = z.object({
  id: z.number().int(),
  name: z.string(),
  companyId: z.number().int(),
  companyName: z.string().nullable(),
  qbVendorId: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  active: z.boolean(),
  hasBankingInfo: z.boolean(),
  routingNumber: z.string().nullable().describe('Masked unless unmasked'),
  accountNumber: z.string().nullable().describe('Masked unless unmasked'),
  accountType: AccountType.nullable(),
  bankName: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  qbSyncedAt: z.string(),
  /** Present on the single-vendor read: whether the numbers above are in full. */
  isUnmasked: z.boolean().optional(),
  /** A change of the bank details held for a second look (the numbers above stay the live ones). */
  pendingBankingChange: BankingChange.nullable().optional(),
  /** Blocked after the bank returned a payment (null: files pay it). */
  bankingBlock: BankingBlock.nullable(),
  /** Mailed a remittance advice when a file paying it goes to the bank (on unless staff turned it off). */
  remittanceAdvice: z.boolean(),
});
export type Vendor = z.infer<typeof Vendor>;

export const VendorPage = pageOf(Vendor);

/** The vendor's ACH status (numbers masked). */
export const VendorAchStatus = z.object({
  hasBankingInfo: z.boolean(),
  routingNumber: z.string().nullable(),
  accountNumber: z.string().nullable(),
  accountType: AccountType.nullable(),
  bankName: z.string().nullable(),
  vendorId: z.number().int(),
  vendorName: z.string(),
});
export type VendorAchStatus = z.infer<typeof VendorAchStatus>;

/** One line of a vendor's history (from its stream): who did what and when. */
export const VendorHistoryEntry = z.object({
  action: z.string(),
  at: z.string(),
  userId: z.number().int().nullable(),
  userName: z.string().nullable(),
  details: z.string().nullable(),
});
export type VendorHistoryEntry = z.infer<typeof VendorHistoryEntry>;

export const VendorSyncStatus = z.enum(['queued', 'running', 'completed', 'failed']);

/** A requested sync of a company's vendors from QuickBooks. */
export const VendorSync = z.object({
  syncId: z.string(),
  companyId: z.number().int(),
  status: VendorSyncStatus,
  synced: z.number().int(),
  failed: z.number().int(),
  error: z.string().nullable(),
  requestedAt: z.string(),
  completedAt: z.string().nullable(),
});
export type VendorSync = z.infer<typeof VendorSync>;

/** Live progress of a vendor sync (the change channel, topic `vendorsync`). */
export const VendorSyncProgress = z.object({
  syncId: z.string(),
  companyId: z.number().int(),
  processed: z.number().int(),
  synced: z.number().int(),
  failed: z.number().int(),
  /** How many vendors QuickBooks has from the offset on (null until counted, or if the count failed). */
  total: z.number().int().nullable(),
  done: z.boolean(),
  /** QuickBooks asked to wait (429) or did not answer: the sync goes on at `resumesAt`. */
  waiting: z.boolean().optional(),
  resumesAt: z.string().optional(),
});
export type VendorSyncProgress = z.infer<typeof VendorSyncProgress>;

export const BatchBankingResult = z.object({
  processed: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  /** Of the updated, how many wait for a second look (the company's control on bank detail changes). */
  held: z.number().int(),
  results: z.array(
    z.object({
      vendorId: z.number().int(),
      success: z.boolean(),
      error: z.string().nullable(),
      held: z.boolean().optional(),
    }),
  ),
});
export type BatchBankingResult = z.infer<typeof BatchBankingResult>;

export const CsvImportResult = z.object({
  processed: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  /** Rows left as they were (no bank details in the row, or the same as stored). */
  unchanged: z.number().int(),
  /** Of the updated, how many wait for a second look (the company's control on bank detail changes). */
  held: z.number().int(),
  errors: z.array(z.object({ row: z.number().int(), error: z.string() })),
});
export type CsvImportResult = z.infer<typeof CsvImportResult>;

/** The answer to Intuit's change notification: how many incremental syncs it queued. */
export const QbWebhookAnswer = z.object({ queued: z.number().int() });
export type QbWebhookAnswer = z.infer<typeof QbWebhookAnswer>;
