// The bill approval aggregate as deciders (spec 2 §4; issue 12). Pure: times and the acting user
// come on the command. Three streams:
// - `approval-<id>`: the approval's lifecycle. PENDING → APPROVED (approve, with the approved
//   subset) | REJECTED (reject, with a reason) | EXPIRED (the expiry job); delete from any status
//   reached so far; update and recipients while it is still open.
// - `approvalbills-<companyId>`: which of the company's bills are in an open approval (at most one),
//   and the fingerprints (vendor, amount, document number) the duplicate guard compares.
// - `approvalpolicy-<companyId>`: segregation of duties. The creator may not approve by default (a
//   company that never set a policy included); an ADMIN may turn it off per company, on record.
import type {
  ApprovalBillsEvent,
  ApprovalEvent,
  ApprovalPolicyEvent,
  ApprovalStatus,
  BillSnapshot,
  ConfirmedDuplicate,
  Priority,
  VendorContact,
} from '../../schema/approvals/events.js';
import { DomainError } from '../shared/domain-errors.js';

// --- the company's policy -------------------------------------------------------------------------

export interface ApprovalPolicy {
  /** The approval's creator may not approve it. */
  creatorMayNotApprove: boolean;
  /** Above this approved total a second, different approver must approve; null: one approval is enough. */
  secondApprovalThreshold: number | null;
  /**
   * Only staff assigned to the company (and ADMINs) see and act on its approvals; false opens them to
   * every MODERATOR and USER (services/app/staff-scope.ts).
   */
  assignedStaffOnly: boolean;
}

/** A company that never set a policy: the creator may not approve their own approval (issue 36 §3). */
export const DEFAULT_POLICY: ApprovalPolicy = {
  creatorMayNotApprove: true,
  secondApprovalThreshold: null,
  assignedStaffOnly: true,
};

/** What the approve rule reads of the policy (the staff scope is judged before, by the use case). */
export type SegregationPolicy = Pick<ApprovalPolicy, 'creatorMayNotApprove' | 'secondApprovalThreshold'>;

/** Why a user may not approve under the policy: they created it, or they gave the first approval. */
export type SegregationBlock = 'CREATOR' | 'FIRST_APPROVER';

/**
 * The one rule the decider enforces and the reads explain to each viewer (so the screen never offers
 * what the server refuses). Once a first approval is recorded, its approver may not complete it while
 * the policy asks for two, whatever subset they pick (else a smaller subset would bypass the second).
 */
export function segregationBlock(
  approval: { createdBy: number | null; firstApprovedBy: number | null },
  policy: SegregationPolicy,
  userId: number,
): SegregationBlock | null {
  if (policy.creatorMayNotApprove && approval.createdBy === userId) return 'CREATOR';
  if (policy.secondApprovalThreshold !== null && approval.firstApprovedBy === userId) return 'FIRST_APPROVER';
  return null;
}

export type PolicyCommand = {
  type: 'SetApprovalPolicy';
  companyId: number;
  byUserId: number;
  now: string;
} & ApprovalPolicy;

export const approvalPolicyDecider = {
  initialState: (): ApprovalPolicy => DEFAULT_POLICY,
  evolve(_state: ApprovalPolicy, event: ApprovalPolicyEvent): ApprovalPolicy {
    const { creatorMayNotApprove, secondApprovalThreshold, assignedStaffOnly } = event.data;
    // Policies set before the staff scope existed kept the default: assigned staff only.
    return { creatorMayNotApprove, secondApprovalThreshold, assignedStaffOnly: assignedStaffOnly ?? true };
  },
  decide(command: PolicyCommand, state: ApprovalPolicy): ApprovalPolicyEvent[] {
    const { companyId, byUserId, now, creatorMayNotApprove, secondApprovalThreshold, assignedStaffOnly } =
      command;
    if (
      state.creatorMayNotApprove === creatorMayNotApprove &&
      state.secondApprovalThreshold === secondApprovalThreshold &&
      state.assignedStaffOnly === assignedStaffOnly
    )
      return [];
    return [
      {
        type: 'ApprovalPolicySet',
        data: {
          companyId,
          creatorMayNotApprove,
          secondApprovalThreshold,
          assignedStaffOnly,
          byUserId,
          at: now,
        },
      },
    ];
  },
  streamId: (companyId: number) => `approvalpolicy-${companyId}`,
};

