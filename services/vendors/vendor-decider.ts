// The vendor aggregate as a decider: created and changed by syncs from QuickBooks, bank details set
// and cleared by staff, blocked and corrected by the bank's answers (bank-answer-rules.ts), unmasks
// recorded. Pure: times come on the command.
import {
  type AccountType,
  type BankingSource,
  type BankingVerification,
  shownTail,
  type VendorEvent,
  vendorSubject,
} from '../../schema/vendors/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';
import {
  answersAfter,
  type BankAnswerCommand,
  type BankingBlock,
  blockBanking,
  correctionKey,
  correctionOf,
  withUnblock,
} from './bank-answer-rules.js';
import {
  type ChangeNotice,
  type ConfirmMicroDepositsCommand,
  checkNoticeLink,
  confirmMicroDeposits,
  evolvePending,
  FROZEN_ONLY_REJECT,
  type MailEndedCommand,
  type MicroDepositsDownloadCommand,
  type MicroDepositVerification,
  type NoticeCommand,
  pendingOf,
  recordDownload,
  recordMailEnded,
  recordNotice,
  type StartMicroDepositsCommand,
  startMicroDeposits,
} from './micro-deposit-rules.js';
import { type RemittanceAdviceCommand, setRemittanceAdvice } from './remittance-rules.js';

export interface VendorFromQb {
  name: string;
  email: string | null;
  phone: string | null;
  active: boolean;
}

export interface Banking {
  routingNumber: string;
  accountNumber: string;
  accountType: AccountType;
  bankName: string | null;
}

export interface VendorState {
  exists: boolean;
  vendorId: number | null;
  companyId: number | null;
  qbVendorId: string | null;
  qb: VendorFromQb | null;
  banking: Banking | null;
  /** A change of the bank details held for a second look (at most one: a newer one replaces it). */
  pending: PendingChange | null;
  /** Forgotten: its sealed data is unreadable and nothing more happens to it. */
  forgotten: boolean;
  /** Blocked after the bank returned a payment: no file pays it until a changed account goes live. */
  block: BankingBlock | null;
  /** The bank's answers (returns, notifications of change) already acted on (bank-answer-rules.ts). */
  bankAnswers: ReadonlySet<string>;
  /** Mailed its remittance advice when a file paying it goes to the bank (remittance-rules.ts). */
  remittanceAdvice: boolean;
}

export interface PendingChange {
  changeId: string;
  banking: Banking;
  source: BankingSource;
  byUserId: number | null;
  at: string;
  /** The vendor's contact said "this was not me": only a rejection ends it. */
  frozen: boolean;
  /** The notice's "this was not me" link (micro-deposit-rules.ts). */
  notice?: ChangeNotice | null;
  /** The latest micro-deposit verification of this change. */
  verification?: MicroDepositVerification | null;
}

export const initialState = (): VendorState => ({
  exists: false,
  vendorId: null,
  companyId: null,
  qbVendorId: null,
  qb: null,
  banking: null,
  pending: null,
  forgotten: false,
  block: null,
  bankAnswers: new Set(),
  remittanceAdvice: true,
});

export type VendorCommand =
  | {
      type: 'SyncVendor';
      /** The id a new vendor gets (allocated by the caller); ignored when the vendor exists. */
      vendorId: number;
      companyId: number;
      qbVendorId: string;
      vendor: VendorFromQb;
      now: string;
    }
  | ({
      type: 'UpdateBanking';
      source: BankingSource;
      /** Who made it (null: the system, a bank's notification of change). */
      byUserId: number | null;
      /** The id the change gets if it is held (allocated by the caller). */
      changeId: string;
      /** The company's control on bank detail changes is on: a change of the numbers is held. */
      controlled: boolean;
      now: string;
    } & Banking)
  | {
      type: 'ApproveBankingChange';
      changeId: string;
      byUserId: number;
      reason: string;
      now: string;
      /** The approver is an ADMIN: a change a bank's notification of change proposed needs one. */
      byAdmin?: boolean;
    }
  | { type: 'RejectBankingChange'; changeId: string; byUserId: number | null; reason: string; now: string }
  | {
      type: 'FreezeBankingChange';
      changeId: string;
      now: string;
      /** Pressed through the notice's link: it must be this change's, unexpired. */
      link?: { linkId: string };
    }
  | NoticeCommand
  | MailEndedCommand
  | StartMicroDepositsCommand
  | ConfirmMicroDepositsCommand
  | MicroDepositsDownloadCommand
  | { type: 'ClearBanking'; now: string }
  | {
      type: 'RecordUnmask';
      byUserId: number;
      now: string;
      /** An ADMIN's CSV export with full numbers: which vendors it held (csv-export.ts). */
      export?: { companyId: number | null; includeInactive: boolean; vendors: number };
    }
  | { type: 'ForgetVendor'; now: string }
  | BankAnswerCommand
  | RemittanceAdviceCommand;

