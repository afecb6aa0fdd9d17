// The payments module's reads: the files the bank sent back (an approval's entries are read by its
// detail, services/approvals/detail.ts).
import type { InboundFileRow } from '../../schema/payments/answers.js';
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