// --- the company's bills in approvals -------------------------------------------------------------

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
      reason: 'rejected' | 'expired' | 'deleted' | 'not-approved' | 'abandoned';
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
    const open = new Map(state.open);
    if (event.type === 'ApprovalBillsClaimed') {
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
    for (const id of event.data.billIds) if (open.get(id) === event.data.approvalId) open.delete(id);
    if (!event.data.forget) return { open, seen: state.seen };
    const seen = new Map<string, ReadonlyArray<{ billId: string; approvalId: string }>>();
    for (const [fp, list] of state.seen) {
      const kept = list.filter((s) => s.approvalId !== event.data.approvalId);
      if (kept.length > 0) seen.set(fp, kept);
    }
    return { open, seen };
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
};

// --- the approval ----------------------------------------------------------------------------------

export interface ApprovalState {
  exists: boolean;
  approvalId: string | null;
  companyId: number | null;
  status: ApprovalStatus | null;
  priority: Priority | null;
  managerId: number | null;
  createdBy: number | null;
  bills: BillSnapshot[];
  vendorContacts: VendorContact[];
  recipients: string[];
  approvedBillIds: string[];
  /** Set by the first of two approvals; the status is still PENDING. */
  firstApproval: { byUserId: number; approvedBillIds: string[]; threshold: number; at: string } | null;
  approvedBy: number | null;
  rejectedBy: number | null;
  rejectionReason: string | null;
  expiresAt: string | null;
  deleted: boolean;
  createdAt: string | null;
}

export const initialState = (): ApprovalState => ({
  exists: false,
  approvalId: null,
  companyId: null,
  status: null,
  priority: null,
  managerId: null,
  createdBy: null,
  bills: [],
  vendorContacts: [],
  recipients: [],
  approvedBillIds: [],
  firstApproval: null,
  approvedBy: null,
  rejectedBy: null,
  rejectionReason: null,
  expiresAt: null,
  deleted: false,
  createdAt: null,
});

export type ApprovalCommand =
  | {
      type: 'CreateApproval';
      approvalId: string;
      companyId: number;
      priority: Priority;
      managerId: number | null;
      byUserId: number;
      bills: BillSnapshot[];
      vendorContacts: VendorContact[];
      recipients: string[];
      confirmedDuplicates: ConfirmedDuplicate[];
      expiresAt: string;
      now: string;
    }
  | {
      type: 'UpdateApproval';
      priority?: Priority;
      managerId?: number | null;
      recipients?: string[];
      now: string;
    }
  | { type: 'UpdateRecipients'; recipients: string[]; now: string }
  | {
      type: 'ApproveApproval';
      approvedBillIds: string[];
      byUserId: number;
      /** The company's policy when the command is sent (read from its own stream). */
      policy: SegregationPolicy;
      now: string;
    }
  | { type: 'RejectApproval'; reason: string; byUserId: number; now: string }
  | { type: 'ExpireApproval'; now: string }
  | { type: 'DeleteApproval'; byUserId: number; now: string };

export const REASON_MAX = 1000;

