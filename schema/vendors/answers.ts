// What the vendors module answers (REST, OpenAPI and GraphQL alike): the application's answer types
// are z.infer of these (services/vendors/).
import { z } from 'zod';
import { pageOf } from '../shared/answers.js';

export const AccountType = z.enum(['checking', 'savings']);

export const BankingChangeStatus = z.enum(['pending', 'frozen', 'approved', 'rejected', 'live']);

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
});
export type BankingChange = z.infer<typeof BankingChange>;

/** A company's control on bank detail changes. */
export const BankingControl = z.object({
  companyId: z.number().int(),
  enabled: z.boolean(),
  flagDays: z.number().int(),
});
export type BankingControl = z.infer<typeof BankingControl>;

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
});
export type Vendor = z.infer<typeof Vendor>;

export const VendorPage = pageOf(Vendor);

/** Spec 2 §3 Vendor ACH status (numbers masked). */
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