export function evolve(state: VendorState, event: VendorEvent): VendorState {
  const bankAnswers = answersAfter(state.bankAnswers, event);
  return evolveVendor(bankAnswers === state.bankAnswers ? state : { ...state, bankAnswers }, event);
}

function evolveVendor(state: VendorState, event: VendorEvent): VendorState {
  switch (event.type) {
    case 'VendorCreated': {
      const { vendorId, companyId, qbVendorId, name, email, phone, active } = event.data;
      return { ...state, exists: true, vendorId, companyId, qbVendorId, qb: { name, email, phone, active } };
    }
    case 'VendorChangedInQuickBooks': {
      // Only what changed: applied to the vendor as created (a forgotten one keeps nothing).
      const { vendorId: _v, syncedAt: _s, ...changes } = event.data;
      return state.qb ? { ...state, qb: { ...state.qb, ...changes } } : state;
    }
    case 'VendorBankingUpdated': {
      const { routingNumber, accountNumber, accountType, bankName } = event.data;
      return { ...state, banking: { routingNumber, accountNumber, accountType, bankName } };
    }
    case 'VendorBankingCleared':
      return { ...state, banking: null };
    case 'VendorBankingChangeRequested': {
      const { changeId, routingNumber, accountNumber, accountType, bankName, source, byUserId, at } =
        event.data;
      const banking = { routingNumber, accountNumber, accountType, bankName };
      return { ...state, pending: { changeId, banking, source, byUserId, at, frozen: false } };
    }
    case 'VendorBankingChangeFrozen':
      return state.pending?.changeId === event.data.changeId
        ? { ...state, pending: { ...state.pending, frozen: true } }
        : state;
    case 'VendorBankingChangeApproved':
    case 'VendorBankingChangeRejected':
    case 'VendorMicroDepositsConfirmed':
      return state.pending?.changeId === event.data.changeId ? { ...state, pending: null } : state;
    case 'VendorBankingChangeNoticed':
    case 'VendorMicroDepositsSent':
    case 'VendorMicroDepositsMismatched':
      return state.pending ? { ...state, pending: evolvePending(state.pending, event) } : state;
    case 'VendorBankingBlocked': {
      const { traceNumber, code, description, at } = event.data;
      return {
        ...state,
        block: { traceNumber, returnCode: code, description, at, account: state.banking },
      };
    }
    case 'VendorBankingUnblocked':
      return { ...state, block: null };
    case 'VendorRemittanceAdviceSet':
      return { ...state, remittanceAdvice: event.data.enabled };
    case 'VendorForgotten':
      return { ...state, qb: null, banking: null, pending: null, forgotten: true, block: null };
    default:
      return state;
  }
}

const QB_FIELDS = ['name', 'email', 'phone', 'active'] as const;

export function decide(command: VendorCommand, state: VendorState): VendorEvent[] {
  const events = decideVendor(command, state);
  // Whatever made a changed account live (an approval, micro-deposits, the control off) lifts a block.
  return state.vendorId === null ? events : withUnblock(state.vendorId, state.block, events);
}

