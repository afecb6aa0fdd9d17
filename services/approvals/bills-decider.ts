// The company's bills in approvals as a decider (stream `approvalbills-<companyId>`): which
// of its bills are in an open approval (at most one), and the fingerprints (vendor, amount, document
// number) the duplicate guard compares. Pure: times come on the command.
import type { ApprovalBillsEvent, ConfirmedDuplicate } from '../../schema/approvals/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

/** What the duplicate guard compares: the same vendor, amount and document number. */
export function billFingerprint(bill: { vendorId: string; amount: number; docNumber: string | null }) {
  return `${bill.vendorId}|${bill.amount.toFixed(2)}|${(bill.docNumber ?? '').trim().toLowerCase()}`;
}

export interface ApprovalBillsState {
  /** bill id → the open approval holding it. */
  open: ReadonlyMap<string, string>;
  /** fingerprint → the bills (and their approvals) ever put in an approval not deleted since. */
  seen: ReadonlyMap<string, ReadonlyArray<{ billId: string; approvalId: string }>>;
}

export type ApprovalBillsCommand =
  | {
      type: 'ClaimBills';
      companyId: number;
      approvalId: string;
      bills: Array<{ billId: string; fingerprint: string }>;
      /** Bills of this claim that look like a bill (other id) already paid in QuickBooks. */
      paidLookalikes?: ReadonlyArray<{ billId: string; matchesBillId: string }>;
      confirmDuplicates: readonly string[];
      now: string;
    }
  | {
      type: 'ReleaseBills';
      companyId: number;
      /** One release per approval: a bulk reject releases many approvals in one append. */
      releases: Array<{ approvalId: string; billIds: string[] }>;
      reason: 'rejected' | 'expired' | 'deleted' | 'not-approved' | 'abandoned' | 'returned';
      now: string;
    };

export const BILL_IN_OPEN_APPROVAL = 'is already in an open approval';

/** A refusal of the duplicate guard: which bills look like which, so the screen can ask to confirm. */
export class DuplicateBillsError extends DomainError {
  constructor(public readonly duplicates: ConfirmedDuplicate[]) {
    super(
      'CONFLICT',
      `Possible duplicate bills: ${duplicates
        .map(
          (d) =>
            `bill ${d.billId} matches ${d.paid ? 'paid ' : ''}bill ${d.matchesBillId} (same vendor, amount and document number)`,
        )
        .join('; ')}. Confirm them (confirmDuplicates) to go ahead.`,
    );
  }
}

/** The bills of a list that look like a bill (other id) already in an approval. */
export function findDuplicates(
  state: ApprovalBillsState,
  bills: ReadonlyArray<{ billId: string; fingerprint: string }>,
): ConfirmedDuplicate[] {
  const out: ConfirmedDuplicate[] = [];
  for (const b of bills) {
    const match = (state.seen.get(b.fingerprint) ?? []).find((s) => s.billId !== b.billId);
    if (match)
      out.push({
        billId: b.billId,
        matchesBillId: match.billId,
        matchesApprovalId: match.approvalId,
        paid: false,
      });
  }
  return out;
}

export const approvalBillsDecider = {
  initialState: (): ApprovalBillsState => ({ open: new Map(), seen: new Map() }),
  evolve(state: ApprovalBillsState, event: ApprovalBillsEvent): ApprovalBillsState {
    switch (event.type) {
      case 'ApprovalBillsClaimed': {
        const open = new Map(state.open);
        const seen = new Map(state.seen);
        for (const b of event.data.bills) {
          open.set(b.billId, event.data.approvalId);
          seen.set(b.fingerprint, [
            ...(seen.get(b.fingerprint) ?? []),
            { billId: b.billId, approvalId: event.data.approvalId },
          ]);
        }
        return { open, seen };
      }
      case 'ApprovalBillsReleased': {
        const { approvalId, billIds, forget } = event.data;
        const open = new Map(state.open);
        for (const id of billIds) if (open.get(id) === approvalId) open.delete(id);
        if (!forget) return { open, seen: state.seen };
        const seen = new Map<string, ReadonlyArray<{ billId: string; approvalId: string }>>();
        for (const [fp, list] of state.seen) {
          const kept = list.filter((s) => s.approvalId !== approvalId);
          if (kept.length > 0) seen.set(fp, kept);
        }
        return { open, seen };
      }
    }
  },
  decide(command: ApprovalBillsCommand, state: ApprovalBillsState): ApprovalBillsEvent[] {
    if (command.type === 'ClaimBills') {
      const { companyId, approvalId, bills, now } = command;
      // The same approval claiming again (a retried request): nothing new.
      if (bills.every((b) => state.open.get(b.billId) === approvalId)) return [];
      const taken = bills.filter((b) => {
        const holder = state.open.get(b.billId);
        return holder !== undefined && holder !== approvalId;
      });
      if (taken.length > 0)
        throw new DomainError(
          'CONFLICT',
          `${taken.length === 1 ? `Bill ${taken[0].billId}` : `Bills ${taken.map((b) => b.billId).join(', ')}`} ${taken.length === 1 ? BILL_IN_OPEN_APPROVAL : 'are already in an open approval'}`,
        );
      const duplicates = findDuplicates(state, bills);
      for (const p of command.paidLookalikes ?? [])
        if (!duplicates.some((d) => d.billId === p.billId))
          duplicates.push({
            billId: p.billId,
            matchesBillId: p.matchesBillId,
            matchesApprovalId: null,
            paid: true,
          });
      const unconfirmed = duplicates.filter((d) => !command.confirmDuplicates.includes(d.billId));
      if (unconfirmed.length > 0) throw new DuplicateBillsError(unconfirmed);
      return [
        {
          type: 'ApprovalBillsClaimed',
          data: { companyId, approvalId, bills, confirmedDuplicates: duplicates, at: now },
        },
      ];
    }
    const events: ApprovalBillsEvent[] = [];
    for (const r of command.releases) {
      const held = r.billIds.filter((id) => state.open.get(id) === r.approvalId);
      const forget = command.reason === 'deleted' || command.reason === 'abandoned';
      // A deleted approval's bills leave the duplicate guard too, even when already released.
      const known =
        forget && [...state.seen.values()].some((l) => l.some((s) => s.approvalId === r.approvalId));
      if (held.length === 0 && !known) continue;
      events.push({
        type: 'ApprovalBillsReleased',
        data: {
          companyId: command.companyId,
          approvalId: r.approvalId,
          billIds: held.length > 0 ? held : r.billIds,
          reason: command.reason,
          forget,
          at: command.now,
        },
      });
    }
    return events;
  },
  streamId: (companyId: number) => `approvalbills-${companyId}`,
} satisfies Decider<ApprovalBillsState, ApprovalBillsCommand, ApprovalBillsEvent>;
