// The admin roster (one stream, `adminroster`): 'never zero active ADMINs' without a lock held across
// a wait. The roster is a subset of the active ADMINs: it admits one only from what the user's own
// stream shows (as of a user stream version), and every removal of an ADMIN is approved here first,
// refused when it would leave the roster empty. Optimistic concurrency on this one stream serialises
// removals across gateways; the user command then lands exactly at the version that was judged.
import type { Role, UserEvent } from '../../schema/users/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface RosterEntry {
  /** Counted as an active ADMIN. */
  active: boolean;
  /** The user stream version the roster's knowledge of this user is as of. */
  userVersion: number;
}

export interface AdminRosterState {
  admins: Map<number, RosterEntry>;
  version: number;
}

export type AdminRemoval = 'demote' | 'deactivate' | 'delete';

export type AdminRosterCommand =
  /** What the user's stream shows at `userVersion`: an active, not deleted ADMIN or not. */
  | { type: 'ObserveAdmin'; userId: number; userVersion: number; activeAdmin: boolean; now: string }
  | {
      type: 'ApproveAdminRemoval';
      userId: number;
      /** The user stream version the caller judged; the user command must land right after it. */
      userVersion: number;
      change: AdminRemoval;
      role?: Role;
      actorId: number | null;
      userCommandId: string;
      now: string;
    };

export const LAST_ADMIN = 'The last active administrator cannot be removed, demoted or deactivated';
export const ROSTER_BEHIND = 'The administrator was changed concurrently; please try again';

export const initialState = (): AdminRosterState => ({ admins: new Map(), version: 0 });

export function evolve(state: AdminRosterState, event: UserEvent): AdminRosterState {
  const version = state.version + 1;
  const set = (userId: number, entry: RosterEntry) => {
    const admins = new Map(state.admins);
    admins.set(userId, entry);
    return { admins, version };
  };
  switch (event.type) {
    case 'AdminRosterAdmitted':
      return set(event.data.userId, { active: true, userVersion: event.data.userVersion });
    case 'AdminRosterDropped':
    case 'AdminRemovalApproved':
      return set(event.data.userId, { active: false, userVersion: event.data.userVersion });
    default:
      return { ...state, version };
  }
}

export function decide(command: AdminRosterCommand, state: AdminRosterState): UserEvent[] {
  const entry = state.admins.get(command.userId);
  if (command.type === 'ObserveAdmin') {
    // Older news than what the roster knows (an approval judged this version or a later one): ignored,
    // so a late observation can never re-admit an admin whose removal was approved meanwhile.
    if (entry && command.userVersion <= entry.userVersion) return [];
    if ((entry?.active ?? false) === command.activeAdmin) return [];
    const data = { userId: command.userId, userVersion: command.userVersion, at: command.now };
    return [{ type: command.activeAdmin ? 'AdminRosterAdmitted' : 'AdminRosterDropped', data }];
  }
  if (entry && command.userVersion < entry.userVersion) throw new DomainError('CONFLICT', ROSTER_BEHIND);
  if (entry?.active) {
    const others = [...state.admins].filter(([id, e]) => id !== command.userId && e.active).length;
    if (others === 0) throw new DomainError('CONFLICT', LAST_ADMIN);
  }
  // Recorded even for a user the roster does not count yet: it fences off a late admission.
  return [
    {
      type: 'AdminRemovalApproved',
      data: {
        userId: command.userId,
        userVersion: command.userVersion,
        change: command.change,
        ...(command.role ? { role: command.role } : {}),
        actorId: command.actorId,
        userCommandId: command.userCommandId,
        at: command.now,
      },
    },
  ];
}

export const ADMIN_ROSTER_STREAM = 'adminroster';

export const adminRosterDecider = {
  initialState,
  evolve,
  decide,
  streamId: () => ADMIN_ROSTER_STREAM,
} satisfies Decider<AdminRosterState, AdminRosterCommand, UserEvent>;