function decideVendor(command: VendorCommand, state: VendorState): VendorEvent[] {
  if (command.type === 'SyncVendor') {
    // Forgotten in Billflow, still in QuickBooks: a sync does not bring it back.
    if (state.forgotten) return [];
    const { vendor, now } = command;
    if (!state.exists) {
      return [
        {
          type: 'VendorCreated',
          data: {
            vendorId: command.vendorId,
            companyId: command.companyId,
            qbVendorId: command.qbVendorId,
            ...vendor,
            syncedAt: now,
          },
        },
      ];
    }
    const changes: Partial<VendorFromQb> = {};
    for (const f of QB_FIELDS) if (vendor[f] !== state.qb?.[f]) Object.assign(changes, { [f]: vendor[f] });
    // Unchanged in QuickBooks: nothing to record (a second sync changes nothing).
    if (Object.keys(changes).length === 0) return [];
    return [
      { type: 'VendorChangedInQuickBooks', data: { vendorId: state.vendorId!, ...changes, syncedAt: now } },
    ];
  }
  if (!state.exists) throw new DomainError('NOT_FOUND', 'Vendor not found');
  const vendorId = state.vendorId!;
  if (command.type === 'ForgetVendor')
    return state.forgotten
      ? []
      : [{ type: 'VendorForgotten', data: { vendorId, subject: vendorSubject(vendorId), at: command.now } }];
  if (state.forgotten) throw new DomainError('NOT_FOUND', 'Vendor not found');
  switch (command.type) {
    case 'UpdateBanking':
      return updateBanking(command, state, vendorId);
    case 'ApproveBankingChange': {
      const pending = pendingOf(state.pending, command.changeId);
      if (pending.frozen) throw new DomainError('CONFLICT', FROZEN_ONLY_REJECT);
      // The numbers came from a file no person typed: the administrator confirms them.
      if (pending.source === 'noc' && !command.byAdmin)
        throw new DomainError('FORBIDDEN', 'A bank’s notification of change is approved by an ADMIN');
      if (pending.byUserId === command.byUserId)
        throw new DomainError(
          'FORBIDDEN',
          'A bank detail change must be approved by someone other than its maker',
        );
      const { changeId, byUserId, reason, now } = command;
      return [
        { type: 'VendorBankingChangeApproved', data: { vendorId, changeId, byUserId, reason, at: now } },
        live(vendorId, pending.banking, pending.source, now, { kind: 'second-person', byUserId }, changeId),
      ];
    }
    case 'RejectBankingChange': {
      pendingOf(state.pending, command.changeId);
      const { changeId, byUserId, reason, now } = command;
      return [
        { type: 'VendorBankingChangeRejected', data: { vendorId, changeId, byUserId, reason, at: now } },
      ];
    }
    case 'FreezeBankingChange': {
      const pending = pendingOf(state.pending, command.changeId);
      if (command.link) checkNoticeLink(pending.notice, command.link.linkId, command.now);
      if (pending.frozen) return [];
      return [
        {
          type: 'VendorBankingChangeFrozen',
          data: { vendorId, changeId: command.changeId, via: 'contact-link', at: command.now },
        },
      ];
    }
    case 'RecordBankingNotice':
      return recordNotice(vendorId, command);
    case 'RecordBankingMailEnded':
      return recordMailEnded(vendorId, command);
    case 'StartMicroDeposits': {
      const pending = pendingOf(state.pending, command.changeId);
      if (pending.source === 'noc')
        throw new DomainError(
          'CONFLICT',
          'A bank’s notification of change is approved by an ADMIN, not by micro-deposits',
        );
      return startMicroDeposits(vendorId, pending.frozen, command);
    }
    case 'ConfirmMicroDeposits': {
      const pending = pendingOf(state.pending, command.changeId);
      const events = confirmMicroDeposits(vendorId, pending.frozen, pending.verification, command);
      if (events[0]?.type !== 'VendorMicroDepositsConfirmed') return events;
      const verifiedBy = { kind: 'micro-deposits' } as const;
      return [
        ...events,
        live(vendorId, pending.banking, pending.source, command.now, verifiedBy, pending.changeId),
      ];
    }
    case 'RecordMicroDepositsDownload':
      return recordDownload(vendorId, command);
    case 'BlockBanking':
      return blockBanking(vendorId, state.banking, state.bankAnswers, command);
    case 'ProposeBankCorrection':
      return proposeCorrection(command, state, vendorId);
    case 'SetRemittanceAdvice':
      return setRemittanceAdvice(vendorId, state.remittanceAdvice, command);
    case 'ClearBanking':
      if (!state.banking) return [];
      return [{ type: 'VendorBankingCleared', data: { vendorId, at: command.now } }];
    case 'RecordUnmask':
      return [
        {
          type: 'VendorBankingUnmasked',
          data: {
            vendorId,
            byUserId: command.byUserId,
            at: command.now,
            ...(command.export ? { export: command.export } : {}),
          },
        },
      ];
  }
}

/** The numbers and the type: what a payment goes by (the bank's name is only a label). */
export const sameAccount = (a: Omit<Banking, 'bankName'>, b: Omit<Banking, 'bankName'>) =>
  a.routingNumber === b.routingNumber &&
  a.accountNumber === b.accountNumber &&
  a.accountType === b.accountType;

/** Banking made live, with how it was checked. */
function live(
  vendorId: number,
  b: Banking,
  source: BankingSource,
  at: string,
  /** Null: the same account under a new bank name, which needs no check. */
  verifiedBy: BankingVerification | null,
  changeId: string | null,
): VendorEvent {
  return {
    type: 'VendorBankingUpdated',
    data: {
      vendorId,
      routingNumber: b.routingNumber,
      accountNumber: b.accountNumber,
      routingLast4: shownTail(b.routingNumber),
      accountLast4: shownTail(b.accountNumber),
      accountType: b.accountType,
      bankName: b.bankName,
      source,
      ...(changeId ? { changeId } : {}),
      ...(verifiedBy ? { verifiedBy } : {}),
      at,
    },
  };
}

