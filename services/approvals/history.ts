// GET /approvals/{id}/history: the approval's stream, oldest first, as steps a reader follows. Each
// step names who took it and the manager it assigned (from the managers read model; "a deleted
// manager" once gone), and carries its amounts as numbers for the screen to format in the reader's
// locale; `details` says the same in plain en-US text for clients that show it as is.
import type { z } from 'zod';
import type { ApprovalHistoryEntry as ApprovalHistoryEntryAnswer } from '../../schema/approvals/answers.js';
import { type ApprovalEvent, approvalEvents } from '../../schema/approvals/events.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import type { StoredEvent } from '../eventstore/port.js';
import { eventDecoder } from '../shared/decider.js';
import { type ApprovalState, approvalDecider, approvalStreamId, billsTotal } from './approval-decider.js';
import { paymentStep } from './payments/payment-history.js';
import { parseApprovalId, requireRow } from './rows.js';

export type ApprovalHistoryEntry = z.infer<typeof ApprovalHistoryEntryAnswer>;

const decodeApprovalEvent = eventDecoder(approvalEvents);
/** The stream's events, typed; anything else an approval's stream might hold is shown by its type. */
const approvalEventOf = (stored: StoredEvent): ApprovalEvent | null =>
  Object.hasOwn(approvalEvents, stored.type) ? decodeApprovalEvent(stored) : null;

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** An amount in the plain text: "$4,693.45". */
export const historyMoney = (n: number) => USD.format(n);

export const DELETED_MANAGER = 'a deleted manager';

type Step = Pick<ApprovalHistoryEntry, 'action' | 'details' | 'amount' | 'threshold' | 'managerName'> & {
  actorName?: string | null;
  downloadUrl?: string | null;
};

/** The names a history shows: users by id, managers by id (absent: deleted). */
export interface HistoryNames {
  users: ReadonlyMap<number, string>;
  managers: ReadonlyMap<number, string>;
}

const step = (action: string, details: string | null, more: Partial<Step> = {}): Step => ({
  action,
  details,
  amount: null,
  threshold: null,
  managerName: null,
  ...more,
});

/** One event as a step; `before` is the approval as it stood before the event. */
function stepOf(e: ApprovalEvent, before: ApprovalState, managers: HistoryNames['managers']): Step {
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
      return step(
        'Created',
        `${d.bills.length} bill(s), ${historyMoney(amount)}, priority ${d.priority}${assigned}${dup}`,
        { amount, managerName },
      );
    }
    case 'ApprovalUpdated': {
      const d = e.data;
      const managerName = d.managerId == null ? null : manager(d.managerId);
      const parts = [
        d.priority !== undefined ? `priority ${d.priority}` : null,
        d.managerId === undefined
          ? null
          : d.managerId === null
            ? 'manager removed'
            : `assigned to ${managerName ?? DELETED_MANAGER}`,
      ].filter(Boolean);
      return step('Updated', parts.join(', ') || null, { managerName });
    }
    case 'ApprovalRecipientsUpdated':
      return step('Recipients updated', `${(e.data.recipients ?? []).length} recipient(s)`);
    case 'ApprovalFirstApproved': {
      const d = e.data;
      const replaces = d.supersedes
        ? `; replaces the first approval of ${d.supersedes.approvedBillIds.length} bill(s), which did not cover this choice`
        : '';
      return step(
        'First approval',
        `${d.approvedBillIds.length} bill(s), ${historyMoney(d.amount)}: above ${historyMoney(d.threshold)}, awaiting a second approver${replaces}`,
        { amount: d.amount, threshold: d.threshold },
      );
    }
    case 'ApprovalApproved':
      return step('Approved', `Approved bills: ${e.data.approvedBillIds.join(', ')}`, {
        amount: billsTotal(before.bills, e.data.approvedBillIds),
      });
    case 'ApprovalRejected':
      return step('Rejected', e.data.reason);
    case 'ApprovalExpired':
      return step('Expired', 'Not approved in time');
    case 'ApprovalDeleted':
      return step('Deleted', null);
    default: {
      const p = paymentStep(e);
      return step(p.action, p.details, {
        amount: p.amount,
        actorName: p.actorName,
        downloadUrl: p.downloadUrl,
      });
    }
  }
}

const userIdOf = (stored: StoredEvent) => {
  const n = Number(stored.metadata.userId);
  return Number.isInteger(n) && n > 0 ? n : null;
};

/** The stream's events as history entries, oldest first (pure: the names are looked up before). */
export function historyEntries(events: readonly StoredEvent[], names: HistoryNames): ApprovalHistoryEntry[] {
  let state = approvalDecider.initialState();
  return events.map((stored) => {
    const e = approvalEventOf(stored);
    let line = step(stored.type, null);
    if (e) {
      line = stepOf(e, state, names.managers);
      state = approvalDecider.evolve(state, e);
    }
    const userId = userIdOf(stored);
    const { actorName, downloadUrl, ...shown } = line;
    return {
      id: stored.id,
      ...shown,
      userId,
      userName: actorName ?? (userId !== null ? (names.users.get(userId) ?? `User #${userId}`) : 'System'),
      timestamp: stored.createdAt.toISOString(),
      downloadUrl: downloadUrl ?? null,
    };
  });
}

/** The managers the events assign, as the managers read model names them (deleted ones absent). */
function managerIdsOf(events: readonly StoredEvent[]): number[] {
  const ids = new Set<number>();
  for (const stored of events) {
    if (stored.type !== 'ApprovalCreated' && stored.type !== 'ApprovalUpdated') continue;
    const e = approvalEventOf(stored);
    if ((e?.type === 'ApprovalCreated' || e?.type === 'ApprovalUpdated') && e.data.managerId)
      ids.add(e.data.managerId);
  }
  return [...ids];
}

async function namesOf(app: AppServices, events: readonly StoredEvent[]): Promise<HistoryNames> {
  const userIds = [...new Set(events.map(userIdOf).filter((n): n is number => n !== null))];
  const managerIds = managerIdsOf(events);
  const [users, managers] = await Promise.all([
    userIds.length === 0
      ? []
      : app.db
          .selectFrom('users')
          .select(['id', 'first_name', 'last_name', 'email'])
          .where('id', 'in', userIds)
          .execute(),
    managerIds.length === 0
      ? []
      : app.db
          .selectFrom('managers')
          .select(['id', 'first_name', 'last_name', 'email'])
          .where('id', 'in', managerIds)
          .where('deleted_at', 'is', null)
          .execute(),
  ]);
  const named = (r: {
    id: number;
    first_name: string | null;
    last_name: string | null;
    email: string | null;
  }) => [r.first_name, r.last_name].filter(Boolean).join(' ').trim() || r.email || null;
  return {
    users: new Map(users.map((u) => [u.id, named(u) ?? `User #${u.id}`])),
    managers: new Map(managers.flatMap((m) => (named(m) ? [[m.id, named(m) as string] as const] : []))),
  };
}

/** GET /approvals/{id}/history: from the approval's stream, oldest first. */
export async function approvalHistory(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<ApprovalHistoryEntry[]> {
  authorize(actor, 'approvals.read');
  const approvalId = parseApprovalId(id);
  await requireRow(app, actor, approvalId);
  const { events } = await app.store.readStream(approvalStreamId(approvalId));
  return historyEntries(events, await namesOf(app, events));
}
