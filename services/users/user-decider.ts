// The user aggregate as a decider: initialState, evolve (fold events), decide (command → events).
// Pure: no I/O, no clock (times come in on the command), no hashing (a stored credential's id comes in).
import { type Role, type UserEvent, userSubject } from '../../schema/users/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface UserState {
  exists: boolean;
  deleted: boolean;
  userId: number | null;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  role: Role | null;
  isActive: boolean;
  /** The current password's row in `user_credentials` (services/auth/credentials.ts). */
  credentialId: string | null;
  /** The personal data was erased (UserForgotten). */
  forgotten: boolean;
  registeredAt: string | null;
  /** Events folded so far: the stream version this state is as of. */
  version: number;
}

export const initialState = (): UserState => ({
  exists: false,
  deleted: false,
  userId: null,
  email: null,
  firstName: null,
  lastName: null,
  role: null,
  isActive: false,
  credentialId: null,
  forgotten: false,
  registeredAt: null,
  version: 0,
});

/**
 * `atVersion` (role, active and delete changes): decide only on the state the caller judged, as of
 * this stream version. The last-admin guard judged the user there; a change in between is a conflict.
 */
type Judged = { atVersion?: number };

export type UserCommand =
  | {
      type: 'RegisterUser';
      userId: number;
      email: string;
      firstName: string | null;
      lastName: string | null;
      role: Role;
      isActive: boolean;
      credentialId: string;
      now: string;
    }
  | {
      type: 'UpdateUserProfile';
      email?: string;
      firstName?: string | null;
      lastName?: string | null;
      now: string;
    }
  | ({ type: 'ChangeUserRole'; role: Role; actorId: number | null; now: string } & Judged)
  | ({ type: 'DeactivateUser'; actorId: number | null; now: string } & Judged)
  | { type: 'ReactivateUser'; now: string }
  | ({ type: 'DeleteUser'; actorId: number | null; now: string } & Judged)
  | { type: 'ChangeUserPassword'; credentialId: string; by: 'self' | 'admin'; now: string }
  | { type: 'ForgetUser'; now: string };

/** The refusal when a judged stream moved: callers re-judge on it (see users.ts). */
export const CHANGED_CONCURRENTLY = 'The user was changed concurrently; please try again';

export function evolve(state: UserState, event: UserEvent): UserState {
  // Every event counts towards the version, also those this fold ignores (sign-ins stored here once).
  return { ...fold(state, event), version: state.version + 1 };
}

function fold(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return {
        ...state,
        exists: true,
        userId: event.data.userId,
        email: event.data.email,
        firstName: event.data.firstName,
        lastName: event.data.lastName,
        role: event.data.role,
        isActive: event.data.isActive,
        credentialId: event.data.credentialId,
        registeredAt: event.data.registeredAt,
      };
    case 'UserProfileUpdated': {
      const d = event.data;
      return {
        ...state,
        email: d.email ?? state.email,
        firstName: d.firstName === undefined ? state.firstName : d.firstName,
        lastName: d.lastName === undefined ? state.lastName : d.lastName,
      };
    }
    case 'UserRoleChanged':
      return { ...state, role: event.data.to };
    case 'UserDeactivated':
      return { ...state, isActive: false };
    case 'UserReactivated':
      return { ...state, isActive: true };
    case 'UserDeleted':
      return { ...state, deleted: true, isActive: false };
    case 'UserPasswordChanged':
      return { ...state, credentialId: event.data.credentialId };
    case 'UserForgotten':
      return { ...state, forgotten: true, email: null, firstName: null, lastName: null };
    default:
      return state;
  }
}

function requireLive(state: UserState): asserts state is UserState & { userId: number } {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', 'User not found');
}

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  if (command.type === 'RegisterUser') {
    if (state.exists) throw new DomainError('CONFLICT', 'User already exists');
    return [
      {
        type: 'UserRegistered',
        data: {
          userId: command.userId,
          email: command.email,
          firstName: command.firstName,
          lastName: command.lastName,
          role: command.role,
          isActive: command.isActive,
          credentialId: command.credentialId,
          registeredAt: command.now,
        },
      },
    ];
  }
  if (command.type === 'ForgetUser') {
    if (!state.exists) throw new DomainError('NOT_FOUND', 'User not found');
    if (!state.deleted)
      throw new DomainError('CONFLICT', 'Delete the user before erasing their personal data');
    if (state.forgotten) return [];
    const userId = state.userId!;
    return [{ type: 'UserForgotten', data: { userId, subject: userSubject(userId), at: command.now } }];
  }
  requireLive(state);
  const userId = state.userId;
  if ('atVersion' in command && command.atVersion !== undefined && command.atVersion !== state.version)
    throw new DomainError('CONFLICT', CHANGED_CONCURRENTLY);
  switch (command.type) {
    case 'UpdateUserProfile': {
      const changes: { email?: string; firstName?: string | null; lastName?: string | null } = {};
      if (command.email !== undefined && command.email !== state.email) changes.email = command.email;
      if (command.firstName !== undefined && command.firstName !== state.firstName)
        changes.firstName = command.firstName;
      if (command.lastName !== undefined && command.lastName !== state.lastName)
        changes.lastName = command.lastName;
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'UserProfileUpdated', data: { userId, ...changes, updatedAt: command.now } }];
    }
    case 'ChangeUserRole':
      if (command.role === state.role) return [];
      if (command.actorId === userId && state.role === 'ADMIN') {
        throw new DomainError('FORBIDDEN', 'You cannot change your own role');
      }
      return [
        {
          type: 'UserRoleChanged',
          data: { userId, from: state.role!, to: command.role, changedAt: command.now },
        },
      ];
    case 'DeactivateUser':
      if (command.actorId === userId)
        throw new DomainError('FORBIDDEN', 'You cannot deactivate your own account');
      if (!state.isActive) return [];
      return [{ type: 'UserDeactivated', data: { userId, at: command.now } }];
    case 'ReactivateUser':
      if (state.isActive) return [];
      return [{ type: 'UserReactivated', data: { userId, at: command.now } }];
    case 'DeleteUser':
      if (command.actorId === userId)
        throw new DomainError('FORBIDDEN', 'You cannot delete your own account');
      return [{ type: 'UserDeleted', data: { userId, at: command.now } }];
    case 'ChangeUserPassword':
      return [
        {
          type: 'UserPasswordChanged',
          data: { userId, credentialId: command.credentialId, by: command.by, at: command.now },
        },
      ];
  }
}

export const userDecider = {
  initialState,
  evolve,
  decide,
  streamId: (userId: number) => `user-${userId}`,
} satisfies Decider<UserState, UserCommand, UserEvent>;
