// An approval's own stream as history steps (pure). Each step says who acted (a user by id, the
// recipient of an e-mail link, or the system job named from the event's command id), what changed
// (the approval folded with the decider before and after the event, compared field by field), the
// reason given and the file that belongs to it. Fields whose subject was forgotten read '[erased]'.
// The texts are for people (history-words.ts): statuses and priorities as the badges name them,
// counts of things ('2 recipients'), never a bare code or number where a word says more.
import type { z } from 'zod';
import {
  type ApprovalHistoryEntry as ApprovalHistoryEntryAnswer,
  ERASED,
  type HISTORY_ACTOR_KINDS,
} from '../../schema/approvals/answers.js';
import { type ApprovalEvent, approvalEvents } from '../../schema/approvals/events.js';
import { type PaymentEvent, paymentEvents } from '../../schema/approvals/payment-events.js';
import type { StoredEvent } from '../eventstore/port.js';
import { eventDecoder } from '../shared/decider.js';
import { type ApprovalState, approvalDecider, billsTotal } from './approval-decider.js';
import { codeLabel, counted, nachaStatusLabel } from './history-words.js';
import { paymentStep } from './payments/payment-history.js';

export type ApprovalHistoryEntry = z.infer<typeof ApprovalHistoryEntryAnswer>;
export type HistoryChange = ApprovalHistoryEntry['changes'][number];
export type ActorKind = (typeof HISTORY_ACTOR_KINDS)[number];

const decodeApprovalEvent = eventDecoder(approvalEvents);
/** The stream's events, typed; anything else an approval's stream might hold is shown by its type. */
export const approvalEventOf = (stored: StoredEvent): ApprovalEvent | null =>
  Object.hasOwn(approvalEvents, stored.type) ? decodeApprovalEvent(stored) : null;

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** An amount in the plain text: "$4,693.45". */
export const historyMoney = (n: number) => USD.format(n);

export const DELETED_MANAGER = 'a deleted manager';

/** The names a history shows: users by id, managers by id (absent: deleted). */
export interface HistoryNames {
  users: ReadonlyMap<number, string>;
  managers: ReadonlyMap<number, string>;
}

/** What one event says, before the actor and the changes are added. */
export interface StepText {
  action: string;
  details: string | null;
  amount: number | null;
  threshold: number | null;
  managerName: string | null;
  /** Who acted when it was not a signed-in user (a link's recipient). */
  linkRecipient?: string | null;
  downloadUrl: string | null;
  reason: string | null;
}

const text = (action: string, details: string | null, more: Partial<StepText> = {}): StepText => ({
  action,
  details,
  amount: null,
  threshold: null,
  managerName: null,
  downloadUrl: null,
  reason: null,
  ...more,
});

const isPaymentEvent = (e: ApprovalEvent): e is Extract<ApprovalEvent, PaymentEvent> =>
  Object.hasOwn(paymentEvents, e.type);

/** One event as a step; `before` is the approval as it stood before the event. */
function textOf(
  e: ApprovalEvent,
  before: ApprovalState,
  names: HistoryNames,
  erased: readonly string[],
): StepText {
  const { managers } = names;
  const manager = (id: number) => managers.get(id) ?? null;
  switch (e.type) {
    case 'ApprovalCreated': {
      const d = e.data;
      const amount = billsTotal(d.bills);
      const managerName = d.managerId === null ? null : manager(d.managerId);
      const assigned = d.managerId === null ? '' : `, assigned to ${managerName ?? DELETED_MANAGER}`;
      const dup = d.confirmedDuplicates.length
        ? `; possible duplicates confirmed: ${d.confirmedDuplicates.map((x) => `${x.billId} (like ${x.paid ? 'paid ' : ''}${x.matchesBillId})`).join(', ')}`
        : '';
      return text(
        'Created',
        `${counted(d.bills.length, 'bill')}, ${historyMoney(amount)}, priority ${codeLabel(d.priority)}${assigned}${dup}`,
        { amount, managerName },
      );
    }
    case 'ApprovalUpdated': {
      const d = e.data;
      const managerName = d.managerId == null ? null : manager(d.managerId);
      const parts = [
        d.priority !== undefined ? `priority ${codeLabel(d.priority)}` : null,
        d.managerId === undefined
          ? null
          : d.managerId === null
            ? 'manager removed'
            : `assigned to ${managerName ?? DELETED_MANAGER}`,
      ].filter(Boolean);
      return text('Updated', parts.join(', ') || null, { managerName });
    }
    case 'ApprovalRecipientsUpdated':
      return text(
        'Recipients updated',
        erased.includes('recipients')
          ? `${ERASED} recipients`
          : recipientsText((e.data.recipients ?? []).length),
      );
    case 'ApprovalFirstApproved': {
      const d = e.data;
      const replaces = d.supersedes
        ? `; replaces the first approval of ${counted(d.supersedes.approvedBillIds.length, 'bill')}, which did not cover this choice`
        : '';
      return text(
        'First approval',
        `${counted(d.approvedBillIds.length, 'bill')}, ${historyMoney(d.amount)}: above ${historyMoney(d.threshold)}, awaiting a second approver${replaces}`,
        { amount: d.amount, threshold: d.threshold },
      );
    }
    case 'ApprovalApproved':
      return text(
        'Approved',
        `Approved bills: ${e.data.approvedBillIds.join(', ')}${bankingWords(before, e.data.approvedBanking)}`,
        { amount: billsTotal(before.bills, e.data.approvedBillIds) },
      );
    case 'ApprovalBankingReapproved':
      return text(
        'Bank details approved again',
        e.data.vendors
          .map(
            (v) =>
              `${v.vendorName ?? vendorNameIn(before, v.qbVendorId)}: account ${tail(v.previous?.accountLast4 ?? null)} → ${tail(v.accountLast4)}`,
          )
          .join('; '),
      );
    case 'ApprovalRejected':
      return text('Rejected', e.data.reason, { reason: e.data.reason });
    case 'ApprovalExpired':
      return text('Expired', 'Not approved in time', { reason: 'Not approved in time' });
    case 'ApprovalDeleted':
      return text('Deleted', null);
    default: {
      // Any other type spread into the approval's events (the audit export) is told by name elsewhere.
      if (!isPaymentEvent(e)) return text(e.type, null);
      const p = paymentStep(e, erased, (id) => names.users.get(id) ?? `User #${id}`);
      return text(p.action, p.details, {
        amount: p.amount,
        linkRecipient: p.actorName,
        downloadUrl: p.downloadUrl,
        reason: p.reason,
      });
    }
  }
}

