// How the screens word a change of a vendor's bank details: its source, its status, how it went
// live, and who may act on it. The server decides; these only say what it decided, and hide a button
// the server would refuse anyway (the maker's own Approve).
import type { Role } from '../../../types/api';

export type BankingChangeStatus = 'pending' | 'frozen' | 'approved' | 'rejected' | 'live';

const SOURCE: Record<string, string> = {
  form: 'Banking form',
  batch: 'Batch update',
  csv: 'CSV import',
  noc: 'Notification of change',
};

const STATUS: Record<string, string> = {
  pending: 'Pending approval',
  frozen: 'Frozen',
  approved: 'Approved',
  rejected: 'Rejected',
  live: 'Live',
};

const VERIFIED: Record<string, string> = {
  'second-person': 'Approved by a second person',
  'micro-deposits': 'Vendor confirmed the micro-deposits',
  'control-off': 'Live at once: the company’s control was off',
};

export const sourceLabel = (source: string) => SOURCE[source] ?? source;
export const changeStatusLabel = (status: string) => STATUS[status] ?? status;
export const verifiedLabel = (kind: string | null) => (kind ? (VERIFIED[kind] ?? kind) : null);

/** A change still waiting on someone: a pending one may be approved or rejected, a frozen one rejected. */
export const isHeld = (status: string) => status === 'pending' || status === 'frozen';

/** The roles that decide on a held change (vendors.approveBankingChange on the server). */
const DECIDERS: readonly Role[] = ['ADMIN', 'MODERATOR'];

/**
 * What this viewer is offered on a change: Approve while pending and not their own (the server
 * refuses its maker), and a bank's notification of change to an ADMIN only; Reject while held.
 */
export function changeActions(
  change: { status: string; requestedById: number | null; source?: string },
  viewer: { id: number; role: Role } | null | undefined,
): { approve: boolean; reject: boolean; ownChange: boolean } {
  const decider = viewer != null && DECIDERS.includes(viewer.role);
  const ownChange = viewer != null && change.requestedById === viewer.id;
  const approver = change.source === 'noc' ? viewer?.role === 'ADMIN' : decider;
  return {
    approve: approver && change.status === 'pending' && !ownChange,
    reject: decider && isHeld(change.status),
    ownChange,
  };
}

/** 'No bank details' for a first entry's before. */
export const beforeOrNone = (masked: string | null) => masked ?? 'None';
