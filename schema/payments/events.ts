// The payments module's events: what the ACH network does with Billflow's entries after a file leaves.
// Three kinds of stream:
// - `achtraces-<odfi8>`: the trace sequences taken at one ODFI, so a trace number is never reused
//   there and a return names one entry only;
// - `achinbound-<sha256>`: one file the bank sent back (returns, notifications of change), named by
//   its content, so the same file read twice applies nothing the second time;
// - `achentry-<trace>`: one entry of a Billflow file, by its trace number: returned once (its bills'
//   QuickBooks payments then voided once), corrected;
// - `achdelivery-<approvalId>`: an approval's file on its way to a bank over SFTP: waiting for its
//   cut-off window, uploaded once, then acknowledged or rejected by the bank;
// - `nachafileday-<companyId>-<YYYYMMDD>`: the file id modifiers a company took on one day (36 at most);
// - `achwindow-<companyId>-<via>-<window>`: the files a company sends the bank at one cut-off window
//   (by hand or over SFTP), the approvals made for that window sharing one (a batch each: decision 0040).
// The corrected bank numbers a notification of change carries are sealed with the company's key;
// the tails are plain, for the history and the screens.
import { z } from 'zod';
import type { PersonalFields } from '../shared/personal.js';

const companyId = z.number().int().positive();
const trace = z.string().regex(/^\d{15}$/);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
/** How a window's files go to the bank: a person downloads them, or Billflow uploads them over SFTP. */
export const WindowVia = z.enum(['manual', 'sftp']);

/** A company's data key subject (the same as the companies module's companySubject). */
const companyPersonal = (fields: readonly string[]): PersonalFields => ({
  subject: (data) => `company-${data.companyId as number}`,
  fields,
});

/** Where an inbound file came from. */
export const InboundSource = z.enum(['sftp', 'upload', 'cli']);
export type InboundSource = z.infer<typeof InboundSource>;

/** What the product does about a return code (services/nacha/return-codes.ts). */
export const ReturnAction = z.enum([
  'block-account',
  'investigate',
  'our-file',
  'impossible-on-credit',
  'dishonored',
  'contested',
  'other',
]);
export type ReturnAction = z.infer<typeof ReturnAction>;

/** An entry of an inbound file that matched no Billflow entry: kept for a person, never dropped. */
export const ParkedEntry = z.object({
  line: z.number().int().positive(),
  kind: z.enum(['return', 'correction', 'other']),
  /** The trace the bank named (Addenda 07–21), as written. */
  originalTrace: z.string(),
  code: z.string().nullable(),
  amountCents: z.number().int().nonnegative(),
  reason: z.string(),
});
export type ParkedEntry = z.infer<typeof ParkedEntry>;