/**
 * A change of the numbers or the type (a first entry too) is held when the company's control is on;
 * a new bank name on the same account goes live at once. A change while one is pending replaces it;
 * one reported as not the vendor's blocks every other until it is rejected. With the control off, any
 * change goes live at once, the pending one's numbers too.
 */
function updateBanking(
  command: Extract<VendorCommand, { type: 'UpdateBanking' }>,
  state: VendorState,
  vendorId: number,
): VendorEvent[] {
  const { routingNumber, accountNumber, accountType, bankName, source, byUserId, changeId, controlled, now } =
    command;
  const next: Banking = { routingNumber, accountNumber, accountType, bankName };
  const current = state.banking;
  const pending = state.pending;
  if (pending?.frozen)
    throw new DomainError(
      'CONFLICT',
      "A change of this vendor's bank details was reported by the vendor's contact as not theirs: an ADMIN must reject it before another change is made",
    );
  if (current && sameAccount(current, next)) {
    // The live account again: nothing new to pay; a pending change to another account stays pending.
    if (current.bankName === bankName) return [];
    return [live(vendorId, next, source, now, null, null)];
  }
  if (!controlled) {
    const superseded: VendorEvent[] = pending
      ? [
          {
            type: 'VendorBankingChangeRejected',
            data: {
              vendorId,
              changeId: pending.changeId,
              byUserId: null,
              reason: 'Replaced by a change made while the company’s control was off',
              at: now,
            },
          },
        ]
      : [];
    return [...superseded, live(vendorId, next, source, now, { kind: 'control-off' }, changeId)];
  }
  // The pending change again (a form sent twice): still waiting. With the control off it went live above.
  if (pending && sameAccount(pending.banking, next) && pending.banking.bankName === bankName) return [];
  return [requested(vendorId, state, next, { source, byUserId, changeId, now })];
}

/** A change held for a second look; it replaces the pending one. */
function requested(
  vendorId: number,
  state: VendorState,
  next: Banking,
  how: {
    source: BankingSource;
    byUserId: number | null;
    changeId: string;
    now: string;
    noc?: Extract<VendorEvent, { type: 'VendorBankingChangeRequested' }>['data']['noc'];
  },
): VendorEvent {
  const current = state.banking;
  const { routingNumber, accountNumber, accountType, bankName } = next;
  return {
    type: 'VendorBankingChangeRequested',
    data: {
      vendorId,
      changeId: how.changeId,
      routingNumber,
      accountNumber,
      accountType,
      bankName,
      routingLast4: shownTail(routingNumber),
      accountLast4: shownTail(accountNumber),
      previous: current
        ? {
            routingLast4: shownTail(current.routingNumber),
            accountLast4: shownTail(current.accountNumber),
            accountType: current.accountType,
          }
        : null,
      source: how.source,
      byUserId: how.byUserId,
      replaces: state.pending?.changeId ?? null,
      ...(how.noc ? { noc: how.noc } : {}),
      at: how.now,
    },
  };
}

/**
 * A bank's notification of change: the corrected banking held for an ADMIN's approval whatever the
 * company's control (a file no person typed names the account the money goes to), once per entry
 * and bank file; a code that corrects no bank detail, or one that cannot apply, is noted.
 */
function proposeCorrection(
  command: Extract<VendorCommand, { type: 'ProposeBankCorrection' }>,
  state: VendorState,
  vendorId: number,
): VendorEvent[] {
  const { traceNumber, inboundFileId, changeCode, description, dueBy, changeId, now } = command;
  if (state.bankAnswers.has(correctionKey(traceNumber, inboundFileId))) return [];
  const proposed = correctionOf(vendorId, state.banking, state.pending, command);
  if ('note' in proposed) return [proposed.note];
  const noc = { traceNumber, inboundFileId, code: changeCode, description, dueBy };
  return [
    requested(vendorId, state, proposed.banking, { source: 'noc', byUserId: null, changeId, now, noc }),
  ];
}

export const vendorStreamId = (companyId: number, qbVendorId: string) => `vendor-${companyId}-${qbVendorId}`;

export const vendorDecider = {
  initialState,
  evolve,
  decide,
  streamId: vendorStreamId,
} satisfies Decider<VendorState, VendorCommand, VendorEvent>;
