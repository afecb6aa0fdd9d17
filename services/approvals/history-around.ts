// What happened around an approval on other streams, as history steps (pure): the company's approval
// policy in force when it was created and each change while it waited for a decision (the policy only
// bears on approving), and its vendors' banking unmasked (shown in full, or exported to CSV) or the
// vendor forgotten, from its creation until it closed. Vendor streams are found from the bills the
// approval snapshotted, so a vendor forgotten (gone from the vendors read model) still counts.
import { approvalPolicyEvents } from '../../schema/approvals/events.js';
import { vendorEvents } from '../../schema/vendors/events.js';
import type { StoredEvent } from '../eventstore/port.js';
import { eventDecoder } from '../shared/decider.js';
import { approvalDecider } from './approval-decider.js';
import {
  type ApprovalHistoryEntry,
  actorOf,
  approvalEventOf,
  changesBetween,
  type HistoryNames,
  historyMoney,
  placeOf,
} from './history-steps.js';

const decodePolicy = eventDecoder(approvalPolicyEvents);
const decodeVendor = eventDecoder(vendorEvents);

export const policyStreamOf = (companyId: number) => `approvalpolicy-${companyId}`;
/** A vendor's stream (services/vendors/vendor-decider.ts names it so). */
export const vendorStreamOf = (companyId: number, qbVendorId: string) => `vendor-${companyId}-${qbVendorId}`;

/** The approval's company and vendors (by their streams, with the names its bills gave them). */
export function approvalSubjects(
  events: readonly StoredEvent[],
): { companyId: number; vendors: Map<string, string> } | null {
  const created = events.find((e) => e.type === 'ApprovalCreated');
  const e = created ? approvalEventOf(created) : null;
  if (e?.type !== 'ApprovalCreated') return null;
  const vendors = new Map<string, string>();
  for (const b of e.data.bills)
    vendors.set(
      vendorStreamOf(e.data.companyId, b.VendorRef.value),
      b.VendorRef.name ?? b.VendorInfo.CompanyName ?? `Vendor ${b.VendorRef.value}`,
    );
  return { companyId: e.data.companyId, vendors };
}

/** Where the approval's life bears on others: created, decided (left PENDING), closed. */
export interface ApprovalWindow {
  created: string;
  /** Approved, rejected, expired or deleted; null while PENDING. */
  decided: string | null;
  /** Nothing more can happen to it (rejected, expired, deleted, paid and synced); null while open. */
  closed: string | null;
}

const SYNC_DONE = new Set(['SUCCESS', 'SKIPPED']);

export function windowOf(events: readonly StoredEvent[]): ApprovalWindow | null {
  let state = approvalDecider.initialState();
  let created: string | null = null;
  let decided: string | null = null;
  let closed: string | null = null;
  for (const stored of events) {
    const e = approvalEventOf(stored);
    if (!e) continue;
    state = approvalDecider.evolve(state, e);
    if (e.type === 'ApprovalCreated') created ??= stored.position;
    if (decided === null && (state.deleted || (state.status !== null && state.status !== 'PENDING')))
      decided = stored.position;
    const final =
      state.deleted ||
      state.status === 'REJECTED' ||
      state.status === 'EXPIRED' ||
      (state.status === 'PAYMENT_COMPLETED' && SYNC_DONE.has(state.payment.qbSync.status ?? ''));
    closed = final ? stored.position : null;
  }
  return created === null ? null : { created, decided, closed };
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const policyFields = (p: {
  creatorMayNotApprove: boolean;
  secondApprovalThreshold: number | null;
  assignedStaffOnly?: boolean;
}) => ({
  creatorMayNotApprove: yesNo(p.creatorMayNotApprove),
  secondApprovalThreshold:
    p.secondApprovalThreshold === null ? null : historyMoney(p.secondApprovalThreshold),
  assignedStaffOnly: yesNo(p.assignedStaffOnly ?? true),
});
const NO_POLICY = { creatorMayNotApprove: null, secondApprovalThreshold: null, assignedStaffOnly: null };

/** The policy in force at creation and its changes until the approval was decided. */
export function policySteps(
  policy: readonly StoredEvent[],
  window: ApprovalWindow,
  users: HistoryNames['users'],
): ApprovalHistoryEntry[] {
  let before: Record<string, string | null> = NO_POLICY;
  let inForce: ApprovalHistoryEntry | null = null;
  const later: ApprovalHistoryEntry[] = [];
  for (const stored of policy) {
    if (stored.type !== 'ApprovalPolicySet') continue;
    if (window.decided !== null && stored.position > window.decided) break;
    const p = decodePolicy(stored).data;
    const after = policyFields(p);
    const atCreation = stored.position < window.created;
    const rules = [
      p.creatorMayNotApprove ? 'the creator may not approve' : 'the creator may approve',
      p.secondApprovalThreshold === null
        ? 'one approver at any amount'
        : `a second approver above ${historyMoney(p.secondApprovalThreshold)}`,
      (p.assignedStaffOnly ?? true) ? 'assigned staff only' : 'all staff',
    ].join('; ');
    const step: ApprovalHistoryEntry = {
      ...placeOf(stored),
      action: atCreation ? 'Approval policy in force' : 'Approval policy changed',
      ...actorOf(stored, users),
      details: `Company policy: ${rules}`,
      amount: null,
      threshold: p.secondApprovalThreshold,
      managerName: null,
      changes: changesBetween(before, after),
      reason: null,
      downloadUrl: null,
    };
    before = after;
    if (atCreation) inForce = step;
    else later.push(step);
  }
  return inForce ? [inForce, ...later] : later;
}

/** Banking unmasked (or the vendor forgotten) on the approval's vendors while it was open. */
export function vendorSteps(
  vendorEvents: readonly StoredEvent[],
  vendorNames: ReadonlyMap<string, string>,
  window: ApprovalWindow,
  users: HistoryNames['users'],
): ApprovalHistoryEntry[] {
  const out: ApprovalHistoryEntry[] = [];
  for (const stored of vendorEvents) {
    if (stored.type !== 'VendorBankingUnmasked' && stored.type !== 'VendorForgotten') continue;
    if (stored.position <= window.created) continue;
    if (window.closed !== null && stored.position > window.closed) continue;
    const name = vendorNames.get(stored.streamId) ?? stored.streamId;
    const e = decodeVendor(stored);
    let action = 'Vendor forgotten';
    let details = `${name}: its own contacts and bank details erased; this approval keeps the copy it was made with (the company's record)`;
    if (e.type === 'VendorBankingUnmasked') {
      action = 'Vendor banking unmasked';
      const x = e.data.export;
      details = x
        ? `${name}: full bank numbers exported to CSV (${x.vendors} vendor${x.vendors === 1 ? '' : 's'} in the file)`
        : `${name}: full bank numbers shown`;
    }
    out.push({
      ...placeOf(stored),
      action,
      ...actorOf(stored, users),
      details,
      amount: null,
      threshold: null,
      managerName: null,
      changes: [],
      reason: null,
      downloadUrl: null,
    });
  }
  return out;
}

/** The events of other streams whose steps name users (for the names to be looked up with the rest). */
export const aroundUserIds = (events: readonly StoredEvent[]) =>
  events.flatMap((e) => {
    const n = Number(e.metadata.userId);
    return Number.isInteger(n) && n > 0 ? [n] : [];
  });
