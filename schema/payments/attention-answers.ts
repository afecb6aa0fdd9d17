// What the bank sent back that a person should act on: the notifications of change still open (the
// vendor's bank details not changed since; Nacha gives six banking days) and the recent returns,
// each with its company, approval and vendor. The bank files page shows them, the operations page
// counts them. REST's and GraphQL's contracts alike.
import { z } from 'zod';

/** How far back the page looks: corrections and returns received in the last 30 days. */
export const ATTENTION_DAYS = 30;

const NEW_YORK_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The instant's date in New York ('YYYY-MM-DD'): Nacha's deadlines are banking days, Eastern. */
export function newYorkDay(at: Date): string {
  return NEW_YORK_DAY.format(at);
}

const entryFields = {
  traceNumber: z.string(),
  companyId: z.number().int(),
  companyName: z.string().nullable().describe('Null once the company is gone from the read model'),
  approvalId: z.string(),
  qbVendorId: z.string(),
  /** The vendor's id in Billflow, for a link; null when the vendor is not (or no longer) on record. */
  vendorId: z.number().int().nullable(),
  vendorName: z.string(),
  amountCents: z.number().int(),
  accountLast4: z.string(),
  code: z.string().describe('Nacha code: R01… for a return, C01… for a notification of change'),
  description: z.string(),
  receivedAt: z.string().describe('When the bank file carrying it was read'),
};

/** A notification of change whose vendor's bank details have not changed since it arrived. */
export const OpenCorrection = z.object({
  ...entryFields,
  correctedAccountLast4: z.string().nullable(),
  correctedRoutingLast4: z.string().nullable(),
  dueBy: z.string().describe('The last banking day to make the change (YYYY-MM-DD, New York)'),
  overdue: z.boolean().describe('dueBy is before today in New York'),
});
export type OpenCorrection = z.infer<typeof OpenCorrection>;

/** An entry the bank returned: the vendor was not paid. */
export const RecentReturn = z.object(entryFields);
export type RecentReturn = z.infer<typeof RecentReturn>;

export const PaymentEntriesNeedingAttention = z.object({
  today: z.string().describe("Today's date in New York, against which dueBy is read"),
  lookbackDays: z.number().int(),
  corrections: z.array(OpenCorrection).describe('Overdue first, then by deadline'),
  returns: z.array(RecentReturn).describe('Newest first'),
});
export type PaymentEntriesNeedingAttention = z.infer<typeof PaymentEntriesNeedingAttention>;

/** The operations page's line on the bank: what waits on a person, counted. */
export const BankAttention = z.object({
  lookbackDays: z.number().int(),
  openCorrections: z.number().int().describe('Notifications of change still open'),
  overdueCorrections: z.number().int().describe('Of those, past their six banking days'),
  parkedEntries: z.number().int().describe('Entries of recent bank files that matched no Billflow entry'),
  returns: z.number().int().describe('Entries the bank returned in the period'),
  failedDeliveries: z
    .number()
    .int()
    .describe(
      'Approvals whose file the upload could not deliver, or the bank rejected, and that wait on a person',
    ),
});
export type BankAttention = z.infer<typeof BankAttention>;
