// What the approvals module does when the bank returns the entry that paid one of its vendors (the
// payments module's PaymentEntryReturned, on `achentry-<trace>`): it lets the vendor's bills go on
// the company's approvalbills stream so a new approval may take them, and voids the QuickBooks bill
// payments it had recorded for them, recorded on the entry (PaymentEntryQbVoided, through the kernel's
// achEntries port), so the books match the bank again. The approval's own stream and decider learn
// nothing of it (decision 0041): its status stays the milestone it reached. Each step is idempotent:
// the release frees only bills still held, and a payment already voided is taken as done.
import type { ReturnedEntry } from '../../app/ach-entries.js';
import type { CommandContext } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import { QbApiError, QbThrottledError } from '../../quickbooks/client.js';
import { AppError } from '../../shared/errors.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';
import { releaseBills } from '../release.js';
import { fileAtTheBank, type PaymentFile, type PaymentState } from './payment-decider.js';
import { voidBillPayment } from './qb-void.js';

/** The bills a returned entry paid: as the return names them, else its vendor's in the file. */
export function billsOfReturn(e: ReturnedEntry, files: readonly PaymentFile[]): string[] {
  if (e.bills) return e.bills.map((b) => b.billId);
  const file = files.find((f) => f.fileName === e.fileName);
  return file?.vendors.find((v) => v.qbVendorId === e.qbVendorId)?.billIds ?? [];
}

/** The bills of the file at the bank whose entries the bank returned (read from the entries now). */
export async function returnedBillIds(app: AppServices, payment: PaymentState): Promise<string[]> {
  const file = fileAtTheBank(payment);
  const traces = file?.vendors.flatMap((v) => (v.traceNumber ? [v.traceNumber] : [])) ?? [];
  if (traces.length === 0) return [];
  const answers = await app.achEntries.answers(traces);
  return [...answers.values()].flatMap((a) => (a.returned ? billsOfReturn(a.returned, payment.files) : []));
}

/** The return the payments module recorded for the entry; null when it has none. */
export async function returnedEntry(app: AppServices, traceNumber: string) {
  return (await app.achEntries.answers([traceNumber])).get(traceNumber) ?? { returned: null, voided: null };
}

/** Lets the returned entry's bills go, so a new approval may take them (once: only bills still held). */
export async function releaseReturnedBills(
  app: AppServices,
  input: { approvalId: string; traceNumber: string; commandId: string; ctx: CommandContext },
) {
  const { returned } = await returnedEntry(app, input.traceNumber);
  if (!returned) throw new AppError('NOT_FOUND', `No return is recorded for entry ${input.traceNumber}`);
  const { state } = await app.commands.load(approvalDecider, approvalStreamId(input.approvalId));
  const billIds = billsOfReturn(returned, state.payment.files);
  if (billIds.length > 0)
    await releaseBills(app, returned.companyId, [{ approvalId: input.approvalId, billIds }], 'returned', {
      ...input.ctx,
      commandId: input.commandId,
    });
  return { billIds };
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
 * Voids the QuickBooks payments of a returned entry's bills and records it on the entry. A QuickBooks
 * failure goes up (the job records it on the approval, PaymentJobFailed, and a retry voids what is left).
 */
export async function voidReturnedPayments(
  app: AppServices,
  input: { approvalId: string; traceNumber: string; commandId: string; ctx: CommandContext },
): Promise<VoidOutcome> {
  const { returned, voided } = await returnedEntry(app, input.traceNumber);
  if (!returned) throw new AppError('NOT_FOUND', `No return is recorded for entry ${input.traceNumber}`);
  if (voided) return { kind: 'done', voided: 0 };
  const { state } = await app.commands.load(approvalDecider, approvalStreamId(input.approvalId));
  const sync = state.payment.qbSync.status;
  if (sync === 'PENDING' || sync === 'SYNCING') return { kind: 'wait' };
  const recorded = await recordedPayments(app, input.approvalId);
  const toVoid = billsOfReturn(returned, state.payment.files).flatMap((billId) => {
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
          `QuickBooks payment ${p.billPaymentId} of bill ${p.docNumber ?? p.billId} (${returned.vendorName}) not voided: ${err.message}`,
          err.status,
          err.code,
        );
      throw err;
    }
  }
  await app.achEntries.recordQbVoids(
    input.traceNumber,
    toVoid.map((p) => ({
      billId: p.billId,
      docNumber: p.docNumber,
      billPaymentId: p.billPaymentId,
      amount: p.amount,
    })),
    { ...input.ctx, commandId: input.commandId },
  );
  return { kind: 'done', voided: toVoid.length };
}