/** Still open for changes of assignment and recipients: PENDING, or APPROVED and not yet paid. */
const OPEN_FOR_RECIPIENTS: readonly ApprovalStatus[] = [
  'PENDING',
  'APPROVED',
  'NACHA_GENERATED',
  'NACHA_PENDING',
  'BANK_UPLOADED',
];
/** Deletable: every status this issue reaches; later statuses have a payment under way. */
const DELETABLE: readonly ApprovalStatus[] = ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED'];

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export function evolve(state: ApprovalState, event: ApprovalEvent): ApprovalState {
  switch (event.type) {
    case 'ApprovalCreated': {
      const d = event.data;
      return {
        ...state,
        exists: true,
        approvalId: d.approvalId,
        companyId: d.companyId,
        status: 'PENDING',
        priority: d.priority,
        managerId: d.managerId,
        createdBy: d.createdBy,
        bills: d.bills,
        vendorContacts: d.vendorContacts ?? [],
        recipients: d.recipients ?? [],
        expiresAt: d.expiresAt,
        createdAt: d.at,
      };
    }
    case 'ApprovalUpdated':
      return {
        ...state,
        ...(event.data.priority !== undefined ? { priority: event.data.priority } : {}),
        ...(event.data.managerId !== undefined ? { managerId: event.data.managerId } : {}),
      };
    case 'ApprovalRecipientsUpdated':
      return { ...state, recipients: event.data.recipients ?? [] };
    case 'ApprovalFirstApproved':
      return {
        ...state,
        firstApproval: {
          byUserId: event.data.byUserId,
          approvedBillIds: event.data.approvedBillIds,
          threshold: event.data.threshold,
          at: event.data.at,
        },
      };
    case 'ApprovalApproved':
      return {
        ...state,
        status: 'APPROVED',
        approvedBillIds: event.data.approvedBillIds,
        approvedBy: event.data.byUserId,
      };
    case 'ApprovalRejected':
      return {
        ...state,
        status: 'REJECTED',
        rejectedBy: event.data.byUserId,
        rejectionReason: event.data.reason,
      };
    case 'ApprovalExpired':
      return { ...state, status: 'EXPIRED' };
    case 'ApprovalDeleted':
      return { ...state, deleted: true };
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The total of the given bills (their amounts in the snapshot). */
export function billsTotal(bills: readonly BillSnapshot[], ids?: readonly string[]) {
  const wanted = ids ? new Set(ids) : null;
  return round2(bills.filter((b) => !wanted || wanted.has(b.Id)).reduce((s, b) => s + b.TotalAmt, 0));
}

function requirePending(state: ApprovalState, action: string) {
  if (state.status !== 'PENDING')
    throw new DomainError('CONFLICT', `Cannot ${action} an approval with status ${state.status}`);
}

export function decide(command: ApprovalCommand, state: ApprovalState): ApprovalEvent[] {
  if (command.type === 'CreateApproval') {
    // The same approval created again (a retried request) changes nothing.
    if (state.exists) {
      if (state.approvalId === command.approvalId) return [];
      throw new DomainError('CONFLICT', 'This approval already exists');
    }
    const { approvalId, companyId, priority, managerId, byUserId, bills, now } = command;
    if (bills.length === 0) throw new DomainError('VALIDATION', 'Select at least one bill');
    return [
      {
        type: 'ApprovalCreated',
        data: {
          approvalId,
          companyId,
          priority,
          managerId,
          createdBy: byUserId,
          bills,
          vendorContacts: command.vendorContacts,
          recipients: command.recipients,
          confirmedDuplicates: command.confirmedDuplicates,
          expiresAt: command.expiresAt,
          at: now,
        },
      },
    ];
  }
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', 'Approval not found');
  const approvalId = state.approvalId!;
  const companyId = state.companyId!;
  const at = command.now;
  switch (command.type) {
    case 'UpdateApproval': {
      requirePending(state, 'update');
      const events: ApprovalEvent[] = [];
      const changes: { priority?: Priority; managerId?: number | null } = {};
      if (command.priority !== undefined && command.priority !== state.priority)
        changes.priority = command.priority;
      if (command.managerId !== undefined && command.managerId !== state.managerId)
        changes.managerId = command.managerId;
      if (Object.keys(changes).length > 0)
        events.push({ type: 'ApprovalUpdated', data: { approvalId, companyId, ...changes, at } });
      if (command.recipients !== undefined && !sameList(command.recipients, state.recipients))
        events.push({
          type: 'ApprovalRecipientsUpdated',
          data: { approvalId, companyId, recipients: command.recipients, at },
        });
      return events;
    }
    case 'UpdateRecipients': {
      if (!OPEN_FOR_RECIPIENTS.includes(state.status!))
        throw new DomainError(
          'CONFLICT',
          `Cannot change the recipients of an approval with status ${state.status}`,
        );
      if (sameList(command.recipients, state.recipients)) return [];
      return [
        {
          type: 'ApprovalRecipientsUpdated',
          data: { approvalId, companyId, recipients: command.recipients, at },
        },
      ];
    }
    case 'ApproveApproval': {
      requirePending(state, 'approve');
      const ids = command.approvedBillIds;
      if (ids.length === 0) throw new DomainError('VALIDATION', 'Approve at least one bill');
      if (new Set(ids).size !== ids.length) throw new DomainError('VALIDATION', 'A bill is listed twice');
      const own = new Set(state.bills.map((b) => b.Id));
      const foreign = ids.filter((id) => !own.has(id));
      if (foreign.length > 0)
        throw new DomainError('VALIDATION', `Not a bill of this approval: ${foreign.join(', ')}`);
      const { policy, byUserId } = command;
      const block = segregationBlock(
        { createdBy: state.createdBy, firstApprovedBy: state.firstApproval?.byUserId ?? null },
        policy,
        byUserId,
      );
      if (block === 'CREATOR')
        throw new DomainError(
          'FORBIDDEN',
          'Segregation of duties: the creator of an approval may not approve it',
        );
      if (block === 'FIRST_APPROVER')
        throw new DomainError(
          'FORBIDDEN',
          'Segregation of duties: a second, different approver must approve this approval',
        );
      const amount = billsTotal(state.bills, ids);
      const threshold = policy.secondApprovalThreshold;
      const first = state.firstApproval;
      // Dual control holds per bill: the completing approval may keep or narrow what the first
      // approver approved, never add to it. A choice reaching beyond it (above the threshold)
      // starts the dual control over with this approver as the first (issue 36 §2).
      const coveredByFirst = first !== null && ids.every((id) => first.approvedBillIds.includes(id));
      if (threshold !== null && amount > threshold && !coveredByFirst)
        return [
          {
            type: 'ApprovalFirstApproved',
            data: {
              approvalId,
              companyId,
              approvedBillIds: ids,
              byUserId,
              amount,
              threshold,
              at,
              ...(first
                ? { supersedes: { byUserId: first.byUserId, approvedBillIds: first.approvedBillIds } }
                : {}),
            },
          },
        ];
      return [
        {
          type: 'ApprovalApproved',
          data: {
            approvalId,
            companyId,
            approvedBillIds: ids,
            byUserId,
            // On record only when the first approval covers every bill approved now.
            firstApprovedBy: coveredByFirst ? first.byUserId : null,
            at,
          },
        },
      ];
    }
    case 'RejectApproval': {
      requirePending(state, 'reject');
      const reason = command.reason.trim();
      if (reason.length === 0) throw new DomainError('VALIDATION', 'Please provide a reason for rejection');
      if (reason.length > REASON_MAX)
        throw new DomainError('VALIDATION', `The reason must be at most ${REASON_MAX} characters`);
      return [
        { type: 'ApprovalRejected', data: { approvalId, companyId, reason, byUserId: command.byUserId, at } },
      ];
    }
    case 'ExpireApproval':
      // The expiry job's command: a no-op once the approval left PENDING (approved, rejected, expired).
      if (state.status !== 'PENDING') return [];
      return [{ type: 'ApprovalExpired', data: { approvalId, companyId, at } }];
    case 'DeleteApproval':
      if (!DELETABLE.includes(state.status!))
        throw new DomainError('CONFLICT', `Cannot delete an approval with status ${state.status}`);
      return [{ type: 'ApprovalDeleted', data: { approvalId, companyId, byUserId: command.byUserId, at } }];
  }
}

export const approvalStreamId = (approvalId: string) => `approval-${approvalId}`;

export const approvalDecider = { initialState, evolve, decide };
