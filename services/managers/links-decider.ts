// Which user account each manager is linked to: one stream for every link, so that
// "a user links to at most one manager, a manager to at most one user" is decided atomically. Links
// change rarely; the state is a pair of small maps.
import type { ManagerEvent } from '../../schema/managers/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface LinksState {
  /** user id → manager id */
  managerOfUser: ReadonlyMap<number, number>;
  /** manager id → user id */
  userOfManager: ReadonlyMap<number, number>;
}

export const initialState = (): LinksState => ({ managerOfUser: new Map(), userOfManager: new Map() });

export type LinksCommand =
  | { type: 'LinkUser'; managerId: number; userId: number; now: string }
  | { type: 'UnlinkUser'; managerId: number; now: string };

export const USER_ALREADY_LINKED = 'This user is already linked to another manager';

export function evolve(state: LinksState, event: ManagerEvent): LinksState {
  if (event.type !== 'ManagerUserLinked' && event.type !== 'ManagerUserUnlinked') return state;
  const managerOfUser = new Map(state.managerOfUser);
  const userOfManager = new Map(state.userOfManager);
  const { managerId, userId } = event.data;
  if (event.type === 'ManagerUserLinked') {
    managerOfUser.set(userId, managerId);
    userOfManager.set(managerId, userId);
  } else {
    managerOfUser.delete(userId);
    userOfManager.delete(managerId);
  }
  return { managerOfUser, userOfManager };
}

export function decide(command: LinksCommand, state: LinksState): ManagerEvent[] {
  const current = state.userOfManager.get(command.managerId);
  const at = command.now;
  if (command.type === 'UnlinkUser') {
    if (current === undefined) return [];
    return [{ type: 'ManagerUserUnlinked', data: { managerId: command.managerId, userId: current, at } }];
  }
  if (current === command.userId) return [];
  const holder = state.managerOfUser.get(command.userId);
  if (holder !== undefined && holder !== command.managerId)
    throw new DomainError('CONFLICT', USER_ALREADY_LINKED);
  const events: ManagerEvent[] = [];
  // A manager linked to someone else moves to the new user in the same append.
  if (current !== undefined)
    events.push({ type: 'ManagerUserUnlinked', data: { managerId: command.managerId, userId: current, at } });
  events.push({
    type: 'ManagerUserLinked',
    data: { managerId: command.managerId, userId: command.userId, at },
  });
  return events;
}

export const MANAGER_LINKS_STREAM = 'managerlinks';

export const linksDecider = {
  initialState,
  evolve,
  decide,
  streamId: () => MANAGER_LINKS_STREAM,
} satisfies Decider<LinksState, LinksCommand, ManagerEvent>;
