// A vendor sync from QuickBooks: the request, recorded on the company's sync stream (the
// `vendors` process manager queues the job: workers/vendors/sync-job.ts runs sync-run.ts), and its
// status as the screen reads it.
import { randomUUID } from 'node:crypto';
import type { VendorSync } from '../../schema/vendors/answers.js';
import { VendorSyncInput } from '../../schema/vendors/commands.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { AppServices } from '../app/context.js';
import { companyScope, inScope, requireCompanyInScope } from '../app/staff-scope.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { AppError, parseInput } from '../shared/errors.js';
import { joinedSync, vendorSyncDecider } from './vendor-sync-decider.js';

// The answer is written once in schema/vendors/answers.ts; this name stays for its users.
export type VendorSyncDto = VendorSync;

/** POST /api/vendors/sync: records the request; the `vendors` process manager queues the job. */
export async function requestVendorSync(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
): Promise<VendorSyncDto> {
  authorize(actor, 'vendors.write');
  const { companyId, limit, offset } = parseInput(VendorSyncInput, input);
  const company = await app.db
    .selectFrom('companies')
    .select(['id', 'qb_realm_id', 'qb_connection_status'])
    .where('id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!company) throw new AppError('NOT_FOUND', 'Company not found');
  await requireCompanyInScope(app, actor, companyId);
  if (!company.qb_realm_id || company.qb_connection_status === 'disconnected')
    throw new AppError('CONFLICT', 'This company is not connected to QuickBooks');
  const syncId = randomUUID();
  const now = new Date().toISOString();
  const r = await app.commands.handle(
    vendorSyncDecider,
    vendorSyncDecider.streamId(companyId),
    { type: 'RequestVendorSync', syncId, companyId, limit, offset, now },
    commandContext(actor),
  );
  // The same sync is queued or running: this request joins it (one job, one realm budget).
  const joined = r.events.length === 0 ? joinedSync(r.state, limit, offset, now) : null;
  const id = joined ?? syncId;
  const position = joined ? await app.store.headPosition() : r.position;
  return answerAfterWrite(app, position, ['vendor_syncs'], () => findSync(app, id));
}

async function findSync(app: AppServices, syncId: string): Promise<VendorSyncDto | null> {
  const r = await app.db.selectFrom('vendor_syncs').selectAll().where('id', '=', syncId).executeTakeFirst();
  if (!r) return null;
  return {
    syncId: r.id,
    companyId: r.company_id,
    status: r.status,
    synced: r.synced,
    failed: r.failed,
    error: r.error,
    requestedAt: r.requested_at.toISOString(),
    completedAt: r.completed_at?.toISOString() ?? null,
  };
}

export async function getVendorSync(
  app: AppServices,
  actor: Actor | null,
  syncId: unknown,
): Promise<VendorSyncDto> {
  authorize(actor, 'vendors.read');
  const id = typeof syncId === 'string' && /^[0-9a-f-]{36}$/.test(syncId) ? syncId : null;
  const sync = id ? await findSync(app, id) : null;
  if (!sync || !inScope(await companyScope(app, actor), sync.companyId))
    throw new AppError('NOT_FOUND', 'Vendor sync not found');
  return sync;
}
