// A vendor's remittance advice: the e-mail that tells it what it was paid when a file paying it goes
// to the bank (services/payments/remittance.ts sends it). On unless ADMIN or MODERATOR turn it off on
// the vendor's page; each change is an event on the vendor's stream, so its history says who and when.
import { RemittanceAdviceInput } from '../../schema/vendors/commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { vendorDecider, vendorStreamId } from './vendor-decider.js';
import { answer, parseId, requireChangeableVendor, type VendorDto } from './vendor-rows.js';

export async function setVendorRemittanceAdvice(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<VendorDto> {
  authorize(actor, 'vendors.write');
  const vendorId = parseId(id);
  const { enabled } = parseInput(RemittanceAdviceInput, input);
  const row = await requireChangeableVendor(app, actor, vendorId);
  const r = await app.commands.handle(
    vendorDecider,
    vendorStreamId(row.company_id, row.qb_vendor_id),
    { type: 'SetRemittanceAdvice', enabled, byUserId: actor.id, now: new Date().toISOString() },
    commandContext(actor),
  );
  return answer(app, vendorId, r.position);
}
