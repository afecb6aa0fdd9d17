// The approval detail's review of its vendors' banking (decision 0033): for an approved approval whose
// file is not at the bank yet, each approved vendor's bank details as approved beside the live ones
// (masked), and whether approve again has something to record. Read from the vendors' streams, as
// the file will be made from them.
import type { z } from 'zod';
import type { BankingReview } from '../../schema/approvals/answers.js';
import type { ApprovalStatus } from '../../schema/approvals/events.js';
import type { AppServices } from '../app/context.js';
import { maskTail } from '../shared/masking.js';
import type { ApprovalState } from './approval-decider.js';
import { liveBankingOf } from './payments/approved-banking.js';
import {
  CHANGE_FROZEN,
  CHANGE_PENDING,
  CHANGED_AFTER_APPROVAL,
  toApproveAgain,
  vendorsOfBills,
} from './payments/banking-holds.js';

type Review = z.infer<typeof BankingReview>;

/** Approved, with no file at the bank yet: what the file pays can still change. */
const REVIEWED: readonly ApprovalStatus[] = ['APPROVED', 'NACHA_PENDING', 'NACHA_GENERATED'];

export async function bankingReviewOf(
  app: AppServices,
  status: ApprovalStatus,
  state: ApprovalState,
): Promise<{ bankingReview: Review[] | null; bankingToApproveAgain: boolean | null }> {
  if (!REVIEWED.includes(status) || state.companyId === null)
    return { bankingReview: null, bankingToApproveAgain: false };
  const vendors = vendorsOfBills(state.bills, state.approvedBillIds);
  const live = await liveBankingOf(app, state.companyId, vendors);
  const approved = state.approvedBanking;
  const names = new Map(state.bills.map((b) => [b.VendorRef.value, b.VendorRef.name]));
  const review = vendors.map((qbVendorId): Review => {
    const l = live.get(qbVendorId)!;
    const a = approved && Object.hasOwn(approved, qbVendorId) ? approved[qbVendorId] : null;
    const name = l.name ?? names.get(qbVendorId) ?? `QuickBooks vendor ${qbVendorId}`;
    const liveAccount = maskTail(l.accountLast4, 8);
    const approvedAccount = maskTail(a?.accountLast4 ?? null, 8);
    const state: Review['state'] =
      l.change ??
      (approved === null ? 'not-recorded' : a?.fingerprint === l.fingerprint ? 'as-approved' : 'changed');
    const message =
      state === 'pending'
        ? `${name}: ${CHANGE_PENDING}`
        : state === 'frozen'
          ? `${name}: ${CHANGE_FROZEN}`
          : state === 'not-recorded'
            ? `${name}: approved before the bank details approved were recorded; the file pays them as they stand`
            : state === 'changed'
              ? l.fingerprint === null
                ? `${name}: no bank details now (${approvedAccount ?? 'none'} approved)`
                : `${name}: ${CHANGED_AFTER_APPROVAL} (${approvedAccount ?? 'no account'} approved, ${liveAccount} now)`
              : null;
    return {
      qbVendorId,
      vendorName: name,
      state,
      approvedRoutingNumber: maskTail(a?.routingLast4 ?? null, 9),
      approvedAccountNumber: approvedAccount,
      liveRoutingNumber: maskTail(l.routingLast4, 9),
      liveAccountNumber: liveAccount,
      message,
    };
  });
  return {
    bankingReview: review,
    bankingToApproveAgain: toApproveAgain(approved, [...live.values()]).length > 0,
  };
}
