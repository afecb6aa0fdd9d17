// Vendor aggregate events. A vendor comes from a company's QuickBooks
// (VendorSynced) and carries the bank details Billflow keeps for ACH (QuickBooks exposes none for US
// vendors). Stream `vendor-<companyId>-<qbVendorId>`: a sync that races another finds the stream.
// The vendor's name, e-mail, phone and bank numbers are sealed with the vendor's data key; the read
// model keeps the bank numbers masked, and an unmask is itself an event (who, when).
import { z } from 'zod';
import { shownTail } from '../shared/masking.js';
import type { PersonalFields } from '../shared/personal.js';

/** A vendor's data key subject: forgetting the vendor shreds its contact and bank details. */
export const vendorSubject = (vendorId: number) => `vendor-${vendorId}`;

const vendorPersonal = (fields: readonly string[]): PersonalFields => ({
  subject: (data) => vendorSubject(data.vendorId as number),
  fields,
});

const vendorId = z.number().int().positive();
/** What version 1 and 2 events showed of a bank number: the whole of one of four digits or fewer. */
export const lastFour = (v: string) => v.slice(-4);

export { HIDDEN_AT_LEAST, shownTail } from '../shared/masking.js';
export const AccountType = z.enum(['checking', 'savings']);
export type AccountType = z.infer<typeof AccountType>;

/** Where a bank detail change came from: the form, a batch, a CSV row, a bank's notification of change. */
export const BankingSource = z.enum(['form', 'batch', 'csv', 'noc']);
export type BankingSource = z.infer<typeof BankingSource>;

/** How a change was checked before it went live. */
export const BankingVerification = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('second-person'), byUserId: z.number().int().positive() }),
  z.object({ kind: z.literal('micro-deposits') }),
  z.object({ kind: z.literal('control-off') }),
]);
export type BankingVerification = z.infer<typeof BankingVerification>;

const changeId = z.string().min(1).max(100);
/** The tails a masked read shows of the numbers (shownTail), or null where there were none. */
const tails = z.object({ routingLast4: z.string().nullable(), accountLast4: z.string().nullable() });

/** Which entry of a Billflow file the bank answered, and with what (a return or a change code). */
const bankNotice = z.object({
  traceNumber: z.string().regex(/^\d{15}$/),
  /** The bank's file that carried it (its content's sha256). */
  inboundFileId: z.string().regex(/^[0-9a-f]{64}$/),
  code: z.string().max(3),
  description: z.string().max(200),
});

/** What QuickBooks says of a vendor (the fields Billflow keeps). */
export const vendorFromQb = {
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  active: z.boolean(),
};

