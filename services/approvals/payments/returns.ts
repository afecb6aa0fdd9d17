// What the approval does when the bank returns the entry that paid one of its vendors (the payments
// module's PaymentEntryReturned): it records the return (PaymentReturnRecorded), lets the vendor's
// bills go on the company's approvalbills stream so a new approval may take them, and voids the
// QuickBooks bill payments it had recorded for them (QbBillPaymentVoided), so the books match the
// bank again: the bills are open there as they are in fact. Each step is idempotent: the return is
// recorded once per trace, the release frees only bills still held, and a payment already voided is
// taken as done.
import { paymentsEvents } from '../../../schema/payments/events.js';
import type { CommandContext } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import { QbApiError, QbThrottledError } from '../../quickbooks/client.js';
import { eventDecoder } from '../../shared/decider.js';
import { AppError } from '../../shared/errors.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';
import { releaseBills } from '../release.js';
import type { ReturnedEntry } from './payment-decider.js';
import { voidBillPayment } from './qb-void.js';

const decodeEntry = eventDecoder(paymentsEvents);

/** The payments module's stream of one entry (schema/payments/events.ts: `achentry-<trace>`). */
const entryStreamOf = (traceNumber: string) => `achentry-${traceNumber}`;

/** The return the payments module recorded for the entry; null when it has none. */
export async function returnedEntry(app: AppServices, traceNumber: string): Promise<ReturnedEntry | null> {
  const { events } = await app.store.readStream(entryStreamOf(traceNumber));
  for (const stored of events ?? []) {
    if (stored.type !== 'PaymentEntryReturned') continue;
    const e = decodeEntry(stored, { sealed: 'absent' });
    if (e.type === 'PaymentEntryReturned') return e.data;
  }
  return null;
}

/**
 * Records the bank's return of the entry on its approval and frees the vendor's bills. `commandId`
 * gives each of the two commands its own id (the job's id and a part), so a run again appends nothing.
 */
export async function recordPaymentReturn(
  app: AppServices,
  input: {
    approvalId: string;
    traceNumber: string;
    commandId: (part: string) => string;
    ctx: CommandContext;
  },
) {
  const entry = await returnedEntry(app, input.traceNumber);
  if (!entry) throw new AppError('NOT_FOUND', `No return is recorded for entry ${input.traceNumber}`);
  const streamId = approvalStreamId(input.approvalId);
  const { state } = await app.commands.load(approvalDecider, streamId);
  const docNumbers = Object.fromEntries(state.bills.map((b) => [b.Id, b.DocNumber || null]));
  const r = await app.commands.handle(
    approvalDecider,
    streamId,
    { type: 'RecordPaymentReturn', entry, docNumbers, now: new Date().toISOString() },
    { ...input.ctx, commandId: input.commandId('record') },
  );
  const recorded = r.state.payment.returns[input.traceNumber];
  if (recorded && recorded.billIds.length > 0)
    await releaseBills(
      app,
      entry.companyId,
      [{ approvalId: input.approvalId, billIds: recorded.billIds }],
      'returned',
      { ...input.ctx, commandId: input.commandId('release') },
    );
  return { recorded: r.events.length > 0, billIds: recorded?.billIds ?? [] };
}

/** The QuickBooks payment recorded for each bill (the latest QbBillPaid of it). */
async function recordedPayments(app: AppServices, approvalId: string) {
  const { events } = await app.store.readStream(approvalStreamId(approvalId));
  const out = new Map<string, { billPaymentId: string; amount: number; docNumber: string | null }>();
  for (const e of events) {
    if (e.type !== 'QbBillPaid') continue;
    const d = e.data as { billId: string; billPaymentId: string; amount: number; docNumber: string | null };
    out.set(d.billId, { billPaymentId: d.billPaymentId, amount: d.amount, docNumber: d.docNumber });
  }
  return out;
}

export type VoidOutcome =
  | { kind: 'done'; voided: number }
  | { kind: 'nothing-to-void' }
  /** A QuickBooks run is paying bills now: the void waits for it to end (it may pay a returned bill). */
  | { kind: 'wait' };

/**
 * Voids the QuickBooks payments of a returned entry's bills and records it. A QuickBooks failure goes
 * up (the job records it on the approval, PaymentJobFailed, and a retry voids what is left).
 */
export async function voidReturnedPayments(
  app: AppServices,
  input: { approvalId: string; traceNumber: string; commandId: string; ctx: CommandContext },
): Promise<VoidOutcome> {
  const streamId = approvalStreamId(input.approvalId);
  const { state } = await app.commands.load(approvalDecider, streamId);
  const r = state.payment.returns[input.traceNumber];
  if (!r) throw new AppError('NOT_FOUND', `No return of entry ${input.traceNumber} on this approval`);
  if (r.voided) return { kind: 'done', voided: 0 };
  const sync = state.payment.qbSync.status;
  if (sync === 'PENDING' || sync === 'SYNCING') return { kind: 'wait' };
  const recorded = await recordedPayments(app, input.approvalId);
  const toVoid = r.billIds.flatMap((billId) => {
    const p = recorded.get(billId);
    return p ? [{ billId, ...p }] : [];
  });
  if (toVoid.length === 0) return { kind: 'nothing-to-void' };
  const access = await app.quickbooks.access(state.companyId!, input.ctx);
  for (const p of toVoid) {
    try {
      await voidBillPayment(app, access, p.billPaymentId);
    } catch (err) {
      if (err instanceof QbThrottledError) throw err;
      if (err instanceof QbApiError)
        throw new QbApiError(
          `QuickBooks payment ${p.billPaymentId} of bill ${p.docNumber ?? p.billId} (${r.vendorName}) not voided: ${err.message}`,
          err.status,
          err.code,
        );
      throw err;
    }
  }
  await app.commands.handle(
    approvalDecider,
    streamId,
    {
      type: 'RecordQbVoids',
      traceNumber: input.traceNumber,
      bills: toVoid.map((p) => ({
        billId: p.billId,
        docNumber: p.docNumber,
        billPaymentId: p.billPaymentId,
        amount: p.amount,
      })),
      now: new Date().toISOString(),
    },
    { ...input.ctx, commandId: input.commandId },
  );
  return { kind: 'done', voided: toVoid.length };
}