const tail = (last4: string | null) => (last4 === null ? 'none' : `****${last4}`);
const vendorNameIn = (s: ApprovalState, qbVendorId: string) =>
  s.bills.find((b) => b.VendorRef.value === qbVendorId)?.VendorRef.name ?? `QuickBooks vendor ${qbVendorId}`;

/** The bank details an approval approved, by their tails (absent on approvals made before they were kept). */
function bankingWords(
  s: ApprovalState,
  banking:
    | ReadonlyArray<{ qbVendorId: string; accountLast4: string | null; fingerprint: string | null }>
    | undefined,
) {
  if (!banking || banking.length === 0) return '';
  return `; bank details approved: ${banking
    .map(
      (b) =>
        `${vendorNameIn(s, b.qbVendorId)} ${b.fingerprint === null ? '(no banking)' : `account ${tail(b.accountLast4)}`}`,
    )
    .join(', ')}`;
}

/** A count of recipients in words: 'No recipients', '1 recipient', '2 recipients'. */
const recipientsText = (n: number) => (n === 0 ? 'No recipients' : counted(n, 'recipient'));

/** The bundle an auditor exported (schema/approvals/audit-events.ts): ids and a time, no figures. */
export const AUDIT_EXPORTED = 'ApprovalAuditExported';
const auditExportText = (): StepText =>
  text(
    'Audit bundle exported',
    'The events as stored, their proofs to the published anchors, the decrypted view',
  );

/**
 * The fields a reader follows, as text: statuses as their badges say them, counts with what they
 * count. No recipients reads as none (null), as before the approval existed. `recipientsErased`: the
 * recipients were last set by an event whose subject is forgotten, so their count is unknown.
 */
function fieldsOf(
  s: ApprovalState,
  managers: HistoryNames['managers'],
  recipientsErased: boolean,
): Record<string, string | null> {
  const p = s.payment;
  const latest = <T>(xs: readonly T[]) => (xs.length ? xs[xs.length - 1] : null);
  const file = latest(p.files);
  const penny = latest(p.pennyTests);
  const links = Object.values(p.links);
  return {
    status: s.deleted ? 'Deleted' : s.status && codeLabel(s.status),
    priority: s.priority && codeLabel(s.priority),
    manager: s.managerId === null ? null : (managers.get(s.managerId) ?? DELETED_MANAGER),
    recipients: recipientsErased
      ? ERASED
      : s.exists && s.recipients.length > 0
        ? counted(s.recipients.length, 'recipient')
        : null,
    bills: s.exists ? counted(s.bills.length, 'bill') : null,
    firstApproval: s.firstApproval ? s.firstApproval.approvedBillIds.join(', ') : null,
    approvedBills: s.approvedBillIds.length ? s.approvedBillIds.join(', ') : null,
    nachaVersion: p.nachaVersion ? String(p.nachaVersion) : null,
    nachaStatus: p.nacha === 'NONE' ? null : nachaStatusLabel(p.nacha),
    nachaFile: file ? `${file.fileName} (v${file.version})` : null,
    nachaProblems: p.problems.length ? p.problems.map((x) => x.message).join('; ') : null,
    pennyTest: penny ? penny.fileName : null,
    links: links.length ? `${links.filter((l) => l.used).length} used of ${links.length}` : null,
    qbSyncStatus: p.qbSync.status && codeLabel(p.qbSync.status),
    qbSyncAttempt: p.qbSync.attempt ? String(p.qbSync.attempt) : null,
    paidBills: p.qbSync.paidBillIds.length ? p.qbSync.paidBillIds.join(', ') : null,
  };
}

