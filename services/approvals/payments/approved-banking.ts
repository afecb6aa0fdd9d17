// The banking an approver is shown, as an approval records it (decision 0033): per vendor a
// fingerprint of routing number, account number and type — an HMAC keyed from the company's data key,
// never the numbers, and no plain hash either: the routing and account space is small enough to try,
// and without the key nobody can test a guess against it — with the tails the screens show. The
// company's key is kept wrapped in subject_keys: a key rotation leaves every fingerprint valid, and
// forgetting the company leaves them meaning nothing.
import { createHmac, hkdfSync } from 'node:crypto';
import { companySubject } from '../../../schema/companies/events.js';
import { shownTail } from '../../../schema/shared/masking.js';
import type { AppServices } from '../../app/context.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from '../approval-decider.js';
import { type LiveBanking, vendorsOfBills } from './banking-holds.js';
import { type Banking, vendorOf } from './nacha-sources.js';

/** The company's fingerprint key, derived from its data key (kept a while beside it by SubjectKeys). */
export async function fingerprintKey(
  app: Pick<AppServices, 'subjectKeys'>,
  companyId: number,
): Promise<Buffer> {
  const dataKey = await app.subjectKeys.getOrCreate(companySubject(companyId));
  return Buffer.from(hkdfSync('sha256', dataKey, 'billflow', 'approved banking: fingerprint', 32));
}

/** The fingerprint of one vendor's banking under the company's key (the vendor's id bound in). */
export function bankingFingerprint(key: Buffer, qbVendorId: string, b: Banking): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([qbVendorId, b.routingNumber.trim(), b.accountNumber.trim(), b.accountType]))
    .digest('base64url');
}

/** One vendor's live banking as a file would pay it, with its name as Billflow knows it. */
export interface LiveVendorBanking extends LiveBanking {
  name: string | null;
}

/**
 * The live banking of these vendors of the company, from their streams (opened): fingerprint and
 * tails, a change pending or frozen; a vendor not synced, forgotten or without banking has none.
 */
export async function liveBankingOf(
  app: AppServices,
  companyId: number,
  qbVendorIds: readonly string[],
): Promise<Map<string, LiveVendorBanking>> {
  const wanted = [...new Set(qbVendorIds)];
  if (wanted.length === 0) return new Map();
  const [key, folds] = await Promise.all([
    fingerprintKey(app, companyId),
    Promise.all(wanted.map((id) => vendorOf(app, companyId, id))),
  ]);
  return new Map(
    wanted.map((qbVendorId, i) => {
      const v = folds[i];
      const b = v.banking;
      return [
        qbVendorId,
        {
          qbVendorId,
          name: v.name,
          fingerprint: b ? bankingFingerprint(key, qbVendorId, b) : null,
          routingLast4: b ? shownTail(b.routingNumber) : null,
          accountLast4: b ? shownTail(b.accountNumber) : null,
          change: v.change === null ? null : v.change.frozen ? 'frozen' : 'pending',
        },
      ];
    }),
  );
}

/**
 * The approval's vendors (its bills' QuickBooks vendors): the read model's copy, or, on a row from
 * before it was kept (a table the rebuild has not replaced yet), the stream's. Bills never change once
 * an approval is made, so a state this process remembers is as good as a read.
 */
export async function vendorsOfApproval(
  app: AppServices,
  row: { id: string; vendor_qb_ids: string[] | null },
): Promise<string[]> {
  if (row.vendor_qb_ids && row.vendor_qb_ids.length > 0) return row.vendor_qb_ids;
  const streamId = approvalStreamId(row.id);
  const state =
    app.commands.rememberedState<ApprovalState>(streamId) ??
    (await app.commands.load(approvalDecider, streamId)).state;
  return vendorsOfBills(state.bills);
}

/** Live banking as an approval records it (without the change). */
export const asApproved = ({ qbVendorId, fingerprint, routingLast4, accountLast4 }: LiveBanking) => ({
  qbVendorId,
  fingerprint,
  routingLast4,
  accountLast4,
});
