// What the payments module answers (REST's contracts; GraphQL types mirror them).
import { z } from 'zod';
import { ParkedEntry } from './events.js';

export const InboundFileOutcome = z.object({
  fileId: z.string().describe('sha256 of the file: the same file read twice is one file'),
  fileName: z.string(),
  appliedNow: z.boolean().describe('false: this very file was applied before, and nothing changed now'),
  returns: z.number().int(),
  corrections: z.number().int(),
  applied: z.number().int().describe('entries recorded now as returned or corrected'),
  alreadyApplied: z.number().int().describe('entries this file or an earlier one had already recorded'),
  parked: z.array(ParkedEntry).describe('entries that matched no Billflow entry, kept for a person'),
});

export const InboundFileRow = z.object({
  fileId: z.string(),
  fileName: z.string(),
  source: z.enum(['sftp', 'upload', 'cli']),
  status: z.enum(['received', 'applied', 'refused']),
  returns: z.number().int(),
  corrections: z.number().int(),
  applied: z.number().int().nullable(),
  alreadyApplied: z.number().int().nullable(),
  parked: z.array(ParkedEntry),
  reasons: z.array(z.string()),
  receivedAt: z.string(),
  appliedAt: z.string().nullable(),
});
export type InboundFileRow = z.infer<typeof InboundFileRow>;

/** An entry of an approval's file the bank returned or corrected, as the approval shows it. */
export const PaymentEntryOutcome = z.object({
  traceNumber: z.string(),
  qbVendorId: z.string(),
  vendorName: z.string(),
  amountCents: z.number().int(),
  accountLast4: z.string(),
  fileName: z.string(),
  status: z.enum(['sent', 'returned']),
  returnCode: z.string().nullable(),
  returnDescription: z.string().nullable(),
  returnedAt: z.string().nullable(),
  changeCode: z.string().nullable(),
  changeDescription: z.string().nullable(),
  correctedAccountLast4: z.string().nullable(),
  correctionDueBy: z.string().nullable(),
});
export type PaymentEntryOutcome = z.infer<typeof PaymentEntryOutcome>;
