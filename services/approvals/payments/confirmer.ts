// Who confirms a payment step, and the checks a confirmation passes: a link's own rules (its action,
// its expiry, its recipient still on the approval, the file version it was sent for), a staff
// member's reason, or the system's delivery of the file over SFTP.
import type { LinkAction } from '../../../schema/approvals/payment-events.js';
import { DomainError } from '../../shared/domain-errors.js';
import type { PaymentSlice } from './payment-state.js';
import { REASON_LENGTH, reasonFits } from './step-reason.js';

/**
 * A signed-in staff member, or an e-mail link whose signature the caller has checked. `manager` is
 * the address of the approval's manager now (null: none, or none with an address), which the caller
 * reads: the approval holds only the manager's id. `reason`: why staff confirm in place of the
 * link's recipients; the app's confirmation always gives one (step-actions.ts), the demo seeding
 * does not.
 */
export type Confirmer =
  | { byUserId: number; link: null; reason?: string; delivery?: undefined }
  | {
      byUserId: number | null;
      link: { linkId: string; recipient: string; manager: string | null };
      reason?: undefined;
      delivery?: undefined;
    }
  /** The system delivered the file over SFTP (services/payments/delivery.ts): the bank has this version. */
  | {
      byUserId: null;
      link: null;
      reason?: undefined;
      delivery: { fileVersion: number; fileName: string; size: number; sha256: string };
    };

const sameAddress = (a: string) => (b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function checkLink(
  state: PaymentSlice,
  link: { linkId: string; manager: string | null },
  action: LinkAction,
  now: string,
) {
  const l = state.payment.links[link.linkId];
  if (!l) throw new DomainError('FORBIDDEN', 'This link is not valid for this approval');
  if (l.action !== action) throw new DomainError('FORBIDDEN', 'This link is for another action');
  if (l.used) throw new DomainError('FORBIDDEN', 'This link has already been used');
  if (now >= l.expiresAt) throw new DomainError('FORBIDDEN', 'This link has expired');
  // A link is its recipient's while they are on the approval: removing a recipient (or the manager
  // changing) ends the links sent to that address.
  const holder = sameAddress(l.recipient);
  if (!state.recipients.some(holder) && !(link.manager !== null && holder(link.manager)))
    throw new DomainError(
      'FORBIDDEN',
      'This link no longer works: its recipient is no longer a recipient of this approval',
    );
  if (l.fileVersion !== state.payment.nachaVersion)
    throw new DomainError(
      'FORBIDDEN',
      'This link was replaced: the NACHA file was regenerated after it was sent',
    );
}

export const confirmedBy = (c: Confirmer) => {
  if (c.link === null && c.reason !== undefined && !reasonFits(c.reason))
    throw new DomainError('VALIDATION', REASON_LENGTH);
  return {
    byUserId: c.byUserId,
    linkId: c.link?.linkId ?? null,
    recipient: c.link?.recipient ?? null,
    ...(c.link === null && c.reason !== undefined ? { reason: c.reason } : {}),
  };
};
