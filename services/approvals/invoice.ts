// GET /approvals/{id}/bills/{billId}/invoice: the bill's attachable (PDF) from QuickBooks.
import { Readable } from 'node:stream';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { AppError } from '../shared/errors.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { qbFailure } from './qb-bills.js';
import { parseApprovalId, requireRow } from './rows.js';

/** GET /approvals/{id}/bills/{billId}/invoice: the bill's attachable (PDF) from QuickBooks. */
export async function approvalInvoice(app: AppServices, actor: Actor | null, id: unknown, billId: unknown) {
  authorize(actor, 'approvals.read');
  const approvalId = parseApprovalId(id);
  const row = await requireRow(app, actor, approvalId);
  const { state } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
  const bill = state.bills.find((b) => b.Id === billId);
  if (!bill) throw new AppError('NOT_FOUND', 'This bill is not part of the approval');
  if (!bill.AttachableId) throw new AppError('NOT_FOUND', 'No invoice URL found for this bill');
  try {
    const { client, isSandbox, realmId, auth } = await app.quickbooks.access(
      row.company_id,
      commandContext(actor),
    );
    const file = await client.download(isSandbox, realmId, auth, bill.AttachableId);
    return {
      contentType: file.contentType,
      fileName: (bill.InvoiceFileName ?? `${bill.DocNumber ?? bill.Id}.pdf`).replace(/["\\\r\n]/g, '_'),
      body: Readable.fromWeb(file.body as never),
    };
  } catch (err) {
    qbFailure(err);
  }
}
