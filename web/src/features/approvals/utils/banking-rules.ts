// How the approval screens word a vendor's bank detail change (the answer's bankingFlags and
// bankingReview): which flag matters most, its label, and the one line that names the vendor, who
// changed it and when, and who must act. Numbers come masked from the server.
import { formatDateTime } from './approval-rules';

export interface FlagView {
  kind: string;
  vendorName: string | null;
  qbVendorId: string;
  source: string;
  accountNumber: string | null;
  previousAccountNumber: string | null;
  routingNumber: string | null;
  previousRoutingNumber: string | null;
  changedByName: string | null;
  changedAt: string;
  liveAt: string | null;
  verifiedBy: string | null;
  verifiedByName: string | null;
  flaggedUntil: string | null;
  awaiting: string | null;
  message: string;
}

/** The worst first: a frozen change, then a pending one, then a recent one. */
const RANK: Record<string, number> = { FROZEN_CHANGE: 0, PENDING_CHANGE: 1, RECENT_CHANGE: 2 };

export const FLAG_LABELS: Record<string, string> = {
  FROZEN_CHANGE: 'Bank change frozen',
  PENDING_CHANGE: 'Bank change pending',
  RECENT_CHANGE: 'Bank details changed',
};

const SOURCES: Record<string, string> = {
  FORM: 'the banking form',
  BATCH: 'a batch update',
  CSV: 'a CSV import',
  NOC: 'a notification of change',
};

const VERIFIED: Record<string, string> = {
  'second-person': 'approved',
  'micro-deposits': 'confirmed by the vendor’s micro-deposits',
  'control-off': 'live at once (the company’s control was off)',
};

export const flagLabel = (kind: string) => FLAG_LABELS[kind] ?? 'Bank details changed';
export const isHeldFlag = (kind: string) => kind === 'PENDING_CHANGE' || kind === 'FROZEN_CHANGE';

export function sortFlags<T extends { kind: string }>(flags: readonly T[]): T[] {
  return [...flags].sort((a, b) => (RANK[a.kind] ?? 3) - (RANK[b.kind] ?? 3));
}

export const vendorLabel = (f: Pick<FlagView, 'vendorName' | 'qbVendorId'>) =>
  f.vendorName ?? `QuickBooks vendor ${f.qbVendorId}`;

/** "account ****1004 → ****6666": before and after, masked. */
export const accountChange = (f: Pick<FlagView, 'previousAccountNumber' | 'accountNumber'>) =>
  `account ${f.previousAccountNumber ?? 'none'} → ${f.accountNumber ?? 'masked'}`;

/** Who changed it and when, and how it went live or who must act. */
export function flagStory(f: FlagView): string {
  const who = `changed by ${f.changedByName ?? 'the system'} on ${formatDateTime(f.changedAt)} through ${SOURCES[f.source] ?? f.source.toLowerCase()}`;
  if (isHeldFlag(f.kind)) return `${accountChange(f)}, ${who}.`;
  const how = f.verifiedBy ? (VERIFIED[f.verifiedBy] ?? f.verifiedBy) : 'live';
  const by = f.verifiedBy === 'second-person' && f.verifiedByName ? ` by ${f.verifiedByName}` : '';
  const live = f.liveAt ? ` on ${formatDateTime(f.liveAt)}` : '';
  const until = f.flaggedUntil ? ` Flagged until ${formatDateTime(f.flaggedUntil)}.` : '';
  return `${accountChange(f)}, ${who}; ${how}${by}${live}.${until}`;
}

/** The list row's and the candidate's one line: the worst flag, and how many vendors. */
export function flagSummary(flags: readonly FlagView[]): string | null {
  if (flags.length === 0) return null;
  const [worst] = sortFlags(flags);
  const vendors = new Set(flags.map((f) => f.qbVendorId)).size;
  return `${flagLabel(worst.kind)}: ${vendors === 1 ? vendorLabel(worst) : `${vendors} vendors`}`;
}

export const REVIEW_LABELS: Record<string, string> = {
  AS_APPROVED: 'As approved',
  NOT_RECORDED: 'As approved',
  CHANGED: 'Changed after approval',
  PENDING: 'Change pending',
  FROZEN: 'Change frozen',
};

/** A vendor of the approval whose file would not pay it as things stand. */
export const heldOut = (state: string) => state === 'CHANGED' || state === 'PENDING' || state === 'FROZEN';
