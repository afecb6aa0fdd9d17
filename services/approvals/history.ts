// GET /approvals/{id}/history: the approval's stream, and what happened around it on other streams
// (its company's policy, its vendors' banking unmasked, what the bank did with its entries), as steps a reader follows, in the order of
// the log. Each step names who took it (a user, an e-mail link's recipient, the system job), what it
// changed, the reason given and its file; the managers and users are named from their read models
// ("a deleted manager" once gone). Nothing else is stored for it: every field comes from the events.
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import type { StoredEvent } from '../eventstore/port.js';
import { approvalStreamId } from './approval-decider.js';
import {
  approvalSubjects,
  aroundUserIds,
  policySteps,
  policyStreamOf,
  vendorSteps,
  windowOf,
} from './history-around.js';
import { type ApprovalHistoryEntry, approvalSteps, type HistoryNames, namedIdsOf } from './history-steps.js';
import { entrySteps, entryStreamsOf } from './payments/entry-history.js';
import { parseApprovalId, requireRow } from './rows.js';

export { DELETED_MANAGER, historyMoney } from './history-steps.js';
export type { ApprovalHistoryEntry, HistoryNames };

/** The events of the streams around an approval that its history reads. */
export interface AroundEvents {
  policy: readonly StoredEvent[];
  vendors: readonly StoredEvent[];
  /** The streams of its files' entries (the payments module's: returns, voids, corrections). */
  entries?: readonly StoredEvent[];
}

const NOTHING_AROUND: AroundEvents = { policy: [], vendors: [] };

/** Every step, oldest first by log position (pure: the names are looked up before). */
export function historyEntries(
  events: readonly StoredEvent[],
  names: HistoryNames,
  around: AroundEvents = NOTHING_AROUND,
): ApprovalHistoryEntry[] {
  const own = approvalSteps(events, names);
  const window = windowOf(events);
  const subjects = approvalSubjects(events);
  if (!window || !subjects) return own;
  const others = [
    ...policySteps(around.policy, window, names.users),
    ...vendorSteps(around.vendors, subjects.vendors, window, names.users),
    ...entrySteps(events, around.entries ?? [], names.users),
  ];
  if (others.length === 0) return own;
  // Positions order by plain string comparison (services/eventstore/port.ts).
  return [...own, ...others].sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
}

/** The streams around the approval: its company's policy, its vendors' and its entries' (each read whole). */
async function readAround(app: AppServices, events: readonly StoredEvent[]): Promise<AroundEvents> {
  const subjects = approvalSubjects(events);
  if (!subjects) return NOTHING_AROUND;
  const vendorIds = [...subjects.vendors.keys()];
  const entryIds = entryStreamsOf(events);
  const ids = [policyStreamOf(subjects.companyId), ...vendorIds, ...entryIds];
  const streams = app.store.readStreams
    ? await app.store.readStreams(ids)
    : new Map(await Promise.all(ids.map(async (id) => [id, await app.store.readStream(id)] as const)));
  const of = (list: string[]) => list.flatMap((id) => streams.get(id)?.events ?? []);
  return {
    policy: streams.get(ids[0])?.events ?? [],
    vendors: of(vendorIds),
    entries: of(entryIds),
  };
}

async function namesOf(app: AppServices, userIds: number[], managerIds: number[]): Promise<HistoryNames> {
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

/** GET /approvals/{id}/history: from the approval's stream and those around it, oldest first. */
export async function approvalHistory(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<ApprovalHistoryEntry[]> {
  authorize(actor, 'approvals.read');
  const approvalId = parseApprovalId(id);
  await requireRow(app, actor, approvalId);
  const { events } = await app.store.readStream(approvalStreamId(approvalId));
  const around = await readAround(app, events);
  const ids = namedIdsOf(events);
  const userIds = [
    ...new Set([
      ...ids.users,
      ...aroundUserIds([...around.policy, ...around.vendors, ...(around.entries ?? [])]),
    ]),
  ];
  return historyEntries(events, await namesOf(app, userIds, ids.managers), around);
}
