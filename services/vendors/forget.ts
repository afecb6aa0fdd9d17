// Forgetting a vendor (ADMIN; personal data): its key goes, so its events can no longer be read.
import { vendorSubject } from '../../schema/vendors/events.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { AppError } from '../shared/errors.js';
import { vendorDecider, vendorStreamId } from './vendor-decider.js';
import { anyVendorRows, parseId } from './vendor-rows.js';

/**
 * Forgets a vendor for good (ADMIN): VendorForgotten on its stream, then its data key is deleted, so
 * the name, contacts and bank numbers in its events are unreadable from then on; the read model drops
 * it and a later sync does not bring it back. The vendors process manager deletes the key again on the
 * event (a crash between the two steps); every step is idempotent.
 */
export async function forgetVendor(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'vendors.forget');
  // A deleted company's vendor can still be forgotten: erasure outlives the company.
  const row = await anyVendorRows(app).where('v.id', '=', parseId(id)).executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND', 'Vendor not found');
  const result = await app.commands.handle(
    vendorDecider,
    vendorStreamId(row.company_id, row.qb_vendor_id),
    { type: 'ForgetVendor', now: new Date().toISOString() },
    commandContext(actor),
  );
  await app.subjectKeys.forget(vendorSubject(row.id));
  await awaitProjections(app, result.position, ['vendors']);
}
