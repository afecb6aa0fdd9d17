// The vendor's side of each change as the answers show it (read model vendor_banking_verifications):
// the notice to the contact on record, and the latest micro-deposit verification, never its amounts.
import type { Selectable } from 'kysely';
import type { BankingVerificationsTable } from '../../projections/vendors/tables.js';
import type { MicroDeposits } from '../../schema/vendors/answers.js';
import type { AppServices } from '../app/context.js';

export type VerificationRow = Selectable<BankingVerificationsTable>;

/** The read model's row of each of these changes (those with one). */
export async function verificationsOf(
  app: AppServices,
  changeIds: string[],
): Promise<Map<string, VerificationRow>> {
  if (changeIds.length === 0) return new Map();
  const rows = await app.db
    .selectFrom('vendor_banking_verifications')
    .selectAll()
    .where('change_id', 'in', changeIds)
    .execute();
  return new Map(rows.map((r) => [r.change_id, r]));
}

/** Where staff download a verification's file. */
export const microDepositFileUrl = (vendorId: number, changeId: string) =>
  `/api/vendors/${vendorId}/banking-changes/${encodeURIComponent(changeId)}/micro-deposits/file`;

export function microDepositsAnswer(
  v: VerificationRow | undefined,
  names: ReadonlyMap<number, string>,
): MicroDeposits | null {
  if (!v?.verification_id || !v.md_status) return null;
  const by = v.md_started_by ?? 0;
  return {
    verificationId: v.verification_id,
    status: v.md_status,
    triesLeft: v.md_tries_left ?? 0,
    fileName: v.md_file_name ?? '',
    effectiveDate: v.md_effective_date ?? '',
    sentAt: (v.md_sent_at ?? new Date(0)).toISOString(),
    expiresAt: (v.md_expires_at ?? new Date(0)).toISOString(),
    startedById: by,
    startedByName: names.get(by) ?? null,
    fileUrl: microDepositFileUrl(v.vendor_id, v.change_id),
    linkUndelivered: v.md_link_undelivered,
  };
}

/** Who must act, with where the vendor's micro-deposits stand. */
export function awaitingWithMicroDeposits(awaiting: string | null, md: MicroDeposits | null): string | null {
  if (!awaiting || !md) return awaiting;
  if (md.status === 'locked')
    return `${awaiting.replace(/, or the vendor confirm the micro-deposits$/, '')}; the micro-deposit check is locked after too many wrong amounts (a new one may be started)`;
  if (md.status === 'sent' && md.linkUndelivered)
    return `${awaiting} (sent, but the e-mail with the vendor’s link was not delivered)`;
  if (md.status === 'sent')
    return `${awaiting} (sent; ${md.triesLeft} ${md.triesLeft === 1 ? 'try' : 'tries'} left)`;
  return awaiting;
}
