// The bill approval as a decider (stream `approval-<id>`): PENDING → APPROVED
// (approve, with the approved subset) | REJECTED (reject, with a reason) | EXPIRED (the expiry job);
// delete from any status reached so far; update and recipients while it is still open. Pure: times,
// the acting user and the company's policy come on the command.
import type {
  ApprovalEvent,
  ApprovalStatus,
  ApprovedBanking,
  BillSnapshot,
  ConfirmedDuplicate,
  Priority,
  VendorContact,
} from '../../schema/approvals/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';
import {
  type ApprovedBankingMap,
  bankingMap,
  completedBanking,
  recordedBanking,
  toApproveAgain,
  vendorsOfBills,
} from './payments/banking-holds.js';
import {
  decidePayment,
  evolvePayment,
  initialPaymentState,
  type PaymentCommand,
  type PaymentState,
} from './payments/payment-decider.js';
import { type SegregationPolicy, segregationBlock } from './policy-decider.js';

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
  firstApproval: {
    byUserId: number;
    approvedBillIds: string[];
    threshold: number;
    at: string;
    /** The vendors' banking as the first approver was shown it (null: before it was recorded). */
    approvedBanking: ApprovedBanking[] | null;
  } | null;
  /**
   * The banking a file may pay, per vendor of the approved bills (payments/banking-holds.ts); null:
   * approved before it was recorded.
   */
  approvedBanking: ApprovedBankingMap;
  approvedBy: number | null;
  rejectedBy: number | null;
  rejectionReason: string | null;
  expiresAt: string | null;
  deleted: boolean;
  createdAt: string | null;
  /** The file, the links, the confirmations and the QuickBooks payments (payments/payment-decider.ts). */
  payment: PaymentState;
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
  approvedBanking: null,
  approvedBy: null,
  rejectedBy: null,
  rejectionReason: null,
  expiresAt: null,
  deleted: false,
  createdAt: null,
  payment: initialPaymentState(),
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
      /** The assigned manager's e-mail address now (null: no manager, or none with an address). */
      managerEmail: string | null;
      /** The live banking of the approval's vendors as the approver is shown it (approve.ts reads it). */
      banking: ApprovedBanking[];
      /** The effective entry date chosen, already checked against the calendar (approve.ts). */
      effectiveDate?: string;
      now: string;
    }
  | {
      /** Records the live banking of the vendors whose banking changed after approval. */
      type: 'ApproveBankingAgain';
      byUserId: number;
      policy: SegregationPolicy;
      /** The live banking of the approval's vendors, as the approver is shown it. */
      banking: ApprovedBanking[];
      /** The vendors' names now, for the record. */
      vendorNames: Readonly<Record<string, string | null>>;
      now: string;
    }
  | { type: 'RejectApproval'; reason: string; byUserId: number; now: string }
  | { type: 'ExpireApproval'; now: string }
  | { type: 'DeleteApproval'; byUserId: number; now: string }
  | PaymentCommand;

export const REASON_MAX = 1000;

export const NOBODY_TO_CONFIRM =
  'Cannot approve: nobody could confirm its payment. The bank upload and the payment are confirmed through e-mail links sent to the assigned manager and the recipients, and this approval has neither a manager with an e-mail address nor recipients. Assign a manager or add a recipient, then approve.';