export const paymentsEvents = {
  /** A range of trace sequences at one ODFI, taken by one file; the next file starts after it. */
  AchTracesReserved: {
    version: 1,
    schema: z.object({
      odfi: z.string().regex(/^\d{8}$/),
      fileId: z.string(),
      first: z.number().int().positive(),
      count: z.number().int().positive(),
      at: z.string(),
    }),
  },
  /**
   * A file from the bank, read and valid: its content is kept sealed (ach_inbound_contents), its
   * entries are applied after this, each on its own entry stream.
   */
  AchInboundFileReceived: {
    version: 1,
    schema: z.object({
      fileId: sha256,
      fileName: z.string(),
      source: InboundSource,
      /** Null: the system (read from the bank's outbox) or the command line. */
      byUserId: z.number().int().positive().nullable(),
      returns: z.number().int().nonnegative(),
      corrections: z.number().int().nonnegative(),
      other: z.number().int().nonnegative(),
      at: z.string(),
    }),
  },
  /** A file from the bank that is not a valid ACH file: nothing of it is applied. */
  AchInboundFileRefused: {
    version: 1,
    schema: z.object({
      fileId: sha256,
      fileName: z.string(),
      source: InboundSource,
      byUserId: z.number().int().positive().nullable(),
      reasons: z.array(z.string()).min(1),
      at: z.string(),
    }),
  },
  /** Every entry of a received file is applied or parked: the file is done. */
  AchInboundFileApplied: {
    version: 1,
    schema: z.object({
      fileId: sha256,
      applied: z.number().int().nonnegative(),
      alreadyApplied: z.number().int().nonnegative(),
      parked: z.array(ParkedEntry),
      at: z.string(),
    }),
  },
  /**
   * The bank returned the entry: the vendor was not paid. `bills`: what the entry paid per bill (the
   * approvals module lets them go and voids their QuickBooks payments); `fileEntryCount`: how many
   * entries its file carried for that approval (every one back: the approval's payment RETURNED).
   * Both absent on returns read before they were kept (those approvals recorded PaymentReturnRecorded).
   */
  PaymentEntryReturned: {
    version: 1,
    schema: z.object({
      traceNumber: trace,
      approvalId: z.string(),
      companyId,
      qbVendorId: z.string(),
      vendorName: z.string(),
      amountCents: z.number().int().nonnegative(),
      accountLast4: z.string(),
      fileName: z.string(),
      returnCode: z.string(),
      description: z.string(),
      action: ReturnAction,
      bills: z
        .array(z.object({ billId: z.string(), amountCents: z.number().int().nonnegative() }))
        .optional(),
      fileEntryCount: z.number().int().positive().optional(),
      inboundFileId: sha256,
      at: z.string(),
    }),
  },
  /**
   * The QuickBooks bill payments Billflow recorded for a returned entry's bills are voided (Intuit's
   * void: the record stays, its amounts zeroed), so the books show those bills open, as they are.
   * Once per entry; absent when none had been recorded.
   */
  PaymentEntryQbVoided: {
    version: 1,
    schema: z.object({
      traceNumber: trace,
      approvalId: z.string(),
      companyId,
      vendorName: z.string(),
      bills: z
        .array(
          z.object({
            billId: z.string(),
            docNumber: z.string().nullable(),
            billPaymentId: z.string(),
            amount: z.number(),
          }),
        )
        .min(1),
      at: z.string(),
    }),
  },
  /**
   * The bank's notification of change for the entry: the payment posted, and the vendor's bank
   * details must change before its next entry (Nacha: within six banking days, `dueBy`).
   */
  PaymentEntryCorrectionReceived: {
    version: 1,
    personal: companyPersonal(['correctedAccountNumber', 'correctedRoutingNumber']),
    schema: z.object({
      traceNumber: trace,
      approvalId: z.string(),
      companyId,
      qbVendorId: z.string(),
      vendorName: z.string(),
      changeCode: z.string(),
      description: z.string(),
      correctedAccountNumber: z.string().nullable(),
      correctedRoutingNumber: z.string().nullable(),
      correctedAccountType: z.enum(['checking', 'savings']).nullable(),
      correctedName: z.string().nullable(),
      /** The corrected numbers' tails, plain for the screens. */
      correctedAccountLast4: z.string().nullable(),
      correctedRoutingLast4: z.string().nullable(),
      dueBy: z.string(),
      inboundFileId: sha256,
      at: z.string(),
    }),
  },
  /** A file made for a company that sends over SFTP waits for its next cut-off window. */
  AchDeliveryScheduled: {
    version: 1,
    schema: z.object({
      approvalId: z.string(),
      companyId,
      fileId: z.string(),
      version: z.number().int().positive(),
      fileName: z.string(),
      effectiveDate: z.string(),
      /** A Same-Day ACH file (effective the day it is made): it must reach the bank before the deadline. */
      sameDay: z.boolean().optional(),
      /** The window's instant (New York wall time `window` on `windowDay`). */
      windowAt: z.string(),
      /** The window's shared file that carries it (decision 0040). Absent on older files: a file of its own. */
      window: z.object({ at: z.string(), file: z.number().int().positive(), via: WindowVia }).optional(),
      at: z.string(),
    }),
  },
  /**
   * The file is in the bank's inbox: uploaded now, or found there already by name and size (an upload
   * that landed before its answer was lost), so it is never sent twice.
   */
  AchFileDelivered: {
    version: 1,
    schema: z.object({
      approvalId: z.string(),
      companyId,
      fileId: z.string(),
      version: z.number().int().positive(),
      fileName: z.string(),
      size: z.number().int().nonnegative(),
      sha256,
      foundThere: z.boolean(),
      at: z.string(),
    }),
  },
  /** The bank's acknowledgement of a delivered file, its own words kept. */
  AchFileAcknowledged: {
    version: 1,
    schema: z.object({
      approvalId: z.string(),
      companyId,
      fileId: z.string(),
      bankText: z.string(),
      at: z.string(),
    }),
  },
  /** The bank refused a delivered file: nothing of it will be paid. */
  AchFileRejectedByBank: {
    version: 1,
    schema: z.object({
      approvalId: z.string(),
      companyId,
      fileId: z.string(),
      bankText: z.string(),
      at: z.string(),
    }),
  },
  /** The upload could not be made (a changed host key, the bank refusing, attempts used up). */
  AchDeliveryFailed: {
    version: 1,
    schema: z.object({
      approvalId: z.string(),
      companyId,
      fileId: z.string(),
      reason: z.string(),
      at: z.string(),
    }),
  },
  /** A new shared file for the window: its header (creation instant, so its name) is fixed now. */
  AchWindowFileOpened: {
    version: 1,
    schema: z.object({
      companyId,
      via: WindowVia,
      windowAt: z.string(),
      /** The file's number within the window: 1, then 2 once the first was sealed. */
      file: z.number().int().positive(),
      createdAt: z.string(),
    }),
  },
  /**
   * An approval's file (one batch) joins the window's open file as its batch `batch`; a newer version
   * of the same approval's file takes its place, batch and all.
   */
  AchWindowFileBatchJoined: {
    version: 1,
    schema: z.object({
      companyId,
      via: WindowVia,
      windowAt: z.string(),
      file: z.number().int().positive(),
      batch: z.number().int().positive(),
      approvalId: z.string(),
      /** The approval's own file (services/approvals/payments/nacha-generate.ts paymentFileId). */
      fileId: z.string(),
      version: z.number().int().positive(),
      at: z.string(),
    }),
  },
  /**
   * The shared file is closed: downloaded by a person or taken for its upload. Its batches are those
   * named; an approval made later for the window goes into a new file.
   */
  AchWindowFileSealed: {
    version: 1,
    schema: z.object({
      companyId,
      via: WindowVia,
      windowAt: z.string(),
      file: z.number().int().positive(),
      batches: z.array(
        z.object({
          batch: z.number().int().positive(),
          approvalId: z.string(),
          fileId: z.string(),
          version: z.number().int().positive(),
        }),
      ),
      reason: z.enum(['download', 'upload']),
      at: z.string(),
    }),
  },
  /**
   * An ADMIN sends the company's waiting files now, ahead of their window (stream
   * `achcutoff-<companyId>`): each named delivery is tried at once.
   */
  AchCutoffTriggered: {
    version: 1,
    schema: z.object({
      companyId,
      byUserId: z.number().int().positive(),
      deliveries: z.array(z.object({ approvalId: z.string(), fileId: z.string() })),
      at: z.string(),
    }),
  },
} as const;

type Defs = typeof paymentsEvents;
export type PaymentsEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];

/**
 * The file id modifiers a company used on one day (stream `nachafileday-<companyId>-<YYYYMMDD>`).
 * `kind` and `qbVendorIds` (the vendors a penny test credited) are absent on modifiers taken before
 * they were recorded: those were payment files as far as the day's limits go.
 */
export const nachaFileDayEvents = {
  NachaFileIdModifierTaken: {
    version: 1,
    schema: z.object({
      companyId,
      day: z.string(),
      modifier: z.string().length(1),
      fileId: z.string(),
      at: z.string(),
      kind: z.enum(['payment', 'penny-test']).optional(),
      qbVendorIds: z.array(z.string()).optional(),
    }),
  },
} as const;

type DayDefs = typeof nachaFileDayEvents;
export type NachaFileDayEvent = {
  [K in keyof DayDefs]: { type: K; data: z.infer<DayDefs[K]['schema']> };
}[keyof DayDefs];