/** The fields that differ, in the order fieldsOf lists them. */
export function changesBetween(
  before: Record<string, string | null>,
  after: Record<string, string | null>,
): HistoryChange[] {
  return Object.keys(after)
    .filter((field) => before[field] !== after[field])
    .map((field) => ({ field, from: before[field] ?? null, to: after[field] ?? null }));
}

const userIdOf = (stored: StoredEvent) => {
  const n = Number(stored.metadata.userId);
  return Number.isInteger(n) && n > 0 ? n : null;
};

/** The process managers' jobs by name: their command ids begin with it (workers/process-manager.ts). */
const JOBS: Record<string, string> = {
  payments: 'payments job',
  'payment-mail': 'payment mail job',
  approvals: 'approvals job',
  vendors: 'vendors job',
};

/** The system job that appended an event, named from its command id (`<pm>_<event>_<n>`), if it says. */
export function systemActorName(stored: Pick<StoredEvent, 'metadata'>): string {
  const commandId = typeof stored.metadata.commandId === 'string' ? stored.metadata.commandId : '';
  const pm = /^([a-z][a-z-]*)_/.exec(commandId)?.[1];
  if (!pm) return 'System';
  return `System (${JOBS[pm] ?? `${pm} job`})`;
}

/** Who took a step: the user in the metadata, else the link's recipient, else the system job. */
export function actorOf(
  stored: StoredEvent,
  users: HistoryNames['users'],
  linkRecipient: string | null = null,
): { actorKind: ActorKind; userId: number | null; userName: string } {
  const userId = userIdOf(stored);
  if (linkRecipient) return { actorKind: 'link-recipient', userId, userName: linkRecipient };
  if (userId !== null) return { actorKind: 'user', userId, userName: users.get(userId) ?? `User #${userId}` };
  return { actorKind: 'system', userId: null, userName: systemActorName(stored) };
}

/** The fields every step shares, from the stored event. */
export const placeOf = (stored: StoredEvent) => ({
  id: stored.id,
  position: stored.position,
  stream: stored.streamId,
  timestamp: stored.createdAt.toISOString(),
});

/** The approval's stream as history steps, oldest first (pure: the names are looked up before). */
export function approvalSteps(events: readonly StoredEvent[], names: HistoryNames): ApprovalHistoryEntry[] {
  let state = approvalDecider.initialState();
  let recipientsErased = false;
  return events.map((stored) => {
    const e = approvalEventOf(stored);
    const erased = stored.erased ?? [];
    let line = text(stored.type, null);
    let changes: HistoryChange[] = [];
    if (stored.type === AUDIT_EXPORTED) line = auditExportText();
    else if (e) {
      line = textOf(e, state, names, erased);
      const before = fieldsOf(state, names.managers, recipientsErased);
      state = approvalDecider.evolve(state, e);
      if (e.type === 'ApprovalCreated' || e.type === 'ApprovalRecipientsUpdated')
        recipientsErased = erased.includes('recipients');
      changes = changesBetween(before, fieldsOf(state, names.managers, recipientsErased));
    }
    const { linkRecipient, ...shown } = line;
    const actor = actorOf(stored, names.users, linkRecipient ?? null);
    // An export without a user was run from the command line (`npm run audit -- export`).
    if (stored.type === AUDIT_EXPORTED && actor.userName === 'System')
      actor.userName = 'System (audit export, command line)';
    return { ...placeOf(stored), ...shown, ...actor, changes };
  });
}

/** The users and managers a stream's steps name (looked up in the read models before building). */
export function namedIdsOf(events: readonly StoredEvent[]): { users: number[]; managers: number[] } {
  const users = new Set<number>();
  const managers = new Set<number>();
  for (const stored of events) {
    const u = userIdOf(stored);
    if (u !== null) users.add(u);
    if (stored.type !== 'ApprovalCreated' && stored.type !== 'ApprovalUpdated') continue;
    const e = approvalEventOf(stored);
    if ((e?.type === 'ApprovalCreated' || e?.type === 'ApprovalUpdated') && e.data.managerId)
      managers.add(e.data.managerId);
  }
  return { users: [...users], managers: [...managers] };
}