/** Still open for changes of assignment and recipients: PENDING, or APPROVED and not yet paid. */
const OPEN_FOR_RECIPIENTS: readonly ApprovalStatus[] = [
  'PENDING',
  'APPROVED',
  'NACHA_GENERATED',
  'NACHA_PENDING',
  'BANK_UPLOADED',
];
/** Approve again: the file is not at the bank yet (after that a second file would pay twice). */
const BEFORE_THE_BANK: readonly ApprovalStatus[] = ['APPROVED', 'NACHA_PENDING', 'NACHA_GENERATED'];
/** Deletable until a payment file is asked for (from then on a payment is under way). */
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
          approvedBanking: event.data.approvedBanking ?? null,
        },
      };
    case 'ApprovalApproved':
      return {
        ...state,
        status: 'APPROVED',
        approvedBillIds: event.data.approvedBillIds,
        approvedBy: event.data.byUserId,
        approvedBanking: event.data.approvedBanking ? bankingMap(event.data.approvedBanking) : null,
        payment: { ...state.payment, chosenEffectiveDate: event.data.effectiveDate ?? null },
      };
    case 'ApprovalBankingReapproved':
      return {
        ...state,
        approvedBanking: {
          ...state.approvedBanking,
          ...bankingMap(event.data.vendors.map(({ vendorName: _n, previous: _p, ...b }) => b)),
        },
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
    // A record of who took the approval's record away: it changes nothing of the approval.
    case 'ApprovalAuditExported':
      return state;
    default:
      return evolvePayment(state as ApprovalState & { approvalId: string; companyId: number }, event);
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
      // The payment's steps are confirmed through e-mail links, sent to the manager and the
      // recipients: with neither, the approval would wait at NACHA_GENERATED for good.
      if (command.managerEmail === null && state.recipients.length === 0)
        throw new DomainError('CONFLICT', NOBODY_TO_CONFIRM);
      const amount = billsTotal(state.bills, ids);
      const threshold = policy.secondApprovalThreshold;
      const first = state.firstApproval;
      // Dual control holds per bill: the completing approval may keep or narrow what the first
      // approver approved, never add to it. A choice reaching beyond it (above the threshold)
      // starts the dual control over with this approver as the first.
      const coveredByFirst = first !== null && ids.every((id) => first.approvedBillIds.includes(id));
      // What this approver is shown of the approved bills' vendors' banking: a file pays nothing else.
      const shown = recordedBanking(command.banking, vendorsOfBills(state.bills, ids));
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
              approvedBanking: shown,
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
            approvedBanking: coveredByFirst ? completedBanking(shown, first.approvedBanking) : shown,
            ...(command.effectiveDate ? { effectiveDate: command.effectiveDate } : {}),
            at,
          },
        },
      ];
    }
    case 'ApproveBankingAgain':
      return approveBankingAgain(command, state, approvalId, companyId);
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
      if (state.payment.nachaVersion > 0)
        throw new DomainError(
          'CONFLICT',
          'Cannot delete an approval once its payment file has been asked for: a payment is under way',
        );
      if (!DELETABLE.includes(state.status!))
        throw new DomainError('CONFLICT', `Cannot delete an approval with status ${state.status}`);
      return [{ type: 'ApprovalDeleted', data: { approvalId, companyId, byUserId: command.byUserId, at } }];
    default:
      return decidePayment(command, { ...state, approvalId, companyId });
  }
}

/**
 * Approve again (decision 0033): the vendors whose live banking is not the banking approved get it
 * recorded as approved, by someone the policy lets approve, before the bank has the file.
 */
function approveBankingAgain(
  command: Extract<ApprovalCommand, { type: 'ApproveBankingAgain' }>,
  state: ApprovalState,
  approvalId: string,
  companyId: number,
): ApprovalEvent[] {
  if (state.status === 'BANK_UPLOADED' || state.status === 'PAYMENT_COMPLETED')
    throw new DomainError(
      'CONFLICT',
      'The NACHA file is already at the bank: approving bank details again would change nothing it pays',
    );
  if (!BEFORE_THE_BANK.includes(state.status!))
    throw new DomainError('CONFLICT', `Cannot approve again an approval with status ${state.status}`);
  if (
    segregationBlock({ createdBy: state.createdBy, firstApprovedBy: null }, command.policy, command.byUserId)
  )
    throw new DomainError(
      'FORBIDDEN',
      'Segregation of duties: the creator of an approval may not approve it',
    );
  const approved = state.approvedBanking;
  const again = toApproveAgain(approved, command.banking);
  if (approved === null || again.length === 0)
    throw new DomainError(
      'CONFLICT',
      "Nothing to approve again: every vendor's live bank details are the ones approved",
    );
  return [
    {
      type: 'ApprovalBankingReapproved',
      data: {
        approvalId,
        companyId,
        byUserId: command.byUserId,
        vendors: again.map((b) => {
          const before = approved[b.qbVendorId];
          return {
            ...b,
            vendorName: command.vendorNames[b.qbVendorId] ?? null,
            previous: {
              fingerprint: before.fingerprint,
              routingLast4: before.routingLast4,
              accountLast4: before.accountLast4,
            },
          };
        }),
        at: command.now,
      },
    },
  ];
}

export const approvalStreamId = (approvalId: string) => `approval-${approvalId}`;

export const approvalDecider = {
  initialState,
  evolve,
  decide,
  streamId: approvalStreamId,
} satisfies Decider<ApprovalState, ApprovalCommand, ApprovalEvent>;
