// The payments module's reads: the files the bank sent back, and what the bank did with an
// approval's entries (returned, corrected).
import type { InboundFileRow, PaymentEntryOutcome } from '../../schema/payments/answers.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';

export async function listInboundFiles(app: AppServices, actor: Actor | null): Promise<InboundFileRow[]> {
  authorize(actor, 'payments.read');
  const rows = await app.db
    .selectFrom('ach_inbound_files')
    .selectAll()
    .orderBy('received_at', 'desc')
    .limit(200)
    .execute();
  return rows.map((r) => ({
    fileId: r.file_id,
    fileName: r.file_name,
    source: r.source,
    status: r.status,
    returns: r.returns,
    corrections: r.corrections,
    applied: r.applied,
    alreadyApplied: r.already_applied,
    parked: r.parked,
    reasons: r.reasons,
    receivedAt: r.received_at.toISOString(),
    appliedAt: r.applied_at?.toISOString() ?? null,
  }));
}

/** The bank's answers on an approval's entries: only those it returned or corrected. */
export async function approvalEntryOutcomes(
  app: AppServices,
  approvalId: string,
): Promise<PaymentEntryOutcome[]> {
  const rows = await app.db
    .selectFrom('payment_entries')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .where((eb) => eb.or([eb('status', '=', 'returned'), eb('change_code', 'is not', null)]))
    .orderBy('trace_number')
    .execute();
  return rows.map((r) => ({
    traceNumber: r.trace_number,
    qbVendorId: r.qb_vendor_id,
    vendorName: r.vendor_name,
    amountCents: Number(r.amount_cents),
    accountLast4: r.account_last4,
    fileName: r.file_name,
    status: r.status,
    returnCode: r.return_code,
    returnDescription: r.return_description,
    returnedAt: r.returned_at?.toISOString() ?? null,
    changeCode: r.change_code,
    changeDescription: r.change_description,
    correctedAccountLast4: r.corrected_account_last4,
    correctionDueBy: r.correction_due_by,
  }));
}
