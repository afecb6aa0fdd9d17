// Sign-ins and sign-outs of one user, on a stream of their own (`usersessions-<userId>`): they are
// facts for statistics and the audit trail, decided by nothing the user aggregate knows, so they
// neither grow the user's stream nor make an admin's edit of the user retry on a conflict.
import type { UserEvent } from '../../schema/users/events.js';
import type { Decider } from '../shared/decider.js';

export type UserSessionState = Record<string, never>;

export type UserSessionCommand =
  | { type: 'RecordSignIn'; userId: number; ip: string | null; now: string }
  | { type: 'RecordSignOut'; userId: number; now: string };

export const initialState = (): UserSessionState => ({});

export const evolve = (state: UserSessionState, _event: UserEvent): UserSessionState => state;

export function decide(command: UserSessionCommand, _state: UserSessionState): UserEvent[] {
  if (command.type === 'RecordSignIn')
    return [{ type: 'UserSignedIn', data: { userId: command.userId, at: command.now, ip: command.ip } }];
  return [{ type: 'UserSignedOut', data: { userId: command.userId, at: command.now } }];
}

export const userSessionDecider = {
  initialState,
  evolve,
  decide,
  streamId: (userId: number) => `usersessions-${userId}`,
} satisfies Decider<UserSessionState, UserSessionCommand, UserEvent>;