export const vendorEvents = {
  /** First seen in a sync: the vendor's id is allocated here. */
  VendorCreated: {
    version: 1,
    personal: vendorPersonal(['name', 'email', 'phone']),
    schema: z.object({
      vendorId,
      companyId: z.number().int().positive(),
      qbVendorId: z.string(),
      ...vendorFromQb,
      syncedAt: z.string(),
    }),
  },
  /** A later sync found QuickBooks changed: only the fields that changed are present. */
  VendorChangedInQuickBooks: {
    version: 1,
    personal: vendorPersonal(['name', 'email', 'phone']),
    schema: z.object({
      vendorId,
      name: z.string().optional(),
      email: z.string().nullable().optional(),
      phone: z.string().nullable().optional(),
      active: z.boolean().optional(),
      syncedAt: z.string(),
    }),
  },
  VendorBankingUpdated: {
    // 2: the last four digits of both numbers in plain (masked), so the read model needs no key.
    // 3: *Last4 hold shownTail, never the whole number (version 2 held all of a short one).
    version: 3,
    personal: vendorPersonal(['routingNumber', 'accountNumber']),
    schema: z.object({
      vendorId,
      routingNumber: z.string(),
      accountNumber: z.string(),
      /**
       * What a masked read shows (shownTail: up to the last four, none of a short number). Null only
       * in an event of version 1 or 2 read after its vendor was forgotten.
       */
      routingLast4: z.string().nullable(),
      accountLast4: z.string().nullable(),
      accountType: AccountType,
      bankName: z.string().nullable(),
      /** Where the change came from, for the vendor's history. */
      source: BankingSource,
      /** The change this makes live (none before changes were held for a second look). */
      changeId: z.string().optional(),
      /**
       * How it was checked before it went live: approved by a second person, the vendor's micro-deposit
       * amounts, or the company's control off (none before changes were held).
       */
      verifiedBy: BankingVerification.optional(),
      at: z.string(),
    }),
    upcasters: {
      // Version 1 events come opened (Projection.readsPersonal), so their numbers are there to cut.
      1: (d: { routingNumber: string | null; accountNumber: string | null }) => ({
        ...d,
        routingLast4: d.routingNumber === null ? null : lastFour(d.routingNumber),
        accountLast4: d.accountNumber === null ? null : lastFour(d.accountNumber),
      }),
      // Version 2 events come opened too: what they hold in plain may be a short number whole.
      2: (d: { routingNumber: string | null; accountNumber: string | null }) => ({
        ...d,
        routingLast4: d.routingNumber === null ? null : shownTail(d.routingNumber),
        accountLast4: d.accountNumber === null ? null : shownTail(d.accountNumber),
      }),
    },
  },
  VendorBankingCleared: { version: 1, schema: z.object({ vendorId, at: z.string() }) },
  /**
   * Whether the vendor is mailed a remittance advice (who paid it, what, for which bills) when a file
   * paying it goes to the bank: on for every vendor until staff turn it off, on record with who did.
   */
  VendorRemittanceAdviceSet: {
    version: 1,
    schema: z.object({
      vendorId,
      enabled: z.boolean(),
      byUserId: z.number().int().positive(),
      at: z.string(),
    }),
  },
  /**
   * A change of routing number, account number or account type (or a first entry), held: the live
   * banking stays as it was until a second person approves it, or the vendor confirms micro-deposits
   * to the new account. It replaces a pending one (`replaces`). The numbers are sealed; the tails old
   * and new are plain, for the history, the notice and the read model.
   */
  VendorBankingChangeRequested: {
    version: 1,
    personal: vendorPersonal(['routingNumber', 'accountNumber']),
    schema: z.object({
      vendorId,
      changeId,
      routingNumber: z.string(),
      accountNumber: z.string(),
      accountType: AccountType,
      bankName: z.string().nullable(),
      /** The tails of the new numbers. */
      ...tails.shape,
      /** The live banking's tails when the change was made; null: the vendor had none. */
      previous: tails.extend({ accountType: AccountType }).nullable(),
      source: BankingSource,
      /** Who made it; null: the system (a bank's notification of change). */
      byUserId: z.number().int().positive().nullable(),
      replaces: changeId.nullable(),
      /** Source `noc`: the bank's notification of change it carries out (absent for the other sources). */
      noc: bankNotice.extend({ dueBy: z.string() }).optional(),
      at: z.string(),
    }),
  },
  /** A second person approved the pending change (it goes live in the VendorBankingUpdated after). */
  VendorBankingChangeApproved: {
    version: 1,
    schema: z.object({
      vendorId,
      changeId,
      byUserId: z.number().int().positive(),
      reason: z.string(),
      at: z.string(),
    }),
  },
  /** The pending change is refused: the live banking stays as it was. */
  VendorBankingChangeRejected: {
    version: 1,
    schema: z.object({
      vendorId,
      changeId,
      /** Null: the system (a newer change replaced it, or the control was turned off). */
      byUserId: z.number().int().positive().nullable(),
      reason: z.string(),
      at: z.string(),
    }),
  },
  /**
   * The vendor's contact on record said "this was not me": the change can no longer go live; only its
   * rejection ends it, and the company's ADMINs are told.
   */
  VendorBankingChangeFrozen: {
    version: 1,
    schema: z.object({ vendorId, changeId, via: z.enum(['contact-link']), at: z.string() }),
  },
  /**
   * The vendor's contact on record before a change was told of it (the notice with the tails old and
   * new, who made it and a "this was not me" link), or could not be: no e-mail on record. Recorded by
   * the notice's job, once.
   */
  VendorBankingChangeNoticed: {
    version: 1,
    schema: z.object({
      vendorId,
      changeId,
      /** 'sent': queued to the e-mail on record before the change; 'no-contact': none, nobody was told. */
      outcome: z.enum(['sent', 'no-contact']),
      /** The "this was not me" link's id and expiry; null when nobody could be told. */
      linkId: z.string().max(100).nullable(),
      expiresAt: z.string().nullable(),
      at: z.string(),
    }),
  },
  /**
   * A mail to the vendor's contact about a change (its notice, or its micro-deposit link) was refused
   * for good or ran out of tries ('failed'), or went out after that ('delivered'). Recorded by the
   * mail's report job, so staff know the vendor may not have heard. The reason names no address.
   */
  VendorBankingMailEnded: {
    version: 1,
    schema: z.object({
      vendorId,
      changeId,
      mail: z.enum(['change-notice', 'micro-deposit-link']),
      outcome: z.enum(['failed', 'delivered']),
      reason: z.string().max(500).nullable(),
      /** The mail's job: the operations page's retry of it is the retry that helps. */
      mailJobId: z.string().max(200),
      at: z.string(),
    }),
  },
  /**
   * A micro-deposit verification of the pending change: two credits of 1–99 cents to its new account,
   * in a penny-test file of their own (kept sealed in nacha_files), and a link to the vendor's contact
   * on record to enter them. The amounts are sealed with the vendor's key. It replaces an earlier
   * verification of the change (its tries start again).
   */
  VendorMicroDepositsSent: {
    version: 1,
    personal: vendorPersonal(['amountsCents']),
    schema: z.object({
      vendorId,
      changeId,
      verificationId: z.string().max(100),
      amountsCents: z.array(z.number().int().min(1).max(99)).length(2),
      fileId: z.string(),
      fileName: z.string(),
      fileIdModifier: z.string(),
      effectiveDate: z.string(),
      /** The tail of the account credited (the change's new account). */
      accountLast4: z.string().nullable(),
      byUserId: z.number().int().positive(),
      tries: z.number().int().positive(),
      expiresAt: z.string(),
      at: z.string(),
    }),
  },
  /** Wrong amounts entered through the verification's link; none left: the verification is locked. */
  VendorMicroDepositsMismatched: {
    version: 1,
    schema: z.object({
      vendorId,
      changeId,
      verificationId: z.string().max(100),
      triesLeft: z.number().int().min(0),
      at: z.string(),
    }),
  },
  /** The right amounts: the change goes live in the VendorBankingUpdated after (verifiedBy micro-deposits). */
  VendorMicroDepositsConfirmed: {
    version: 1,
    schema: z.object({ vendorId, changeId, verificationId: z.string().max(100), at: z.string() }),
  },
  /** Staff downloaded the verification's file (it holds the amounts and the new account number). */
  VendorMicroDepositsFileDownloaded: {
    version: 1,
    schema: z.object({
      vendorId,
      changeId,
      verificationId: z.string().max(100),
      fileId: z.string(),
      byUserId: z.number().int().positive(),
      at: z.string(),
    }),
  },
  /**
   * The bank returned a payment to the vendor's live account with a code that says the account cannot
   * take payments (R02, R03, R04 …) or that someone must look (R06, R14, R23 …): no file pays the vendor
   * until a changed account goes live (VendorBankingUnblocked). Once per returned entry.
   */
  VendorBankingBlocked: {
    version: 1,
    schema: z.object({
      vendorId,
      ...bankNotice.shape,
      /** The product's action for the code ('block-account' or 'investigate'). */
      action: z.enum(['block-account', 'investigate']),
      /** The tail of the account the returned entry paid (the live one). */
      accountLast4: z.string().max(4),
      at: z.string(),
    }),
  },
  /** A changed account went live after a block: files pay the vendor again. */
  VendorBankingUnblocked: {
    version: 1,
    schema: z.object({
      vendorId,
      /** The return that blocked it. */
      traceNumber: z.string(),
      returnCode: z.string().max(3),
      /** The change that went live (none when the company's control was off and it had no id). */
      changeId: changeId.nullable(),
      accountLast4: z.string().nullable(),
      at: z.string(),
    }),
  },
  /**
   * A return or notification of change from the bank that changes nothing on the vendor's banking,
   * kept in its history: a NOC that corrects no bank detail (C04 name, C09 identification, C13 addenda
   * format), one that cannot apply (no banking on record, a frozen change), a return to an account no
   * longer live. Once per (entry, bank file).
   */
  VendorBankNoticeNoted: {
    version: 1,
    schema: z.object({
      vendorId,
      kind: z.enum(['return', 'correction']),
      ...bankNotice.shape,
      /** Why nothing changed, in words (no number in it). */
      note: z.string().max(500),
      /** A correction's due date (Nacha: six banking days); null for a return. */
      dueBy: z.string().nullable(),
      at: z.string(),
    }),
  },
  /**
   * The vendor is forgotten: its data key is deleted, so the name, contacts and bank numbers sealed in
   * its events can no longer be read by anyone; the read model drops the vendor. A later sync leaves it so.
   */
  VendorForgotten: {
    version: 1,
    schema: z.object({ vendorId, subject: z.string(), at: z.string() }),
  },
  /**
   * An ADMIN or MODERATOR read the unmasked bank details (the actor is in the metadata too), or an
   * ADMIN exported them in full to CSV: then `export` says which vendors the file held (never the
   * numbers). Events before the export have no `export`.
   */
  VendorBankingUnmasked: {
    version: 1,
    schema: z.object({
      vendorId,
      byUserId: z.number().int().positive(),
      at: z.string(),
      export: z
        .object({
          /** The company the export was of; null: every company the ADMIN sees. */
          companyId: z.number().int().positive().nullable(),
          includeInactive: z.boolean(),
          /** How many vendors the file held. */
          vendors: z.number().int().min(0),
        })
        .optional(),
    }),
  },
} as const;

