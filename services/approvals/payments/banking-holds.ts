// Which vendors a file may pay as approved (docs/decisions/0033-approved-banking.md). Approving records,
// per vendor of the approved bills, the banking the approver was shown as a keyed fingerprint
// (approved-banking.ts); at generation a vendor whose live banking has another fingerprint, or has a
// change pending or frozen, is held out of the file, named, until someone approves again. Pure: the
// live banking comes in.
import type { ApprovedBanking, BillSnapshot } from '../../../schema/approvals/events.js';

/** A vendor's live banking as a file would pay it, and whether a change of it waits. */
export interface LiveBanking extends ApprovedBanking {
  /** A change waiting for a second look ('pending'), or reported by the vendor's contact as not theirs ('frozen'). */
  change: 'pending' | 'frozen' | null;
}

/** The banking the file may pay, by QuickBooks vendor id; null: approved before it was recorded. */
export type ApprovedBankingMap = Readonly<Record<string, ApprovedBanking>> | null;

export const CHANGED_AFTER_APPROVAL = 'bank details changed after approval: approve again';
export const CHANGE_PENDING =
  "bank details change pending: held until an ADMIN or MODERATOR other than its maker approves or rejects it on the vendor's page, or the vendor confirms the micro-deposits";
export const CHANGE_FROZEN =
  "bank details change reported by the vendor's contact as not theirs: held until an ADMIN or MODERATOR rejects it on the vendor's page";

/** The vendors of these bills (of `billIds` only, when given), once each, in the bills' order. */
export function vendorsOfBills(
  bills: ReadonlyArray<Pick<BillSnapshot, 'Id' | 'VendorRef'>>,
  billIds?: readonly string[],
): string[] {
  const wanted = billIds ? new Set(billIds) : null;
  return [...new Set(bills.filter((b) => !wanted || wanted.has(b.Id)).map((b) => b.VendorRef.value))];
}

/** Each of these vendors as the approver was shown it; a vendor not shown is recorded without banking. */
export function recordedBanking(
  shown: readonly ApprovedBanking[],
  vendorIds: readonly string[],
): ApprovedBanking[] {
  const byVendor = new Map(shown.map((b) => [b.qbVendorId, b]));
  return vendorIds.map(
    (qbVendorId) =>
      byVendor.get(qbVendorId) ?? { qbVendorId, fingerprint: null, routingLast4: null, accountLast4: null },
  );
}

/**
 * The completing approval of two: a vendor's banking that changed after the first approver saw it
 * stays as the first approver saw it, so the file holds that vendor out until it is approved again.
 */
export function completedBanking(
  now: readonly ApprovedBanking[],
  first: readonly ApprovedBanking[] | null,
): ApprovedBanking[] {
  const seenFirst = new Map((first ?? []).map((b) => [b.qbVendorId, b]));
  return now.map((b) => {
    const f = seenFirst.get(b.qbVendorId);
    return f && f.fingerprint !== b.fingerprint ? f : b;
  });
}

export const bankingMap = (list: readonly ApprovedBanking[]): Record<string, ApprovedBanking> =>
  Object.fromEntries(list.map((b) => [b.qbVendorId, b]));

/**
 * Why a vendor with live banking is held out of a file, or null. An approval made before the banking
 * approved was recorded pays the banking as it stands, but a pending or frozen change holds it all the same.
 */
export function bankingHold(approved: ApprovedBankingMap, live: LiveBanking): string | null {
  if (live.change === 'frozen') return CHANGE_FROZEN;
  if (live.change === 'pending') return CHANGE_PENDING;
  if (approved === null) return null;
  const seen = Object.hasOwn(approved, live.qbVendorId) ? approved[live.qbVendorId] : undefined;
  return seen?.fingerprint === live.fingerprint ? null : CHANGED_AFTER_APPROVAL;
}

/** The vendors approve again would record: of those approved, with live banking whose fingerprint is another. */
export function toApproveAgain(
  approved: ApprovedBankingMap,
  live: readonly ApprovedBanking[],
): ApprovedBanking[] {
  if (approved === null) return [];
  return live.filter(
    (l) =>
      l.fingerprint !== null &&
      Object.hasOwn(approved, l.qbVendorId) &&
      approved[l.qbVendorId].fingerprint !== l.fingerprint,
  );
}