type Defs = typeof vendorEvents;
export type VendorEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];

/**
 * A sync of a company's vendors (stream `vendorsync-<companyId>`): requested by a user, run by the
 * `vendors` process manager's job, completed by the job's own command.
 */
export const vendorSyncEvents = {
  VendorSyncRequested: {
    version: 1,
    schema: z.object({
      syncId: z.string(),
      companyId: z.number().int().positive(),
      limit: z.number().int().positive(),
      offset: z.number().int().min(0),
      at: z.string(),
    }),
  },
  VendorSyncCompleted: {
    version: 1,
    schema: z.object({
      syncId: z.string(),
      companyId: z.number().int().positive(),
      synced: z.number().int().min(0),
      failed: z.number().int().min(0),
      /** A failure of the whole sync (not connected, QuickBooks down): the message, else null. */
      error: z.string().nullable(),
      at: z.string(),
    }),
  },
} as const;

type SyncDefs = typeof vendorSyncEvents;
export type VendorSyncEvent = {
  [K in keyof SyncDefs]: { type: K; data: z.infer<SyncDefs[K]['schema']> };
}[keyof SyncDefs];

/**
 * A company's control on bank detail changes (stream `bankingcontrol-<companyId>`): on by default
 * (a company that never set it included); turned off or on by an ADMIN, on record with a reason.
 * `flagDays`: how long a change is flagged where money is decided.
 */
export const bankingControlEvents = {
  BankingChangeControlSet: {
    version: 1,
    schema: z.object({
      companyId: z.number().int().positive(),
      enabled: z.boolean(),
      flagDays: z.number().int().min(1).max(365),
      byUserId: z.number().int().positive(),
      reason: z.string(),
      at: z.string(),
    }),
  },
} as const;

type ControlDefs = typeof bankingControlEvents;
export type BankingControlEvent = {
  [K in keyof ControlDefs]: { type: K; data: z.infer<ControlDefs[K]['schema']> };
}[keyof ControlDefs];
